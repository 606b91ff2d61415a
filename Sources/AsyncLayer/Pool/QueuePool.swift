import Foundation
import Synchronization

/// A fixed set of serial draw queues, each a worker thread with an atomic count of pending work.
///
/// ``enqueue(_:)->_`` puts work on the queue with the fewest pending items (ties go to the lowest
/// index). Cancelling a queued item through its ``PoolTicket`` is O(1) and takes it out of its
/// queue's count at once — not when the worker reaches it — so the least-pending choice sees the
/// real load. The worker skips cancelled items. A worker whose queue is empty takes the oldest
/// waiting item of the busiest other queue (work placed with ``enqueue(_:)->_`` only), so one long
/// draw never holds the items queued behind it while another queue is idle.
///
/// A pool lives as long as someone holds it: layers hold theirs, and when the last reference goes
/// its workers finish what they have queued and end their threads. ``shared``, the default of every
/// layer, lives for the whole process and cannot be shut down.
///
/// ```swift
/// let pool = QueuePool(queueCount: 2)
/// let ticket = pool.enqueue { drawSomething() }
/// ticket.cancel()   // true while it had not started
/// pool.statistics   // per queue: enqueued, executed, stolen, cancelled, pending
/// ```
public final class QueuePool: Sendable {
  /// `min(active processor count, 6)`: more queues than cores only adds contention.
  public static var defaultQueueCount: Int { max(1, min(ProcessInfo.processInfo.activeProcessorCount, 6)) }

  /// The pool layers use unless given another: ``defaultQueueCount`` queues for the whole process.
  public static let shared = QueuePool()

  let queues: [DrawQueue]
  private let group = DrawQueueGroup()

  /// The nice value of the pool's threads by default: 0, the priority of the thread that made the
  /// pool. Draws are what the user waits to see, so they compete as equals with the process's other
  /// work (iOS runs them at a user-initiated QoS, above utility work). Measured in `layerbench
  /// scroll` beside two busy threads, nice 5 doubled the stale frames (2.3% against 1.1%, medians of
  /// 5) and the wasted CPU; idle, nice 0 dropped no frame in the scroll and storm benchmarks.
  public static let defaultNiceness: Int32 = 0

  /// The most queues a pool starts: each is a thread, and more threads than cores only add
  /// contention (a count of 100 000 would exhaust the process's threads).
  public static let maximumQueueCount = 64

  /// A pool of `queueCount` serial queues (clamped to 1…``maximumQueueCount``) whose worker threads
  /// run at `niceness` (0: the creating thread's priority; higher is lower priority).
  ///
  /// `pendingLimit` bounds admission through ``run(_:)``: with that many items queued or running
  /// (``pendingCount``, every kind of item), a further run throws ``QueuePoolError/overloaded(pendingLimit:)``
  /// instead of queueing. nil admits without bound; a limit below 1 counts as 1. `onRunEnded` is
  /// told, once, how every admitted run ended (see ``PoolRunRecord``), on the thread that ended it.
  ///
  /// ```swift
  /// let pool = QueuePool(queueCount: 2, pendingLimit: 64) { record in
  ///   metrics.record(record.outcome, cpu: record.cpuTime)
  /// }
  /// ```
  public init(
    queueCount: Int = QueuePool.defaultQueueCount, name: String = "asynclayer.draw",
    niceness: Int32 = QueuePool.defaultNiceness, pendingLimit: Int? = nil,
    onRunEnded: (@Sendable (PoolRunRecord) -> Void)? = nil
  ) {
    self.pendingLimit = pendingLimit.map { max(1, $0) }
    self.onRunEnded = onRunEnded
    let group = group
    queues = (0..<min(max(1, queueCount), Self.maximumQueueCount)).map {
      DrawQueue(index: $0, name: "\(name).\($0)", niceness: niceness, group: group)
    }
    group.set(queues)
  }

  /// The most items queued or running that ``run(_:)`` admits, or nil for no bound.
  ///
  /// ```swift
  /// QueuePool(queueCount: 2, pendingLimit: 64).pendingLimit  // 64
  /// ```
  public let pendingLimit: Int?
  /// Told how each admitted ``run(_:)`` ended.
  let onRunEnded: (@Sendable (PoolRunRecord) -> Void)?

  /// Items queued or running on all queues now: runs, enqueued work and executor jobs alike (a
  /// queue-depth gauge).
  ///
  /// ```swift
  /// gauge.record(pool.pendingCount)
  /// ```
  public var pendingCount: Int { group.pendingTotal.load(ordering: .relaxed) }

  /// Reserves a place for one item under ``pendingLimit``: counted in ``pendingCount`` from now on,
  /// so two callers racing for the last place never both get it.
  func reservePlace() throws(QueuePoolError) {
    guard let pendingLimit else {
      group.pendingTotal.add(1, ordering: .relaxed)
      return
    }
    var current = group.pendingTotal.load(ordering: .relaxed)
    while true {
      guard current < pendingLimit else { throw .overloaded(pendingLimit: pendingLimit) }
      let (exchanged, original) = group.pendingTotal.compareExchange(
        expected: current, desired: current + 1, ordering: .relaxed)
      if exchanged { return }
      current = original
    }
  }

  /// Gives back a place ``reservePlace()`` took for an item that was never queued.
  func releasePlace() { group.pendingTotal.subtract(1, ordering: .relaxed) }

  /// The number of serial queues.
  public var queueCount: Int { queues.count }

  /// Enqueues `work` on the least-pending queue.
  ///
  /// The choice reads the counts without a lock, so two threads enqueueing at the same instant may
  /// pick the same queue; the counts themselves are always exact.
  @discardableResult
  public func enqueue(_ work: @escaping @Sendable () -> Void) -> PoolTicket {
    enqueue(work, refused: nil, on: leastPendingQueue, stealable: true)
  }

  /// Enqueues `work` on the queue at `index` (0..<``queueCount``), bypassing the choice (a
  /// benchmark's fixed placement): it runs there, in order, and no other queue takes it.
  @discardableResult
  package func enqueue(onQueue index: Int, _ work: @escaping @Sendable () -> Void) -> PoolTicket {
    enqueue(work, refused: nil, on: queues[min(max(0, index), queues.count - 1)], stealable: false)
  }

  /// Enqueues `work` on the least-pending queue; `refused` runs instead of it, once, when the pool
  /// was shut down (a layer's draw must end even then).
  @discardableResult
  func enqueue(_ work: @escaping @Sendable () -> Void, refused: (@Sendable () -> Void)?) -> PoolTicket {
    enqueue(work, refused: refused, on: leastPendingQueue, stealable: true)
  }

  /// Enqueues an item whose place ``reservePlace()`` already counted.
  /// `work` is handed its own item, to ``PoolWorkItem/settle()`` before it resumes a waiting caller.
  func enqueueReserved(
    _ work: @escaping @Sendable (PoolWorkItem) -> Void, refused: @escaping @Sendable () -> Void
  ) -> PoolTicket {
    enqueue(work, refused: refused, on: leastPendingQueue, stealable: true, counted: true)
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
    _ work: @escaping @Sendable () -> Void, refused: (@Sendable () -> Void)?, on queue: DrawQueue,
    stealable: Bool
  ) -> PoolTicket {
    enqueue({ _ in work() }, refused: refused, on: queue, stealable: stealable, counted: false)
  }

  private func enqueue(
    _ work: @escaping @Sendable (PoolWorkItem) -> Void, refused: (@Sendable () -> Void)?, on queue: DrawQueue,
    stealable: Bool, counted: Bool
  ) -> PoolTicket {
    let item = PoolWorkItem(work: work, refused: refused, queue: queue, isStealable: stealable)
    queue.submit(item, counted: counted)
    return PoolTicket(item: item)
  }

  /// Lets each worker finish what it has queued and then end its thread; work enqueued afterwards
  /// is refused. Runs when the last reference goes; tests call it to check what follows.
  func shutdown() {
    for queue in queues { queue.shutdown() }
    group.clear()
  }

  deinit {
    shutdown()
  }
}

/// Why a pool refused work.
public enum QueuePoolError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The pool was shut down before the work was enqueued.
  case shutDown
  /// The pool already had `pendingLimit` items queued or running (``QueuePool/pendingLimit``): try
  /// again later (a server answers 503), or give the pool a higher limit.
  case overloaded(pendingLimit: Int)

  /// A sentence a person understands.
  public var description: String {
    switch self {
    case .shutDown: "the draw queue pool was shut down before this draw was queued"
    case .overloaded(let limit):
      "the draw queue pool is full: \(limit) draws are already queued or running (its pendingLimit); try again later"
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

  /// The queue the item went to (another queue's worker may run it, when that one is idle first).
  public var queueIndex: Int { item.queue.index }

  /// The item's current status.
  public var status: Status { item.status }

  /// Cancels the item if it has not started: O(1), and its queue's pending count drops now.
  /// - Returns: true when this call cancelled it; false when it was running, done or cancelled.
  @discardableResult
  public func cancel() -> Bool { item.cancel() }
}

/// One unit of work and its state: queued → running → finished, or queued → cancelled.
final class PoolWorkItem: Sendable {
  let state = Atomic<UInt8>(PoolTicket.Status.queued.rawValue)
  /// The work, handed its own item (see ``settle()``).
  let work: @Sendable (PoolWorkItem) -> Void
  /// Runs instead of `work` when the queue refuses the item (shut down).
  let refused: (@Sendable () -> Void)?
  /// The queue it was submitted to, which counts it as pending until it starts elsewhere.
  let queue: DrawQueue
  /// Whether an idle queue's worker may run it (false for work placed on a given queue).
  let isStealable: Bool
  /// The queue whose worker runs it, from its start until it settles.
  private let runner = Mutex<DrawQueue?>(nil)

  init(
    work: @escaping @Sendable (PoolWorkItem) -> Void, refused: (@Sendable () -> Void)?, queue: DrawQueue,
    isStealable: Bool
  ) {
    self.work = work
    self.refused = refused
    self.queue = queue
    self.isStealable = isStealable
  }

  var status: PoolTicket.Status { PoolTicket.Status(rawValue: state.load(ordering: .acquiring))! }

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

  /// Notes the queue whose worker is about to run the started item; ``settle()`` counts it there.
  func willRun(on queue: DrawQueue) { runner.withLock { $0 = queue } }

  /// Marks a running item finished and takes it out of the pending counts, once. The work itself
  /// settles before it hands a result to a waiting caller (``QueuePool/run(_:)``), so a caller
  /// that has its result never sees its run still counted in ``QueuePool/pendingCount`` — nor has
  /// its next run refused by a ``QueuePool/pendingLimit`` it no longer occupies. The worker settles
  /// every other item after its work returns.
  func settle() {
    let (finished, _) = state.compareExchange(
      expected: PoolTicket.Status.running.rawValue, desired: PoolTicket.Status.finished.rawValue,
      ordering: .acquiringAndReleasing)
    guard finished, let queue = runner.withLock({ $0.take() }) else { return }
    queue.didRun()
  }
}
