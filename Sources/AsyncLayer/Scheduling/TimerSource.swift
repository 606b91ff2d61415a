/// The clock and event source a ``DispatchTimer`` drives: `DispatchSourceTimer`'s life cycle
/// (schedule, activate, suspend / resume, cancel) and nothing else.
///
/// ``DispatchTimerSource`` is the real one. Tests pass a source whose time they move by hand, so a
/// timer's fires, suspensions and teardown are checked without waiting for real time.
///
/// ```swift
/// let source = ManualTimerSource()  // a test's own
/// let timer = DispatchTimer(interval: .seconds(1), source: source) { ticks.add(1) }
/// timer.start()
/// source.advance(by: .seconds(1))  // one fire, at once
/// ```
package protocol TimerSource: Sendable {
  /// Sets the closure each fire runs. Called once, before ``activate()``.
  func setEventHandler(_ handler: @escaping @Sendable () -> Void)
  /// First fire `intervalNanoseconds` from now, then every `intervalNanoseconds` if `repeats`; fires
  /// may come up to `leewayNanoseconds` late. Both are already clamped to 1 … 2⁶³ − 1.
  func schedule(intervalNanoseconds: Int, repeats: Bool, leewayNanoseconds: Int)
  /// Starts a new (inactive) source. A source must be activated before it is released.
  func activate()
  /// Holds fires back; each call must be balanced by ``resume()`` before the source is released.
  func suspend()
  /// Lets fires through again; fires that fell due while suspended coalesce into one.
  func resume()
  /// No further fires (a handler already running finishes).
  func cancel()
}
