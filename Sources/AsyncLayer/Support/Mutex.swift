import Foundation
package import Synchronization  // package: the inlinable `withLock` below names `Synchronization.Mutex` in other modules

/// Inside this module, `Mutex` means the Thread-Sanitizer-visible mutex below.
typealias Mutex<Value: ~Copyable> = ThreadSanitizedMutex<Value>

/// `Synchronization.Mutex`, made visible to Thread Sanitizer.
///
/// On Linux the standard `Mutex` locks with a futex inside the Swift runtime, which TSan does not
/// instrument: it sees no happens-before edge between two critical sections and reports every
/// access under the lock as a race (a three-line program shows it). CI runs the suite under TSan
/// and must report nothing, so every lock in this module goes through this wrapper, which declares
/// the acquire and release to TSan when the process runs under it. Outside TSan the hooks are nil
/// and the cost is one predictable branch per lock. The module-wide `Mutex` alias shadows
/// `Synchronization.Mutex` with this type (same API). It is `package`: layerbench and the tests
/// use it too, so that the whole package passes TSan on Linux; it is not part of the public API.
///
/// ```swift
/// let counts = ThreadSanitizedMutex([String: Int]())
/// counts.withLock { $0["draws", default: 0] += 1 }
/// ```
package struct ThreadSanitizedMutex<Value: ~Copyable>: ~Copyable {
  @usableFromInline let base: Synchronization.Mutex<Value>
  /// A stable address that names this lock to TSan.
  @usableFromInline let token = ThreadSanitizerToken()

  /// A mutex guarding `initialValue`.
  package init(_ initialValue: consuming sending Value) {
    base = Synchronization.Mutex(initialValue)
  }

  /// Runs `body` with exclusive access to the value.
  ///
  /// Inlinable so that other modules (layerbench's batch engine takes five or six locks a tile) get it
  /// specialised for their value type: called generically across the module boundary, each lock looked
  /// up its metadata and moved the result through value witnesses, ~1,000 instructions a lock
  /// (callgrind, 2026-11-27).
  @inlinable
  package borrowing func withLock<Result: ~Copyable, E: Error>(
    _ body: (inout sending Value) throws(E) -> sending Result
  ) throws(E) -> sending Result {
    try base.withLock { (value: inout sending Value) throws(E) -> sending Result in
      token.acquire()
      defer { token.release() }
      return try body(&value)
    }
  }
}

/// Declares synchronization to Thread Sanitizer through its public interface
/// (`__tsan_acquire` / `__tsan_release`), looked up at run time so that normal builds need no
/// TSan runtime.
@usableFromInline
final class ThreadSanitizerToken: Sendable {
  private typealias Hook = @convention(c) (UnsafeMutableRawPointer?) -> Void

  private static let acquireHook: Hook? = lookUp("__tsan_acquire")
  private static let releaseHook: Hook? = lookUp("__tsan_release")

  private static func lookUp(_ name: String) -> Hook? {
    dlsym(nil, name).map { unsafeBitCast($0, to: Hook.self) }
  }

  @usableFromInline @inline(__always) func acquire() {
    if let hook = Self.acquireHook { hook(Unmanaged.passUnretained(self).toOpaque()) }
  }

  @usableFromInline @inline(__always) func release() {
    if let hook = Self.releaseHook { hook(Unmanaged.passUnretained(self).toOpaque()) }
  }
}

extension ThreadSanitizedMutex: Sendable where Value: ~Copyable {}
