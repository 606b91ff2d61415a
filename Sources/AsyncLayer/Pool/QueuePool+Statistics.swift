import Synchronization

extension QueuePool {
  /// A snapshot of every queue's counters.
  public var statistics: [QueueStatistics] {
    queues.map { queue in
      QueueStatistics(
        index: queue.index, enqueued: queue.enqueued.load(ordering: .relaxed),
        executed: queue.executed.load(ordering: .relaxed), stolen: queue.stolen.load(ordering: .relaxed),
        cancelled: queue.cancelled.load(ordering: .relaxed),
        pending: queue.pending.load(ordering: .relaxed))
    }
  }
}
