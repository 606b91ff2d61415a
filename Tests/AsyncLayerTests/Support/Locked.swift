@testable import AsyncLayer

/// Test state shared between threads, behind the engine's `HandoffMutex` (a `Mutex` whose
/// ordering ThreadSanitizer can see even when the lock is contended).
final class Locked<Value: Sendable>: Sendable {
  private let mutex: HandoffMutex<Value>

  init(_ value: Value) { mutex = HandoffMutex(value) }

  func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
    mutex.withLock(body)
  }
}
