public import Dispatch
import Synchronization

/// A repeating or one-shot timer on a dispatch queue, safe to start, stop, suspend, resume and
/// release in any order.
///
/// `DispatchSourceTimer` has sharp edges this wrapper files off: a new source is inactive until
/// activated, suspensions must be balanced by resumes, and releasing a source that is suspended
/// crashes the process. The timer tracks its state under a lock so none of that leaks out.
///
/// Unlike a run-loop timer in the default mode (which stops firing while the loop is tracking a
/// scroll), a dispatch timer fires on its queue whatever the main loop is doing.
///
/// Time comes from a `TimerSource`: a `DispatchSourceTimer` on `queue` (`DispatchTimerSource`)
/// unless the package's tests pass one they drive by hand.
///
/// ```swift
/// let timer = DispatchTimer(interval: .milliseconds(100), repeats: true, queue: .global()) {
///   print("tick")
/// }
/// timer.start()
/// // …
/// timer.stop()  // or just drop it
/// ```
public final class DispatchTimer: Sendable {
  /// Where the timer is in its life.
  public enum State: Sendable, Hashable {
    /// Created, not started yet.
    case idle
    /// Started: fires every interval (or once, for a one-shot).
    case running
    /// Paused by ``DispatchTimer/suspend()``; ``DispatchTimer/resume()`` continues.
    case suspended
    /// Stopped for good (explicitly, or after a one-shot fired).
    case stopped
  }

  /// The source lives inside the lock: every call on it happens under the lock, together with the
  /// state change it implies, so the two never disagree.
  private struct Guarded {
    var state: State
    let source: any TimerSource
  }

  private let guarded: Mutex<Guarded>
  private let fires = Atomic<Int>(0)
  /// The time between fires (before the first one, too), as given: clamped only when the timer starts.
  ///
  /// ```swift
  /// DispatchTimer(interval: .seconds(2)) {}.interval  // 2 seconds
  /// ```
  public let interval: Duration
  /// Whether the timer fires every ``interval`` (true) or once (false, then it stops itself).
  ///
  /// ```swift
  /// DispatchTimer(interval: .seconds(1), repeats: false) {}.repeats  // false
  /// ```
  public let repeats: Bool
  /// How late a fire may come, so the system can batch wake-ups.
  ///
  /// ```swift
  /// DispatchTimer(interval: .seconds(1), leeway: .milliseconds(50)) {}.leeway  // 0.05 seconds
  /// ```
  public let leeway: Duration

  /// Creates a stopped timer. `handler` runs on `queue` at each fire. `interval` and `leeway` are
  /// clamped to 1 ns … ``maximumInterval`` when the timer starts.
  ///
  /// ```swift
  /// let timer = DispatchTimer(interval: .seconds(1), queue: .main) { refresh() }
  /// ```
  public convenience init(
    interval: Duration, repeats: Bool = true, leeway: Duration = .milliseconds(1),
    queue: DispatchQueue = .global(), handler: @escaping @Sendable () -> Void
  ) {
    self.init(
      interval: interval, repeats: repeats, leeway: leeway, source: DispatchTimerSource(queue: queue),
      handler: handler)
  }

  /// Creates a stopped timer driven by `source` (a test's, whose time moves by hand). `handler`
  /// runs wherever the source fires.
  ///
  /// ```swift
  /// let source = ManualTimerSource()
  /// let timer = DispatchTimer(interval: .seconds(1), source: source) { ticks.add(1) }
  /// ```
  package init(
    interval: Duration, repeats: Bool = true, leeway: Duration = .milliseconds(1), source: any TimerSource,
    handler: @escaping @Sendable () -> Void
  ) {
    self.interval = interval
    self.repeats = repeats
    self.leeway = leeway
    guarded = Mutex(Guarded(state: .idle, source: source))
    guarded.withLock { timer in
      timer.source.setEventHandler { [weak self] in
        guard let self else { return }
        self.fires.add(1, ordering: .relaxed)
        if !self.repeats { self.stop() }
        handler()
      }
    }
  }

  /// The longest interval (and leeway) a timer uses, about 100 years: longer ones are clamped to
  /// it, since dispatch counts time in 64-bit nanoseconds (a `Duration` of 2⁴⁰ seconds does not
  /// fit). Intervals of zero or less become 1 ns.
  ///
  /// ```swift
  /// DispatchTimer(interval: .seconds(1 << 40)) {}  // fires every ~100 years
  /// ```
  public static let maximumInterval = Duration.seconds(100 * 365 * 86_400)

  /// `duration` in nanoseconds, clamped to 1 ns … ``maximumInterval``.
  static func nanoseconds(_ duration: Duration) -> Int {
    Int(min(max(duration.nanoseconds, 1), maximumInterval.nanoseconds))
  }

  deinit {
    // A suspended or never-activated source must be resumed / activated before release, or
    // libdispatch traps; cancelling first guarantees the handler never runs again.
    stop()
  }

  /// The timer's state.
  ///
  /// ```swift
  /// if timer.currentState == .suspended { timer.resume() }
  /// ```
  public var currentState: State { guarded.withLock { $0.state } }

  /// True until the timer is stopped.
  ///
  /// ```swift
  /// let oneShot = DispatchTimer(interval: .seconds(1), repeats: false) {}
  /// oneShot.isValid  // true; false once it has fired
  /// ```
  public var isValid: Bool { currentState != .stopped }

  /// How many times the timer has fired.
  ///
  /// ```swift
  /// print("ticked \(timer.fireCount) times")
  /// ```
  public var fireCount: Int { fires.load(ordering: .relaxed) }

  /// Starts an idle timer; the first fire comes one interval later.
  /// Does nothing in any other state.
  ///
  /// ```swift
  /// let timer = DispatchTimer(interval: .seconds(1)) { tick() }
  /// timer.start()  // first tick one second from now
  /// ```
  public func start() {
    let nanoseconds = Self.nanoseconds(interval)
    guarded.withLock { timer in
      guard timer.state == .idle else { return }
      timer.source.schedule(
        intervalNanoseconds: nanoseconds, repeats: repeats, leewayNanoseconds: Self.nanoseconds(leeway))
      timer.source.activate()
      timer.state = .running
    }
  }

  /// Pauses a running timer; fires that fall due while suspended coalesce into one on resume.
  ///
  /// ```swift
  /// timer.suspend()  // app in the background
  /// ```
  public func suspend() {
    guarded.withLock { timer in
      guard timer.state == .running else { return }
      timer.source.suspend()
      timer.state = .suspended
    }
  }

  /// Resumes a suspended timer.
  ///
  /// ```swift
  /// timer.resume()  // back in the foreground: one catch-up fire if any fell due
  /// ```
  public func resume() {
    guarded.withLock { timer in
      guard timer.state == .suspended else { return }
      timer.source.resume()
      timer.state = .running
    }
  }

  /// Stops the timer for good. Safe in every state, and more than once.
  ///
  /// ```swift
  /// timer.stop()  // no further fires; a handler already running finishes
  /// ```
  public func stop() {
    guarded.withLock { timer in
      switch timer.state {
      case .idle:
        timer.source.cancel()
        timer.source.activate()
      case .suspended:
        timer.source.cancel()
        timer.source.resume()
      case .running:
        timer.source.cancel()
      case .stopped:
        return
      }
      timer.state = .stopped
    }
  }
}
