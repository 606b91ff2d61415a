import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Fires the deadlines of the requests in flight, all from one thread: a request adds its deadline
/// with what to do then (cancel its draw) and removes it when it ends, before or after.
///
/// Why not a sleeping task per request (a child of a task group racing the draw): that costs a
/// task, a timer and a wake-up on every request, most of which end long before their deadline.
/// Here a request costs a lock and a dictionary insert and removal. The thread sleeps until the
/// earliest deadline in flight; a request ending first leaves it at most one early wake-up.
///
/// The table holds only the requests in flight (bounded by the connections and the pool's
/// pending limit), so a scan of it on each wake-up is short.
final class DeadlineTimer: Sendable {
  /// One timer for the process: deadlines are absolute, so servers can share it.
  static let shared = DeadlineTimer()

  private struct Entry {
    var deadline: ContinuousClock.Instant
    var action: @Sendable () -> Void
  }

  private struct State {
    var entries: [Int: Entry] = [:]
    var nextID = 0
    /// When the thread will wake on its own; nil while it waits for a first entry.
    var wakeAt: ContinuousClock.Instant?
  }

  private let state = Mutex(State())
  /// The thread's sleep, cut short when an entry comes due before `wakeAt`.
  private let wake = DispatchSemaphore(value: 0)

  private init() {
    Thread { [self] in run() }.start()
  }

  /// Calls `action` (on the timer's thread) once `deadline` passes, unless ``remove(_:)`` comes
  /// first. Returns the entry's id.
  func add(_ deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> Int {
    let (id, wakeEarlier) = state.withLock { state -> (Int, Bool) in
      state.nextID &+= 1
      state.entries[state.nextID] = Entry(deadline: deadline, action: action)
      guard state.wakeAt.map({ deadline < $0 }) ?? true else { return (state.nextID, false) }
      // Signal once per earlier deadline: later adds that fall after it need no signal.
      state.wakeAt = deadline
      return (state.nextID, true)
    }
    if wakeEarlier { wake.signal() }
    return id
  }

  /// Forgets entry `id` (its request ended); nothing happens if it fired already.
  func remove(_ id: Int) {
    _ = state.withLock { $0.entries.removeValue(forKey: id) }
  }

  private func run() {
    #if os(Linux)
      // Named from inside (a new thread keeps its creator's name on Linux), through /proc: Swift's
      // Glibc module does not export `pthread_setname_np`.
      let file = open("/proc/thread-self/comm", O_WRONLY)
      if file >= 0 {
        _ = Array("tile-deadlines".utf8).withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        close(file)
      }
    #endif
    while true {
      let now = ContinuousClock.now
      let (due, next) = state.withLock { state -> ([@Sendable () -> Void], ContinuousClock.Instant?) in
        var dueIDs: [Int] = []
        var next: ContinuousClock.Instant?
        for (id, entry) in state.entries {
          if entry.deadline <= now {
            dueIDs.append(id)
          } else if next.map({ entry.deadline < $0 }) ?? true {
            next = entry.deadline
          }
        }
        let due = dueIDs.compactMap { state.entries.removeValue(forKey: $0)?.action }
        state.wakeAt = next
        return (due, next)
      }
      for action in due { action() }
      if let next {
        let nanoseconds = max(0, (next - now).wholeNanoseconds)
        _ = wake.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds)))
      } else {
        wake.wait()
      }
    }
  }
}
