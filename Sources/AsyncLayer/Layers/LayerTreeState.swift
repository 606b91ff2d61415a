/// A layer's place in a tree and how its superlayer composites it: stored on ``AsyncLayer``,
/// read and written on the loop only.
struct LayerTreeState {
  var origin = Point.zero
  var zPosition: Double = 0
  var isHidden = false
  var opacity: Double = 1
  var cornerRadius: Double = 0
  var masksToBounds = false
  /// In insertion order; drawing sorts them by `zPosition` (see `sublayersInDrawingOrder`).
  var sublayers: [AsyncLayer] = []
  /// Weak: a superlayer owns its sublayers, never the other way round.
  weak var superlayer: AsyncLayer?
}

/// The composite of the tree a root layer heads: its draw status (a generation counter, like a
/// layer's own), the committed image and the composite in flight. Loop-confined, like its layer.
final class LayerCompositor {
  let generationCounter = GenerationCounter()
  /// Not counted in ``DisplayStatistics/global``, which counts layer displays only.
  let recorder = StatisticsRecorder(parent: nil)
  /// True between a change to the tree and the collector flush that looks at it.
  var needsComposite = false
  var inFlight: (generation: UInt64, ticket: PoolTicket)?
  var contents: RenderedImage?
  var lastError: (any Error)?
  var onDidComposite: ((AsyncLayer, _ finished: Bool) -> Void)?
  /// Called on the pool each time a composite polls for cancellation (tests hold composites here).
  var cancellationPollHook: (@Sendable () -> Void)?
  /// Called on the pool when a composite has rendered, before its commit is handed to the loop.
  var renderedHook: (@Sendable () -> Void)?
}
