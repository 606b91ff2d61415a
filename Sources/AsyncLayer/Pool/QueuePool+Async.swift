extension QueuePool {
  /// Runs `work` on the least-pending queue, off the cooperative pool, and returns what it returns.
  ///
  /// Task cancellation takes a queued item off its queue at once (``pendingCount`` drops, the work
  /// never runs) and makes `isCancelled()` true for a running one, which should poll it between
  /// steps (a line, a row band, a page); either way the call then throws `CancellationError`, never
  /// a value — even one the work finished after the cancel. A task cancelled before the call throws
  /// at once.
  ///
  /// Throws ``QueuePoolError/overloaded(pendingLimit:)`` when the pool has a ``pendingLimit`` and that
  /// many items are already queued or running, ``QueuePoolError/shutDown`` when the pool was shut
  /// down, and whatever `work` throws. The pool's `onRunEnded` observer hears of every admitted run.
  ///
  /// ```swift
  /// let image = try await QueuePool.shared.run { isCancelled in
  ///   try ImageRenderer(size: Size(width: 300, height: 200)).render(isCancelled: isCancelled) { context in
  ///     for row in rows {
  ///       try context.checkCancellation()
  ///       draw(row, in: context)
  ///     }
  ///   }
  /// }
  /// ```
  public func run<T: Sendable>(
    _ work: @escaping @Sendable (_ isCancelled: @escaping @Sendable () -> Bool) throws -> T
  ) async throws -> T {
    try await runOnQueue(work, cancellation: nil)
  }

  /// ``run(_:)`` that `cancellation` stops too, as cancelling the calling task would: for code
  /// that must cancel a draw from outside the task that awaits it (a deadline timer, a connection's
  /// hang-up) without a task of its own per draw.
  ///
  /// A `cancellation` flipped before the call makes it throw `CancellationError` at once.
  ///
  /// ```swift
  /// let tile = TextTile(.plain("Hello"), width: 200)
  /// let cancellation = PoolCancellation()
  /// // Handed to whatever may end the request: a connection's hang-up handler, a deadline timer.
  /// hangUpHandlers.append { cancellation.cancel() }
  /// let image = try await QueuePool.shared.run(cancellation: cancellation) { isCancelled in
  ///   try tile.render(isCancelled: isCancelled).image
  /// }
  /// ```
  public func run<T: Sendable>(
    cancellation: PoolCancellation,
    _ work: @escaping @Sendable (_ isCancelled: @escaping @Sendable () -> Bool) throws -> T
  ) async throws -> T {
    try await runOnQueue(work, cancellation: cancellation)
  }

  private func runOnQueue<T: Sendable>(
    _ work: @escaping @Sendable (_ isCancelled: @escaping @Sendable () -> Bool) throws -> T,
    cancellation: PoolCancellation?
  ) async throws -> T {
    try Task.checkCancellation()
    if let cancellation, cancellation.isCancelled { throw CancellationError() }
    try reservePlace()
    let run = PoolRun<T>(onEnded: onRunEnded)
    // `PoolRun.cancel` is safe in any order with the steps below (it is the task's cancellation
    // handler, which may run before the body), so the switch may fire at any point from here on.
    if let cancellation, !cancellation.attach({ run.cancel() }) { run.cancel() }
    defer { cancellation?.detach() }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        guard run.begin(continuation) else {
          releasePlace()
          return
        }
        let ticket = enqueueReserved({ item in run.execute(work, item: item) }, refused: { run.refuse() })
        run.setTicket(ticket)
      }
    } onCancel: {
      run.cancel()
    }
  }
}
