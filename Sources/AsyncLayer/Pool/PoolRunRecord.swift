/// How one ``QueuePool/run(_:)`` ended, as the pool's `onRunEnded` observer is told (once per
/// admitted run; a run refused with ``QueuePoolError/overloaded(pendingLimit:)`` was never admitted).
///
/// ```swift
/// let pool = QueuePool(queueCount: 2) { record in
///   if record.outcome == .cancelledWhileRunning { wasted.add(record.cpuTime) }
/// }
/// ```
public struct PoolRunRecord: Sendable, Hashable {
  /// How a run ended.
  public enum Outcome: Sendable, Hashable {
    /// The work returned and its value went to the caller.
    case completed
    /// Cancelled before a worker started it: it left its queue (or never entered one) and never ran.
    case cancelledWhileQueued
    /// Cancelled while it ran: the caller got `CancellationError`, whatever the work returned.
    case cancelledWhileRunning
    /// The work threw (an error other than a cancellation), or the pool refused it (shut down).
    case failed
  }

  /// How the run ended.
  public var outcome: Outcome
  /// The thread CPU time the work used; zero when it never started.
  public var cpuTime: Duration

  /// A record of a run that ended with `outcome` after `cpuTime` of thread CPU time.
  ///
  /// ```swift
  /// PoolRunRecord(outcome: .completed, cpuTime: .milliseconds(3))
  /// ```
  public init(outcome: Outcome, cpuTime: Duration) {
    self.outcome = outcome
    self.cpuTime = cpuTime
  }
}
