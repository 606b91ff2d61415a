import Dispatch

/// A pool is a `TaskExecutor`: with `withTaskExecutorPreference(pool) { … }` a task's code (and its
/// child tasks') runs on the pool's queues instead of the cooperative pool, so a caller's own
/// blocking work — a synchronous render, a file write — does not hold a cooperative thread.
///
/// Jobs go on the least-pending queue, count in ``QueuePool/pendingCount`` and cannot be
/// cancelled (a job must run to let its task go on); ``QueuePool/pendingLimit`` does not refuse them.
///
/// ```swift
/// let pool = QueuePool(queueCount: 2)
/// let data = try await withTaskExecutorPreference(pool) {
///   try ReportLayout(report).pdfData()   // blocks a pool thread, not a cooperative one
/// }
/// ```
extension QueuePool: TaskExecutor {
  /// Runs `job` on the least-pending queue.
  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    // A shut-down pool (only after its last reference went) still runs the job, elsewhere: a job
    // that never runs would leave its task suspended forever.
    enqueue(
      { job.runSynchronously(on: self.asUnownedTaskExecutor()) },
      refused: { DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) } })
  }
}
