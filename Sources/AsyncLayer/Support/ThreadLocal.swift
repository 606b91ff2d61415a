import Foundation

/// One value per thread, made on the thread's first ``value`` read and released when the thread
/// exits (a pthread key with a destructor).
///
/// Keep it in a `static let`: each thread's value keeps its `ThreadLocal` alive, so the key is
/// deleted only once no thread holds a value.
///
/// ```swift
/// static let workspaces = ThreadLocal { PNGWorkspace() }
/// let workspace = Self.workspaces.value  // this thread's, made on first use
/// ```
///
/// It is `Sendable` for any `Value`, like swift-nio's `NIOLoopBound`, because no value is ever
/// shared: ``value`` returns the calling thread's own, made on that thread by `makeValue` and
/// released on that thread when it exits. What the type cannot check is what a caller does with
/// the returned value, so the rule is the one `NIOLoopBound` enforces at run time: use it on the
/// thread that read it, in synchronous code. ``value`` is unavailable from async functions (a
/// task can resume on another thread after a suspension, while a second task reads the same
/// value on the first), and a value must not be stored where another thread can reach it.
package final class ThreadLocal<Value>: @unchecked Sendable {
  /// What a thread's slot points at: the value, and its `ThreadLocal`, kept alive until the
  /// thread releases the box so that the key outlives every value stored under it.
  private final class Box {
    let owner: ThreadLocal<Value>
    let value: Value

    init(owner: ThreadLocal<Value>, value: Value) {
      self.owner = owner
      self.value = value
    }
  }

  private let key: pthread_key_t
  private let makeValue: @Sendable () -> Value

  /// A thread-local slot whose value `makeValue` makes, on each thread's first read.
  package init(_ makeValue: @escaping @Sendable () -> Value) {
    var key = pthread_key_t()
    // A C destructor cannot capture `Value`; releasing the box as any object needs no type.
    let status = pthread_key_create(&key) { pointer in
      guard let pointer else { return }
      Unmanaged<AnyObject>.fromOpaque(pointer).release()
    }
    precondition(status == 0, "pthread_key_create failed (\(status)): the process is out of thread keys")
    self.key = key
    self.makeValue = makeValue
  }

  deinit {
    // No thread holds a value any more (each would keep `self` alive).
    pthread_key_delete(key)
  }

  /// The calling thread's value, made by `makeValue` on the thread's first read.
  @available(*, noasync, message: "a task may resume on another thread; read it in synchronous code")
  package var value: Value {
    if let existing = pthread_getspecific(key) {
      return Unmanaged<Box>.fromOpaque(existing).takeUnretainedValue().value
    }
    let box = Box(owner: self, value: makeValue())
    let status = pthread_setspecific(key, Unmanaged.passRetained(box).toOpaque())
    precondition(status == 0, "pthread_setspecific failed (\(status))")
    return box.value
  }
}
