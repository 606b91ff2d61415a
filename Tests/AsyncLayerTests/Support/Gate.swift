import Dispatch

/// Holds a thread until another opens the gate: each `open()` lets one `enter()` through.
///
/// Tests use gates to stop a draw at a known point, not to wait for time; the timeout is only a
/// safety net so that a bug fails the test instead of hanging the suite.
final class Gate: Sendable {
  private let semaphore = DispatchSemaphore(value: 0)

  func open() { semaphore.signal() }

  /// Waits for `open()`; false if it never came (a bug).
  @discardableResult
  func enter() -> Bool { semaphore.wait(timeout: .now() + .seconds(60)) == .success }
}
