import AsyncLayer
import Synchronization

/// One connection's hang-up: fired once when its peer closes its side (or the connection ends), and
/// awaited by the requests of that connection that are drawing.
///
/// A keep-alive connection serves request after request; only a hang-up *while* a request waits on
/// ``wait()`` cancels that request's draw. A hang-up is for good: later waits return at once.
final class ConnectionHangUp: Sendable {
  private struct State {
    var hungUp = false
    var nextID = 0
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var watchers: [Int: PoolCancellation] = [:]
  }

  private let state = Mutex(State())

  /// True once the peer hung up.
  var hasHungUp: Bool { state.withLock { $0.hungUp } }

  /// Marks the hang-up and wakes every waiter (called on the connection's event loop).
  func fire() {
    let (waiters, watchers) = state.withLock { state -> ([CheckedContinuation<Void, Never>], [PoolCancellation]) in
      guard !state.hungUp else { return ([], []) }
      state.hungUp = true
      defer {
        state.waiters.removeAll()
        state.watchers.removeAll()
      }
      return (Array(state.waiters.values), Array(state.watchers.values))
    }
    for waiter in waiters { waiter.resume() }
    for watcher in watchers { watcher.cancel() }
  }

  /// Cancels `cancellation` if the peer hangs up before ``stopWatching(_:)``, at once if it hung up
  /// already. Returns the watch's id. A tile's draw is watched this way: no task waits on the
  /// connection, which ``wait()`` would need.
  func watch(_ cancellation: PoolCancellation) -> Int {
    let (id, hungUp) = state.withLock { state -> (Int, Bool) in
      state.nextID &+= 1
      if !state.hungUp { state.watchers[state.nextID] = cancellation }
      return (state.nextID, state.hungUp)
    }
    if hungUp { cancellation.cancel() }
    return id
  }

  /// The watches in place (tests: a request that ended leaves none).
  var watchCount: Int { state.withLock { $0.watchers.count } }

  /// Ends watch `id` (its request ended).
  func stopWatching(_ id: Int) {
    _ = state.withLock { $0.watchers.removeValue(forKey: id) }
  }

  /// Returns when the peer hangs up, or when the calling task is cancelled (whichever comes first).
  func wait() async {
    let id = state.withLock { state in
      state.nextID &+= 1
      return state.nextID
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        // Under the lock the cancellation handler takes too: a cancel that came before this line
        // is seen by `Task.isCancelled` (set before the handler runs), one after it finds the waiter.
        let resumeNow = state.withLock { state in
          if state.hungUp || Task.isCancelled { return true }
          state.waiters[id] = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
  }
}
