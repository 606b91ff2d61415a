/// What happened to display requests: per layer (``AsyncLayer/statistics``) and for every layer
/// of a loop (``MainLoop/layerStatistics``).
///
/// Every display that starts ends in exactly one outcome: cancelled before it started, cancelled
/// mid-draw, discarded at the commit (finished, but stale), committed, or failed. CPU times are
/// the drawing threads' own CPU time (`CLOCK_THREAD_CPUTIME_ID`) spent in draws of each outcome,
/// so `cpuTimeCancelledMidDraw + cpuTimeDiscarded` is the work wasted on stale content. A draw
/// cancelled before it started cost no drawing time, so that outcome has no CPU figure.
///
/// ```swift
/// let stats = layer.statistics
/// print(stats.requested, stats.coalesced, stats.committed, stats.cpuTimeCommitted)
/// ```
public struct DisplayStatistics: Sendable, Hashable {
  /// `setNeedsDisplay()` calls.
  public var requested = 0
  /// Requests absorbed by one already pending in the same turn.
  public var coalesced = 0
  /// Displays started (`display()` runs, asynchronous or not).
  public var displays = 0
  /// Draws cancelled before their work began (taken off the queue, or stale when it started).
  public var cancelledBeforeStart = 0
  /// Draws that noticed the cancellation part-way and stopped.
  public var cancelledMidDraw = 0
  /// Draws that finished but whose generation was stale when they reached the loop.
  public var discardedAtCommit = 0
  /// Draws whose result became the layer's contents (including empty contents for a zero size).
  public var committed = 0
  /// Draws that threw an error other than cancellation.
  public var failed = 0
  /// CPU time of draws cancelled mid-draw.
  public var cpuTimeCancelledMidDraw = Duration.zero
  /// CPU time of draws discarded at the commit.
  public var cpuTimeDiscarded = Duration.zero
  /// CPU time of committed draws.
  public var cpuTimeCommitted = Duration.zero
  /// CPU time of failed draws.
  public var cpuTimeFailed = Duration.zero

  /// All zero.
  public init() {}

  /// Displays that have ended in one of the outcomes.
  public var finished: Int { cancelledBeforeStart + cancelledMidDraw + discardedAtCommit + committed + failed }
}
