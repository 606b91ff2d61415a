import AsyncLayer

/// A `TimerSource` whose time moves only when a test calls `advance(by:)`, modelled on a
/// `DispatchSourceTimer`: inactive until activated, fires held back while suspended and coalesced into
/// one on resume, nothing after cancel. Like dispatch, fires are queued and run later — on the next
/// `advance(by:)`, on the test's thread — never inside the call that caused them.
///
/// It also records what libdispatch would trap on: a resume without a suspend, and (through
/// `isSafeToRelease`) a source left inactive or suspended.
final class ManualTimerSource: TimerSource {
  struct Schedule: Equatable {
    var intervalNanoseconds: Int
    var repeats: Bool
    var leewayNanoseconds: Int
  }

  private struct State {
    var handler: (@Sendable () -> Void)?
    var schedule: Schedule?
    var now = 0
    var nextDeadline: Int?
    var activated = false
    var suspensions = 0
    var cancelled = false
    /// A fire fell due while suspended: it runs once after the resume.
    var missedWhileSuspended = false
    /// Fires due and not yet run.
    var queuedFires = 0
    var misuses: [String] = []
  }

  private let state = Mutex(State())

  var schedule: Schedule? { state.withLock { $0.schedule } }
  var isCancelled: Bool { state.withLock { $0.cancelled } }
  var misuses: [String] { state.withLock { $0.misuses } }
  /// What libdispatch requires of a source being released: activated and not suspended.
  var isSafeToRelease: Bool { state.withLock { $0.activated && $0.suspensions == 0 } }

  /// Moves time forward by `duration` (in one step: missed repeats coalesce into one fire, as with
  /// dispatch), then runs every queued fire.
  func advance(by duration: Duration) {
    let (handler, fires) = state.withLock { state in
      state.now +=
        Int(duration.components.seconds) * 1_000_000_000 + Int(duration.components.attoseconds / 1_000_000_000)
      if let deadline = state.nextDeadline, state.now >= deadline, let schedule = state.schedule, state.activated,
        !state.cancelled
      {
        if schedule.repeats {
          let missed = (state.now - deadline) / schedule.intervalNanoseconds
          state.nextDeadline = deadline + (missed + 1) * schedule.intervalNanoseconds
        } else {
          state.nextDeadline = nil
        }
        if state.suspensions > 0 { state.missedWhileSuspended = true } else { state.queuedFires += 1 }
      }
      defer { state.queuedFires = 0 }
      return (state.handler, state.cancelled ? 0 : state.queuedFires)
    }
    for _ in 0..<fires {
      // A fire cancelled by the previous one's handler (a one-shot stopping itself) does not run.
      guard !isCancelled else { return }
      handler?()
    }
  }

  func setEventHandler(_ handler: @escaping @Sendable () -> Void) { state.withLock { $0.handler = handler } }

  func schedule(intervalNanoseconds: Int, repeats: Bool, leewayNanoseconds: Int) {
    state.withLock { state in
      state.schedule = Schedule(
        intervalNanoseconds: intervalNanoseconds, repeats: repeats, leewayNanoseconds: leewayNanoseconds)
      // A huge interval saturates instead of overflowing, as dispatch's `DispatchTime` does.
      let (deadline, overflow) = state.now.addingReportingOverflow(intervalNanoseconds)
      state.nextDeadline = overflow ? Int.max : deadline
    }
  }

  func activate() { state.withLock { $0.activated = true } }

  func suspend() { state.withLock { $0.suspensions += 1 } }

  func resume() {
    state.withLock { state in
      guard state.suspensions > 0 else {
        state.misuses.append("resume without suspend")
        return
      }
      state.suspensions -= 1
      if state.suspensions == 0, state.missedWhileSuspended {
        state.missedWhileSuspended = false
        state.queuedFires += 1
      }
    }
  }

  func cancel() { state.withLock { $0.cancelled = true } }
}
