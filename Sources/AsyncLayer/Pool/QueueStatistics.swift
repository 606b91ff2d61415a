/// Counters of one queue of a ``QueuePool``.
public struct QueueStatistics: Sendable, Hashable {
  /// The queue's position in the pool.
  public var index: Int
  /// Items ever submitted to the queue.
  public var enqueued: Int
  /// Items the worker ran, its own and those it took from other queues.
  public var executed: Int
  /// Items the worker took from another queue's backlog when its own was empty (in `executed`
  /// here, in `enqueued` there).
  public var stolen: Int
  /// Items cancelled before they started.
  public var cancelled: Int
  /// Items queued or running now.
  public var pending: Int
}
