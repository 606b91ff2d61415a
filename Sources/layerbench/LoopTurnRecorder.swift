import AsyncLayer

/// Measures how long each loop turn keeps the loop busy (from waking to about to sleep).
final class LoopTurnRecorder: Sendable {
  private struct State {
    var turnStart: ContinuousClock.Instant?
    var longest: Duration = .zero
    var turns: [Duration] = []
  }
  private let state = ThreadSanitizedMutex(State())

  func attach(to loop: MainLoop) {
    loop.addObserver(.afterWaiting, order: Int.min) { [self] _ in
      state.withLock { $0.turnStart = .now }
    }
    loop.addObserver(.beforeWaiting, order: Int.max) { [self] _ in
      let end = ContinuousClock.now
      state.withLock {
        guard let start = $0.turnStart else { return }
        $0.longest = max($0.longest, end - start)
        $0.turns.append(end - start)
        $0.turnStart = nil
      }
    }
  }

  func reset() { state.withLock { $0 = State() } }
  var longestTurn: Duration { state.withLock { $0.longest } }
  var turnDurations: [Duration] { state.withLock { $0.turns } }
}
