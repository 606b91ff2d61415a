import Synchronization

/// One ``QueuePool/run(_:)`` in flight: the caller's continuation, the ticket of its queued item,
/// and the cancellation flag the running work polls.
///
/// Exactly one path resumes the continuation, because exactly one of these happens to the item,
/// decided by its ticket's compare-exchange (queued → running or queued → cancelled):
/// - cancelled before it was enqueued: ``begin(_:)`` sees the flag and resumes at once;
/// - cancelled while queued: whoever wins `ticket.cancel()` — the cancellation handler, or
///   ``setTicket(_:)`` when the cancel came between the enqueue and the ticket's arrival — resumes;
/// - started: the worker resumes with the result, or with `CancellationError` when the flag was set
///   by then (never a partial result);
/// - refused (the pool was shut down): the refusal handler resumes with ``QueuePoolError/shutDown``.
/// The continuation is also taken out under the lock, so a second resume is impossible even then.
final class PoolRun<Value: Sendable>: Sendable {
  private struct State {
    var continuation: CheckedContinuation<Value, any Error>?
    var ticket: PoolTicket?
  }

  private let state = Mutex(State())
  private let cancelled = Atomic<Bool>(false)
  private let onEnded: (@Sendable (PoolRunRecord) -> Void)?

  init(onEnded: (@Sendable (PoolRunRecord) -> Void)?) {
    self.onEnded = onEnded
  }

  /// True once the caller's task was cancelled; what the work's `isCancelled` returns.
  var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

  /// Keeps the continuation; false (and resumed with `CancellationError`) when the task was
  /// cancelled already, so the work must not be enqueued.
  func begin(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
    state.withLock { $0.continuation = continuation }
    guard isCancelled else { return true }
    end(.failure(CancellationError()), .cancelledWhileQueued, cpuTime: .zero)
    return false
  }

  /// Keeps the queued item's ticket; a cancel that came before it is carried out here.
  func setTicket(_ ticket: PoolTicket) {
    // A run that already ended keeps no ticket (see `end`): its work item would hold it in memory.
    let running = state.withLock { state in
      guard state.continuation != nil else { return false }
      state.ticket = ticket
      return true
    }
    guard running else { return }
    if isCancelled, ticket.cancel() { end(.failure(CancellationError()), .cancelledWhileQueued, cpuTime: .zero) }
  }

  /// The task's cancellation handler: a queued item leaves its queue now (pending count drops) and
  /// the call throws; a running one sees ``isCancelled`` at its next check.
  func cancel() {
    cancelled.store(true, ordering: .releasing)
    let ticket = state.withLock { $0.ticket }
    if let ticket, ticket.cancel() { end(.failure(CancellationError()), .cancelledWhileQueued, cpuTime: .zero) }
  }

  /// Runs the work on the worker that started `item`, settles the item and resumes the caller.
  func execute(
    _ work: @Sendable (_ isCancelled: @escaping @Sendable () -> Bool) throws -> Value, item: PoolWorkItem
  ) {
    let start = ThreadCPUClock.now()
    let result = Result { try work { [self] in isCancelled } }
    let cpuTime = ThreadCPUClock.now() - start
    if isCancelled {
      end(.failure(CancellationError()), .cancelledWhileRunning, cpuTime: cpuTime, settling: item)
    } else if case .failure = result {
      end(result, .failed, cpuTime: cpuTime, settling: item)
    } else {
      end(result, .completed, cpuTime: cpuTime, settling: item)
    }
  }

  /// The pool refused the item (it was shut down).
  func refuse() { end(.failure(QueuePoolError.shutDown), .failed, cpuTime: .zero) }

  /// Settles the item, tells the observer, then resumes the caller, once: by the time the caller's
  /// `await` returns, the pool no longer counts the run as pending and the observer has seen it.
  private func end(
    _ result: Result<Value, any Error>, _ outcome: PoolRunRecord.Outcome, cpuTime: Duration,
    settling item: PoolWorkItem? = nil
  ) {
    let continuation = state.withLock { state in
      // The ticket's work item holds a closure that holds this run: letting go of the ticket here
      // breaks that cycle, or every run (and the image it captured) would stay in memory.
      defer {
        state.continuation = nil
        state.ticket = nil
      }
      return state.continuation
    }
    guard let continuation else { return }
    item?.settle()
    onEnded?(PoolRunRecord(outcome: outcome, cpuTime: cpuTime))
    continuation.resume(with: result)
  }
}
