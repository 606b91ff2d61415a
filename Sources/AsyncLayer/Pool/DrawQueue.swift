import DequeModule
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One serial queue: a worker thread draining a deque of items, and taking the oldest stealable
/// item of a busier queue of its pool when its own deque is empty.
///
/// Why steal: the pool places work by pending count at enqueue time, but draws differ in length.
/// A long draw (an image row, a large paragraph) would otherwise hold every item queued behind it
/// while another queue sits idle — under load, the backlog that shows as blank rows.
final class DrawQueue: Sendable {
  private struct State {
    var items = Deque<PoolWorkItem>()
    var isShutDown = false
    /// The worker is (about to be) waiting on `wake`: the next submit or shutdown signals it.
    var isSleeping = false
  }

  private enum Step {
    case run(PoolWorkItem)
    case idle
    case stop
  }

  let index: Int
  /// Queued plus running items; cancelled items leave it when cancelled, stolen items when
  /// another queue's worker starts them.
  let pending = Atomic<Int>(0)
  let enqueued = Atomic<Int>(0)
  let executed = Atomic<Int>(0)
  let cancelled = Atomic<Int>(0)
  /// Items this worker took from other queues (counted in `executed` too).
  let stolen = Atomic<Int>(0)
  private let state = Mutex(State())
  /// The worker's sleep: signalled only when it is sleeping (`State.isSleeping`), so counts
  /// never pile up. A semaphore because `Synchronization` has no condition variable.
  private let wake = DispatchSemaphore(value: 0)
  private let group: DrawQueueGroup

  init(index: Int, name: String, niceness: Int32, group: DrawQueueGroup) {
    self.index = index
    self.group = group
    let thread = Thread { [self] in
      // Named from inside: on Linux a new thread inherits its creator's name (often a cooperative
      // pool thread's), and Foundation's `Thread.name` set before `start()` does not reach the
      // kernel, so `top -H` and /proc/PID/task/*/comm would not show the pool's threads as such.
      Self.nameCurrentThread(name)
      // On Linux `setpriority(PRIO_PROCESS, 0, …)` sets the calling thread's nice value only.
      if niceness != 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
      self.work()
    }
    thread.name = name
    thread.start()
  }

  /// Sets the calling thread's kernel name (its first 15 bytes, the most Linux keeps) through
  /// /proc: Swift's Glibc module does not export `pthread_setname_np` (a GNU extension).
  private static func nameCurrentThread(_ name: String) {
    #if os(Linux)
      let file = open("/proc/thread-self/comm", O_WRONLY)
      guard file >= 0 else { return }
      defer { close(file) }
      let bytes = Array(name.utf8.prefix(15))
      _ = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
    #endif
  }

  /// Queues `item`; a queue that was shut down refuses it (cancelled, and told through its
  /// `refused` handler) instead of holding it forever. `counted`: the pool's total already counts
  /// it (a run admitted under the pool's pending limit reserved its place).
  func submit(_ item: PoolWorkItem, counted: Bool = false) {
    enqueued.add(1, ordering: .relaxed)
    pending.add(1, ordering: .relaxed)
    if !counted { group.pendingTotal.add(1, ordering: .relaxed) }
    let (accepted, wakeWorker) = state.withLock { state -> (Bool, Bool) in
      guard !state.isShutDown else { return (false, false) }
      state.items.append(item)
      defer { state.isSleeping = false }
      return (true, state.isSleeping)
    }
    if wakeWorker { wake.signal() }
    if !accepted, item.cancel() { item.refused?() }
  }

  func didCancel() {
    pending.subtract(1, ordering: .relaxed)
    group.pendingTotal.subtract(1, ordering: .relaxed)
    cancelled.add(1, ordering: .relaxed)
  }

  func shutdown() {
    let wakeWorker = state.withLock { state -> Bool in
      state.isShutDown = true
      defer { state.isSleeping = false }
      return state.isSleeping
    }
    if wakeWorker { wake.signal() }
  }

  /// Removes and returns the oldest queued item another queue may run, if any. Cancelled items
  /// met on the way are dropped (they would be skipped anyway).
  func takeStealable() -> PoolWorkItem? {
    state.withLock { state -> PoolWorkItem? in
      var index = state.items.startIndex
      while index < state.items.endIndex {
        let item = state.items[index]
        if item.status == .cancelled {
          state.items.remove(at: index)
        } else if item.isStealable, item.status == .queued {
          return state.items.remove(at: index)
        } else {
          index += 1
        }
      }
      return nil
    }
  }

  private func work() {
    while true {
      let step = state.withLock { state -> Step in
        if let item = state.items.popFirst() { return .run(item) }
        return state.isShutDown ? .stop : .idle
      }
      switch step {
      case .run(let item):
        if item.start() { run(item) }
      case .stop:
        return
      case .idle:
        if let item = group.steal(for: self) {
          run(item)
          continue
        }
        let sleeps = state.withLock { state -> Bool in
          guard state.items.isEmpty, !state.isShutDown else { return false }
          state.isSleeping = true
          return true
        }
        if sleeps { wake.wait() }
      }
    }
  }

  /// Runs a started item; it is counted here, where it ran, when it settles (the work may settle
  /// it itself, before resuming its caller).
  private func run(_ item: PoolWorkItem) {
    item.willRun(on: self)
    item.work(item)
    item.settle()
  }

  /// Counts an item this queue's worker ran to the end.
  func didRun() {
    executed.add(1, ordering: .relaxed)
    pending.subtract(1, ordering: .relaxed)
    group.pendingTotal.subtract(1, ordering: .relaxed)
  }

  /// Takes over a started item from `victim`: its pending count moves here.
  fileprivate func adopt(_ item: PoolWorkItem, from victim: DrawQueue) {
    victim.pending.subtract(1, ordering: .relaxed)
    pending.add(1, ordering: .relaxed)
    stolen.add(1, ordering: .relaxed)
  }
}

/// The queues of one pool, which an idle worker takes work from.
///
/// It holds its queues strongly (each queue holds the group) until the pool shuts down and
/// clears it, which breaks the cycle.
final class DrawQueueGroup: Sendable {
  private let members = Mutex<[DrawQueue]>([])
  /// Queued plus running items of every queue: the sum of the queues' `pending`, kept in one
  /// atomic so that a pool's pending limit admits exactly (``QueuePool/run(_:)``).
  let pendingTotal = Atomic<Int>(0)

  func set(_ queues: [DrawQueue]) { members.withLock { $0 = queues } }
  func clear() { members.withLock { $0 = [] } }

  /// The oldest stealable item of the busiest other queue, started and adopted by `thief`; nil
  /// when no other queue has one waiting.
  func steal(for thief: DrawQueue) -> PoolWorkItem? {
    let victims = members.withLock { $0 }.filter { $0 !== thief }
      .map { (queue: $0, pending: $0.pending.load(ordering: .relaxed)) }
      .filter { $0.pending > 1 }  // one pending item is the one running there
      .sorted { $0.pending > $1.pending }
    for (victim, _) in victims {
      while let item = victim.takeStealable() {
        // A cancel may win the race between the take and the start: then look again.
        guard item.start() else { continue }
        thief.adopt(item, from: victim)
        return item
      }
    }
    return nil
  }
}
