import Dispatch
import Foundation
import Synchronization
import Testing

@testable import AsyncLayer

/// `QueuePool.run(cancellation:_:)`: a switch flipped from outside the calling task does what
/// cancelling the task does. Queues are held with gates, as in ``QueuePoolAsyncTests``.
@Suite struct PoolCancellationTests {
  @Test("a switch flipped while the run is queued takes it off its queue at once; the call throws")
  func queuedRunCancelledBySwitch() async throws {
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let records = QueuePoolAsyncTests.Records()
      let pool = QueuePool(queueCount: 1, name: "test.switch-queued", onRunEnded: records.add)
      defer { pool.shutdown() }
      let release = await QueuePoolAsyncTests.hold(pool)
      let ran = Atomic<Bool>(false)
      let cancellation = PoolCancellation()
      let task = Task(executorPreference: QueuePoolAsyncTests.executor) {
        try await pool.run(cancellation: cancellation) { _ in ran.store(true, ordering: .relaxed) }
      }
      #expect(await QueuePoolAsyncTests.until { pool.pendingCount == 2 })
      cancellation.cancel()
      await #expect(throws: CancellationError.self) { try await task.value }
      // Off the queue while the queue is still held, and the task itself was never cancelled.
      #expect(pool.pendingCount == 1)
      #expect(!task.isCancelled)
      #expect(records.outcomes == [.cancelledWhileQueued])
      release.open()
      #expect(await QueuePoolAsyncTests.until { pool.pendingCount == 0 })
      let didRun = ran.load(ordering: .relaxed)
      #expect(!didRun)
    }
  }

  @Test("a switch flipped while the run runs shows in isCancelled; the call throws, not the value")
  func runningRunCancelledBySwitch() async throws {
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let records = QueuePoolAsyncTests.Records()
      let pool = QueuePool(queueCount: 1, name: "test.switch-running", onRunEnded: records.add)
      defer { pool.shutdown() }
      let started = Gate()
      let proceed = Gate()
      let sawCancel = Atomic<Bool>(false)
      let cancellation = PoolCancellation()
      let task = Task(executorPreference: QueuePoolAsyncTests.executor) {
        try await pool.run(cancellation: cancellation) { isCancelled -> Int in
          started.open()
          proceed.enter()
          sawCancel.store(isCancelled(), ordering: .relaxed)
          return 42
        }
      }
      await started.enterAsync()
      cancellation.cancel()
      proceed.open()
      await #expect(throws: CancellationError.self) { try await task.value }
      let saw = sawCancel.load(ordering: .relaxed)
      #expect(saw)
      #expect(records.outcomes == [.cancelledWhileRunning])
    }
  }

  @Test("a switch flipped before the call makes it throw at once; an unflipped one changes nothing")
  func flippedBeforeTheCallAndNeverFlipped() async throws {
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let pool = QueuePool(queueCount: 1, name: "test.switch-before")
      defer { pool.shutdown() }
      let flipped = PoolCancellation()
      flipped.cancel()
      #expect(flipped.isCancelled)
      await #expect(throws: CancellationError.self) { try await pool.run(cancellation: flipped) { _ in 1 } }
      #expect(pool.statistics[0].enqueued == 0 && pool.pendingCount == 0)
      let untouched = PoolCancellation()
      #expect(try await pool.run(cancellation: untouched) { isCancelled in isCancelled() ? 0 : 7 } == 7)
      // Flipping it after its run ended reaches nothing.
      untouched.cancel()
      #expect(pool.pendingCount == 0)
    }
  }

  @Test("the calling task's cancellation still cancels a run given a switch")
  func taskCancellationStillWorks() async throws {
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let pool = QueuePool(queueCount: 1, name: "test.switch-task")
      defer { pool.shutdown() }
      let release = await QueuePoolAsyncTests.hold(pool)
      let cancellation = PoolCancellation()
      let task = Task(executorPreference: QueuePoolAsyncTests.executor) {
        try await pool.run(cancellation: cancellation) { _ in 1 }
      }
      #expect(await QueuePoolAsyncTests.until { pool.pendingCount == 2 })
      task.cancel()
      await #expect(throws: CancellationError.self) { try await task.value }
      #expect(pool.pendingCount == 1)
      #expect(!cancellation.isCancelled)
      release.open()
    }
  }
}
