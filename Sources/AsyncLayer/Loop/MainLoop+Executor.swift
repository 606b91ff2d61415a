// The loop as a Swift concurrency executor: an actor whose `unownedExecutor` is the loop runs its
// methods on the loop's thread, where it may use layers, and the compiler checks the isolation.
//
// A single global actor cannot stand for every loop (each test owns one), so layers themselves
// check the thread at run time instead, as `NIOLoopBound` does.
extension MainLoop: SerialExecutor {
  /// Runs the job in the loop's next turn.
  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    perform { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
  }

  /// Stops the program when the current code does not run on the loop's thread.
  public func checkIsolated() {
    preconditionInLoop()
  }
}
