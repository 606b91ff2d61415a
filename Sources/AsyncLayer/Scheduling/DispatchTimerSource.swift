package import Dispatch

/// The ``TimerSource`` every ``DispatchTimer`` uses unless a test passes another: a
/// `DispatchSourceTimer` on a queue, counting real (monotonic) time.
///
/// ```swift
/// let timer = DispatchTimer(interval: .milliseconds(100), source: DispatchTimerSource(queue: .main)) {}
/// ```
// @unchecked: a dispatch source is thread-safe, but Dispatch does not mark `DispatchSourceTimer` Sendable.
package struct DispatchTimerSource: TimerSource, @unchecked Sendable {
  private let source: any DispatchSourceTimer

  /// A new, inactive dispatch timer source whose handler runs on `queue`.
  ///
  /// ```swift
  /// let source = DispatchTimerSource(queue: DispatchQueue(label: "ticks"))
  /// ```
  package init(queue: DispatchQueue) {
    source = DispatchSource.makeTimerSource(queue: queue)
  }

  package func setEventHandler(_ handler: @escaping @Sendable () -> Void) { source.setEventHandler(handler: handler) }

  package func schedule(intervalNanoseconds: Int, repeats: Bool, leewayNanoseconds: Int) {
    source.schedule(
      deadline: .now() + .nanoseconds(intervalNanoseconds),
      repeating: repeats ? .nanoseconds(intervalNanoseconds) : .never,
      leeway: .nanoseconds(leewayNanoseconds))
  }

  package func activate() { source.activate() }
  package func suspend() { source.suspend() }
  package func resume() { source.resume() }
  package func cancel() { source.cancel() }
}
