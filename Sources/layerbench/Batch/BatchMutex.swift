import Foundation
import Synchronization

/// The batch engine's locks: `ThreadSanitizedMutex` (the standard `Mutex`, made visible to Thread
/// Sanitizer), declared in this module so that the compiler specialises `withLock` for each guarded
/// type.
///
/// `ThreadSanitizedMutex.withLock` lives in AsyncLayer and is not inlinable, so each call from
/// here ran its generic body: the lock's metadata looked up (`ThreadSanitizedMutexVMa`,
/// `MutexVMa`, `_swift_getGenericMetadata`) and the result moved through value witnesses, ~1,000
/// instructions a lock, five or six locks a tile on the writer thread (callgrind, 2026-11-27).
/// Same locking (a futex, through `Synchronization.Mutex`), same TSan acquire and release.
struct BatchMutex<Value: ~Copyable>: ~Copyable {
  private let base: Synchronization.Mutex<Value>
  /// A stable address that names this lock to TSan.
  private let token = BatchMutexToken()

  init(_ initialValue: consuming sending Value) {
    base = Synchronization.Mutex(initialValue)
  }

  /// Runs `body` with exclusive access to the value.
  borrowing func withLock<Result: ~Copyable, E: Error>(
    _ body: (inout sending Value) throws(E) -> sending Result
  ) throws(E) -> sending Result {
    try base.withLock { (value: inout sending Value) throws(E) -> sending Result in
      token.acquire()
      defer { token.release() }
      return try body(&value)
    }
  }
}

extension BatchMutex: Sendable where Value: ~Copyable {}

/// Declares a `BatchMutex`'s acquire and release to Thread Sanitizer (`__tsan_acquire`,
/// `__tsan_release`, looked up at run time: normal builds have no TSan runtime, and the hooks are nil).
final class BatchMutexToken: Sendable {
  private typealias Hook = @convention(c) (UnsafeMutableRawPointer?) -> Void

  private static let acquireHook: Hook? = lookUp("__tsan_acquire")
  private static let releaseHook: Hook? = lookUp("__tsan_release")

  private static func lookUp(_ name: String) -> Hook? {
    dlsym(nil, name).map { unsafeBitCast($0, to: Hook.self) }
  }

  @inline(__always) func acquire() {
    if let hook = Self.acquireHook { hook(Unmanaged.passUnretained(self).toOpaque()) }
  }

  @inline(__always) func release() {
    if let hook = Self.releaseHook { hook(Unmanaged.passUnretained(self).toOpaque()) }
  }
}
