import DequeModule
import Foundation
import Synchronization

/// One serial queue: a worker thread draining a deque of items.
final class DrawQueue: Sendable {
  private struct State {
    var items = Deque<PoolWorkItem>()
    var isShutDown = false
  }

  let index: Int
  /// Queued plus running items; cancelled items leave it when cancelled.
  let pending = Atomic<Int>(0)
  let enqueued = Atomic<Int>(0)
  let executed = Atomic<Int>(0)
  let cancelled = Atomic<Int>(0)
  private let state = Mutex(State())
  /// Counts the items in the deque (one signal per item, one wait per pop): the worker's sleep.
  /// A semaphore because `Synchronization` has no condition variable.
  private let itemsAvailable = DispatchSemaphore(value: 0)

  init(index: Int, name: String, niceness: Int32) {
    self.index = index
    let thread = Thread { [self] in
      // On Linux `setpriority(PRIO_PROCESS, 0, …)` sets the calling thread's nice value only.
      if niceness != 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
      self.work()
    }
    thread.name = name
    thread.start()
  }

  /// Queues `item`; a queue that was shut down refuses it (cancelled, and told through its
  /// `refused` handler) instead of holding it forever.
  func submit(_ item: PoolWorkItem) {
    enqueued.add(1, ordering: .relaxed)
    pending.add(1, ordering: .relaxed)
    let accepted = state.withLock { state in
      guard !state.isShutDown else { return false }
      state.items.append(item)
      return true
    }
    if accepted {
      itemsAvailable.signal()
    } else if item.cancel() {
      item.refused?()
    }
  }

  func didCancel() {
    pending.subtract(1, ordering: .relaxed)
    cancelled.add(1, ordering: .relaxed)
  }

  func shutdown() {
    state.withLock { $0.isShutDown = true }
    itemsAvailable.signal()
  }

  private func work() {
    while true {
      itemsAvailable.wait()
      let next = state.withLock { state -> (item: PoolWorkItem?, stop: Bool) in
        (state.items.popFirst(), state.items.isEmpty && state.isShutDown)
      }
      if let item = next.item, item.start() {
        item.work()
        item.finish()
        executed.add(1, ordering: .relaxed)
        pending.subtract(1, ordering: .relaxed)
      }
      if next.stop && next.item == nil { return }
    }
  }
}
