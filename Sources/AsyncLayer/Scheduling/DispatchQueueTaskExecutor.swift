import Dispatch

/// A `TaskExecutor` that runs its tasks' jobs on a dispatch queue instead of the cooperative pool.
///
/// The ``ImageLoader`` runs its transport calls and timeout timers on one, so that loads complete
/// (and time out) even while every cooperative thread is blocked — for example by synchronous code
/// waiting on a run loop for the image — as they did when the loader used only dispatch queues.
final class DispatchQueueTaskExecutor: TaskExecutor {
  private let queue: DispatchQueue

  init(queue: DispatchQueue) {
    self.queue = queue
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
