/// Counters of one queue of a ``QueuePool``.
public struct QueueStatistics: Sendable, Hashable {
  /// The queue's position in the pool.
  public var index: Int
  /// Items ever submitted to the queue.
  public var enqueued: Int
  /// Items the worker ran.
  public var executed: Int
  /// Items cancelled before they started.
  public var cancelled: Int
  /// Items queued or running now.
  public var pending: Int
}
