import AsyncLayer

/// A `Clock` whose time moves only when a test calls `advance(by:)` (after swift-async-algorithms'
/// test `ManualClock`, with `Duration` steps so it can stand in for `ContinuousClock`).
///
/// A sleeper wakes on the advance that reaches its deadline; a cancelled sleeper throws
/// `CancellationError` at once and leaves. `waitForSleeps(_:)` lets a test advance only after the
/// code under test has started sleeping.
final class ManualClock: Clock, Sendable {
  struct Instant: InstantProtocol {
    var sinceStart: Duration

    func advanced(by duration: Duration) -> Instant { Instant(sinceStart: sinceStart + duration) }
    func duration(to other: Instant) -> Duration { other.sinceStart - sinceStart }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.sinceStart < rhs.sinceStart }
  }

  private struct Sleeper {
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now = Instant(sinceStart: .zero)
    var nextID = 0
    var sleepers: [Int: Sleeper] = [:]
    /// Sleeps cancelled before they registered: they throw as soon as they do.
    var cancelledEarly: Set<Int> = []
  }

  private let state = Mutex(State())
  private let events = EventCounter()

  var now: Instant { state.withLock { $0.now } }
  var minimumResolution: Duration { .zero }

  /// Sleepers waiting for a deadline not reached yet.
  var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  /// Returns once `count` sleeps have started (in total, whether they still sleep or not).
  func waitForSleeps(_ count: Int) async { await events.waitFor("sleep", count: count) }

  /// Moves time forward by `duration` and wakes, in deadline order, every sleeper now due.
  func advance(by duration: Duration) {
    let due = state.withLock { state in
      state.now = state.now.advanced(by: duration)
      let now = state.now
      let due = state.sleepers.filter { $0.value.deadline <= now }.sorted { $0.value.deadline < $1.value.deadline }
      for (id, _) in due { state.sleepers[id] = nil }
      return due.map(\.value.continuation)
    }
    for continuation in due { continuation.resume() }
  }

  func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let outcome: Result<Void, any Error>? = state.withLock { state in
          if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
          if deadline <= state.now { return .success(()) }
          state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
          return nil
        }
        if let outcome { continuation.resume(with: outcome) }
        events.record("sleep")
      }
    } onCancel: {
      let sleeper = state.withLock { state in
        guard let sleeper = state.sleepers.removeValue(forKey: id) else {
          state.cancelledEarly.insert(id)
          return Sleeper?.none
        }
        return sleeper
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }
}
