/// Carries a loop-bound value (a layer) across threads, allowing access only on its loop's thread,
/// like `NIOLoopBound`.
///
/// ```swift
/// let bound = LoopBound(layer, loop: loop)
/// DispatchQueue.global().async {
///   loop.perform { bound.value.setNeedsDisplay() }   // runs on the loop: allowed
/// }
/// ```
// @unchecked: the value is only reachable through `value`, which checks the loop's thread.
public struct LoopBound<Value>: @unchecked Sendable {
  private let storage: Value
  /// The loop that owns the value.
  public let loop: MainLoop

  /// Wraps `value`; call on `loop`'s thread.
  public init(_ value: Value, loop: MainLoop) {
    loop.preconditionInLoop()
    self.storage = value
    self.loop = loop
  }

  /// The value; stops the program when read off the loop's thread.
  public var value: Value {
    loop.preconditionInLoop()
    return storage
  }
}
