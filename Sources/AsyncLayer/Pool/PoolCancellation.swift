import Synchronization

/// A cancel switch for ``QueuePool/run(cancellation:_:)`` that code outside the calling task can
/// flip — a deadline timer, a connection's hang-up handler — with the effect of cancelling the
/// calling task: a queued draw leaves its queue at once (``QueuePool/pendingCount`` drops), a
/// running one sees `isCancelled()` at its next check, and the call throws `CancellationError`.
///
/// Why not cancel a task instead: a server's handler task often serves a whole keep-alive
/// connection, so cancelling it for one request's deadline would drop the connection; and a child
/// task per request only to have something to cancel costs a task, a hop and a wake-up per request.
///
/// One switch serves one run. Once flipped it stays flipped: a run given a flipped switch throws
/// `CancellationError` without queuing anything.
///
/// ```swift
/// let cancellation = PoolCancellation()
/// let deadline = Task {
///   try await Task.sleep(for: .seconds(2))
///   cancellation.cancel()
/// }
/// defer { deadline.cancel() }
/// let image = try await QueuePool.shared.run(cancellation: cancellation) { isCancelled in
///   try TextTile(.plain("Hello"), width: 200).render(isCancelled: isCancelled).image
/// }
/// ```
public final class PoolCancellation: Sendable {
  private struct State {
    var isCancelled = false
    /// What cancelling does to the run in flight (its `PoolRun.cancel`).
    var action: (@Sendable () -> Void)?
  }

  private let state = Mutex(State())

  /// A switch not flipped yet.
  public init() {}

  /// True once ``cancel()`` was called.
  public var isCancelled: Bool { state.withLock { $0.isCancelled } }

  /// Cancels the run this switch was given to, now or as soon as it starts; later calls do nothing.
  /// Safe from any thread, at any time (before, during or after the run).
  public func cancel() {
    let action = state.withLock { state -> (@Sendable () -> Void)? in
      guard !state.isCancelled else { return nil }
      state.isCancelled = true
      defer { state.action = nil }
      return state.action
    }
    action?()
  }

  /// Keeps `action` for ``cancel()``; false (nothing kept) when the switch is flipped already.
  func attach(_ action: @escaping @Sendable () -> Void) -> Bool {
    state.withLock { state in
      guard !state.isCancelled else { return false }
      state.action = action
      return true
    }
  }

  /// Lets go of the run's action once the run ended (it holds the run).
  func detach() {
    state.withLock { $0.action = nil }
  }
}
