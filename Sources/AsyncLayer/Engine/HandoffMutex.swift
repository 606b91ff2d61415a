import Synchronization

/// A `Mutex` whose critical sections also pass an atomic token, for ThreadSanitizer's sake.
///
/// On Linux a contended `Mutex` hands the lock over inside the kernel (`FUTEX_LOCK_PI`), in
/// uninstrumented standard-library code, so ThreadSanitizer sees no ordering between two holders
/// and reports false races on the protected value. An acquiring load when the section starts and a
/// releasing add when it ends state the ordering the lock already guarantees, in atomics the
/// sanitizer sees. The cost is one uncontended atomic pair per section. Used for the locks that
/// several threads contend for: the loop's perform queue and the draw queues.
struct HandoffMutex<Value: Sendable>: ~Copyable, Sendable {
  private let mutex: Mutex<Value>
  private let handoff = Atomic<UInt>(0)

  init(_ value: Value) {
    mutex = Mutex(value)
  }

  borrowing func withLock<Result: Sendable, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try mutex.withLock { (value: inout Value) throws(Failure) -> Result in
      _ = handoff.load(ordering: .acquiring)
      defer { handoff.wrappingAdd(1, ordering: .releasing) }
      return try body(&value)
    }
  }
}
