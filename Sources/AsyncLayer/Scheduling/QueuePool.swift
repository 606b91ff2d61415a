import Foundation
import Synchronization

/// A fixed set of serial draw queues, each a worker thread with an atomic count of pending work.
///
/// ``enqueue(_:)`` puts work on the queue with the fewest pending items (ties go to the lowest
/// index). Cancelling a queued item through its ``PoolTicket`` is O(1) and takes it out of its
/// queue's count at once — not when the worker reaches it — so the least-pending choice sees the
/// real load. The worker skips cancelled items.
///
/// A pool lives as long as someone holds it: layers hold theirs, and when the last reference goes
/// its workers finish what they have queued and end their threads. ``shared``, the default of every
/// layer, lives for the whole process and cannot be shut down.
///
/// ```swift
/// let pool = QueuePool(queueCount: 2)
/// let ticket = pool.enqueue { drawSomething() }
/// ticket.cancel()   // true while it had not started
/// pool.statistics   // per queue: enqueued, executed, cancelled, pending
/// ```
public final class QueuePool: Sendable {
  /// `min(active processor count, 6)`: more queues than cores only adds contention.
  public static var defaultQueueCount: Int { max(1, min(ProcessInfo.processInfo.activeProcessorCount, 6)) }

  /// The pool layers use unless given another: ``defaultQueueCount`` queues for the whole process.
  public static let shared = QueuePool()

  let queues: [DrawQueue]

  /// The nice value of the pool's threads by default: below the loop, as iOS runs its draw
  /// queues at a lower QoS than the main thread, so that busy draw threads do not delay frames.
  public static let defaultNiceness: Int32 = 5

  /// The most queues a pool starts: each is a thread, and more threads than cores only add
  /// contention (a count of 100 000 would exhaust the process's threads).
  public static let maximumQueueCount = 64

  /// A pool of `queueCount` serial queues (clamped to 1…``maximumQueueCount``) whose worker threads
  /// run at `niceness` (0: the creating thread's priority; higher is lower priority).
  public init(
    queueCount: Int = QueuePool.defaultQueueCount, name: String = "asynclayer.draw",
    niceness: Int32 = QueuePool.defaultNiceness
  ) {
    queues = (0..<min(max(1, queueCount), Self.maximumQueueCount)).map {
      DrawQueue(index: $0, name: "\(name).\($0)", niceness: niceness)
    }
  }

  /// The number of serial queues.
  public var queueCount: Int { queues.count }

  /// Enqueues `work` on the least-pending queue.
  ///
  /// The choice reads the counts without a lock, so two threads enqueueing at the same instant may
  /// pick the same queue; the counts themselves are always exact.
  @discardableResult
  public func enqueue(_ work: @escaping @Sendable () -> Void) -> PoolTicket {
    enqueue(work, refused: nil, on: leastPendingQueue)
  }

  /// Enqueues `work` on the queue at `index` (0..<``queueCount``), bypassing the choice (a
  /// benchmark's fixed placement).
  @discardableResult
  package func enqueue(onQueue index: Int, _ work: @escaping @Sendable () -> Void) -> PoolTicket {
    enqueue(work, refused: nil, on: queues[min(max(0, index), queues.count - 1)])
  }

  /// Enqueues `work` on the least-pending queue; `refused` runs instead of it, once, when the pool
  /// was shut down (a layer's draw must end even then).
  @discardableResult
  func enqueue(_ work: @escaping @Sendable () -> Void, refused: (@Sendable () -> Void)?) -> PoolTicket {
    enqueue(work, refused: refused, on: leastPendingQueue)
  }

  private var leastPendingQueue: DrawQueue {
    var best = queues[0]
    var bestPending = best.pending.load(ordering: .relaxed)
    for queue in queues.dropFirst() where bestPending > 0 {
      let pending = queue.pending.load(ordering: .relaxed)
      if pending < bestPending {
        best = queue
        bestPending = pending
      }
    }
    return best
  }

  private func enqueue(
    _ work: @escaping @Sendable () -> Void, refused: (@Sendable () -> Void)?, on queue: DrawQueue
  ) -> PoolTicket {
    let item = PoolWorkItem(work: work, refused: refused, queue: queue)
    queue.submit(item)
    return PoolTicket(item: item)
  }

  /// Lets each worker finish what it has queued and then end its thread; work enqueued afterwards
  /// is refused. Runs when the last reference goes; tests call it to check what follows.
  func shutdown() {
    for queue in queues { queue.shutdown() }
  }

  deinit {
    shutdown()
  }
}

/// Why a pool refused work.
public enum QueuePoolError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The pool was shut down before the work was enqueued.
  case shutDown

  /// A sentence a person understands.
  public var description: String {
    switch self {
    case .shutDown: "the draw queue pool was shut down before this draw was queued"
    }
  }
}

/// A handle on one enqueued item.
public struct PoolTicket: Sendable {
  /// Where an item stands.
  public enum Status: UInt8, Sendable, Hashable {
    /// Waiting on its queue.
    case queued
    /// Being run by the queue's worker.
    case running
    /// Run to the end.
    case finished
    /// Cancelled before it started; it will never run.
    case cancelled
  }

  let item: PoolWorkItem

  /// The queue the item went to.
  public var queueIndex: Int { item.queue.index }

  /// The item's current status.
  public var status: Status { Status(rawValue: item.state.load(ordering: .acquiring))! }

  /// Cancels the item if it has not started: O(1), and its queue's pending count drops now.
  /// - Returns: true when this call cancelled it; false when it was running, done or cancelled.
  @discardableResult
  public func cancel() -> Bool { item.cancel() }
}

/// One unit of work and its state: queued → running → finished, or queued → cancelled.
final class PoolWorkItem: Sendable {
  let state = Atomic<UInt8>(PoolTicket.Status.queued.rawValue)
  let work: @Sendable () -> Void
  /// Runs instead of `work` when the queue refuses the item (shut down).
  let refused: (@Sendable () -> Void)?
  let queue: DrawQueue

  init(work: @escaping @Sendable () -> Void, refused: (@Sendable () -> Void)?, queue: DrawQueue) {
    self.work = work
    self.refused = refused
    self.queue = queue
  }

  func cancel() -> Bool {
    let (exchanged, _) = state.compareExchange(
      expected: PoolTicket.Status.queued.rawValue, desired: PoolTicket.Status.cancelled.rawValue,
      ordering: .acquiringAndReleasing)
    if exchanged { queue.didCancel() }
    return exchanged
  }

  /// Claims the item for the worker; false when it was cancelled.
  func start() -> Bool {
    state.compareExchange(
      expected: PoolTicket.Status.queued.rawValue, desired: PoolTicket.Status.running.rawValue,
      ordering: .acquiringAndReleasing
    ).exchanged
  }

  func finish() { state.store(PoolTicket.Status.finished.rawValue, ordering: .releasing) }
}
