/// The composite of the tree a root layer heads: its life as a ``DisplayStateMachine`` (the same
/// machine as a layer's own display), the committed image and its hooks. Loop-confined, like its
/// layer.
final class LayerCompositor {
  var state = DisplayStateMachine<PoolTicket>()
  /// ``state``'s generation, as the composites on the pool read it.
  let generationCounter = GenerationCounter()
  /// Not counted in the loop's layer statistics, which count layer displays only.
  let recorder = StatisticsRecorder(parent: nil)
  var contents: RenderedImage?
  var lastError: (any Error)?
  var onDidComposite: ((AsyncLayer, _ finished: Bool) -> Void)?
  /// Called on the pool each time a composite polls for cancellation (tests hold composites here).
  var cancellationPollHook: (@Sendable () -> Void)?
  /// Called on the pool when a composite has rendered, before its commit is handed to the loop.
  var renderedHook: (@Sendable () -> Void)?
}
