import Synchronization

/// A layer's draw status as its draws read it on other threads: the ``DisplayStateMachine``'s
/// generation, published by the loop after each transition.
final class GenerationCounter: Sendable {
  private let value = Atomic<UInt64>(0)

  /// The latest published generation.
  var current: UInt64 { value.load(ordering: .acquiring) }

  /// Publishes `generation`; it only ever grows, so a draw that sees a newer one knows it is stale.
  func publish(_ generation: UInt64) {
    value.store(generation, ordering: .releasing)
  }
}
