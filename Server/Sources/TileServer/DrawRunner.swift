public import AsyncLayer
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The request's deadline passed before its draw finished.
struct DeadlineExceeded: Error {}

/// Runs a request's drawing on the server's ``QueuePool`` under the request's deadline.
///
/// With cancellation (the default) the work is a child of the request's task: the deadline, or a
/// client hang-up that cancels the handler, cancels it — a queued draw leaves its queue at once, a
/// running one stops at its next check, and the call throws. Without (`--no-cancel`) the work runs in
/// an unstructured `Task` whose value is awaited, as a handler that knows nothing of cancellation
/// would: nothing reaches it, and a result that comes after the deadline is thrown away.
public struct DrawRunner: Sendable {
  /// The pool every draw runs on.
  public let pool: QueuePool
  let metrics: ServerMetrics
  let cancellation: Bool

  /// Runs `work` on the pool, its CPU time counted as undelivered unless it returns in time; the
  /// deadline or `hangUp` (the client's connection closing) cancels it.
  ///
  /// With cancellation, the pool's observer counts what a run cancelled while running, or failed,
  /// cost (``ServerMetrics/record(_:)``, from the pool's own CPU reading): no second reading here,
  /// where each costs a system call (`CLOCK_THREAD_CPUTIME_ID` has no vDSO path) on every draw.
  func draw<T: Sendable>(
    deadline: Duration, hangUp: ConnectionHangUp? = nil,
    _ work: @escaping @Sendable (_ isCancelled: @escaping @Sendable () -> Bool) throws -> T
  ) async throws -> T {
    if cancellation { return try await cancellableRun(deadline: deadline, hangUp: hangUp, work) }
    // Without cancellation nothing stops the work, and a result past the deadline is thrown away:
    // its CPU, which the pool counts as completed, is measured here.
    let cpu = Atomic<Int64>(0)
    let pool = pool
    do {
      return try await within(deadline) {
        try await pool.run { _ in
          let start = Self.threadCPUNanoseconds()
          defer { cpu.add(Self.threadCPUNanoseconds() - start, ordering: .relaxed) }
          return try work({ false })
        }
      }
    } catch let error as DeadlineExceeded {
      metrics.recordUndelivered(cpuSeconds: Double(cpu.load(ordering: .relaxed)) / 1e9)
      throw error
    }
  }

  /// `work` on the pool with one ``PoolCancellation`` that the deadline (``DeadlineTimer``), the
  /// client's hang-up and the task's own cancellation all flip: no task besides the request's, no
  /// timer of its own. Throws ``DeadlineExceeded`` when the deadline cancelled it.
  private func cancellableRun<T: Sendable>(
    deadline: Duration, hangUp: ConnectionHangUp?,
    _ work: @escaping @Sendable (_ isCancelled: @escaping @Sendable () -> Bool) throws -> T
  ) async throws -> T {
    let cancellation = PoolCancellation()
    let expired = Atomic<Bool>(false)
    let timer = DeadlineTimer.shared
    let timerID = timer.add(ContinuousClock.now + deadline) {
      expired.store(true, ordering: .releasing)
      cancellation.cancel()
    }
    let watchID = hangUp?.watch(cancellation)
    defer {
      timer.remove(timerID)
      if let hangUp, let watchID { hangUp.stopWatching(watchID) }
    }
    do {
      return try await pool.run(cancellation: cancellation, work)
    } catch is CancellationError where expired.load(ordering: .acquiring) {
      throw DeadlineExceeded()
    }
  }

  /// `operation` under `deadline`: throws ``DeadlineExceeded`` when it passes (cancelling the
  /// operation, or, without cancellation, once the operation is done). With cancellation, a fired
  /// `hangUp` cancels the operation too and the call throws `CancellationError` (a 499).
  func within<T: Sendable>(
    _ deadline: Duration, hangUp: ConnectionHangUp? = nil, _ operation: @escaping @Sendable () async throws -> T
  ) async throws -> T {
    if !cancellation {
      let start = ContinuousClock.now
      // Unstructured: neither the deadline nor the request's cancellation reaches the work.
      let value = try await Task { try await operation() }.value
      if ContinuousClock.now - start > deadline { throw DeadlineExceeded() }
      return value
    }
    return try await withThrowingTaskGroup(of: T.self) { group in
      group.addTask { try await operation() }
      group.addTask {
        try await Task.sleep(for: deadline)
        throw DeadlineExceeded()
      }
      if let hangUp {
        group.addTask {
          // Returns on the hang-up, or when the group is cancelled because the operation ended.
          await hangUp.wait()
          throw CancellationError()
        }
      }
      defer { group.cancelAll() }
      guard let value = try await group.next() else { throw CancellationError() }
      return value
    }
  }

  static func threadCPUNanoseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
  }
}
