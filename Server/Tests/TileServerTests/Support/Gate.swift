import Dispatch
import Testing

/// Holds a pool queue until the test opens it: the item the gate blocks runs first, so the items
/// behind it stay queued for as long as the test needs, without sleeps.
final class Gate: Sendable {
  private let semaphore = DispatchSemaphore(value: 0)
  private let started = DispatchSemaphore(value: 0)

  /// Blocks the calling (pool) thread until ``open()``; tells ``waitUntilHeld()`` first.
  func hold() {
    started.signal()
    semaphore.wait()
  }

  /// Tells ``waitUntilHeld()`` without blocking: for a draw that waits on a condition of its own.
  func markHeld() { started.signal() }

  /// Returns once a queue thread is inside ``hold()`` (or called ``markHeld()``); records an issue if
  /// none is after 60 s (a bound against a bug, not a wait).
  func waitUntilHeld(sourceLocation: SourceLocation = #_sourceLocation) async {
    let held = await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        continuation.resume(returning: self.started.wait(timeout: .now() + .seconds(60)) == .success)
      }
    }
    if !held { Issue.record("no queue thread reached the gate within 60 s", sourceLocation: sourceLocation) }
  }

  func open() { semaphore.signal() }
}
