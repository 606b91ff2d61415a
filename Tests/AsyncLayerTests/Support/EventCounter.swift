import AsyncLayer

/// Counts named events and lets a test await "`count` of them have happened" without sleeping.
final class EventCounter: Sendable {
  private struct State {
    var counts: [String: Int] = [:]
    var waiters: [(event: String, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
  }

  private let state = Mutex(State())

  func count(_ event: String) -> Int { state.withLock { $0.counts[event] ?? 0 } }

  func record(_ event: String) {
    let ready = state.withLock { state in
      state.counts[event, default: 0] += 1
      let total = state.counts[event]!
      let ready = state.waiters.filter { $0.event == event && $0.count <= total }
      state.waiters.removeAll { $0.event == event && $0.count <= total }
      return ready.map(\.continuation)
    }
    for continuation in ready { continuation.resume() }
  }

  /// Returns once `event` has been recorded `count` times.
  func waitFor(_ event: String, count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = state.withLock { state in
        if state.counts[event, default: 0] >= count { return true }
        state.waiters.append((event, count, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }
}
