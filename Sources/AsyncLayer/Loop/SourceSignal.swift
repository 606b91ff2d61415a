import Synchronization

/// The signalled flag shared by a source's handle and the loop.
final class SourceSignal: Sendable {
  private let flag = Atomic<Bool>(false)

  func set() { flag.store(true, ordering: .releasing) }
  var isSet: Bool { flag.load(ordering: .acquiring) }
  /// Clears the flag; true when it was set.
  func take() -> Bool { flag.exchange(false, ordering: .acquiringAndReleasing) }
}
