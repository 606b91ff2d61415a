import Dispatch
import Foundation
import Synchronization
import Testing

@testable import AsyncLayer

/// `QueuePool.run`, the pool as a `TaskExecutor`, its pending limit and its run observer. Every
/// test holds a queue busy with a gate, so that what it cancels is exactly where it says.
@Suite struct QueuePoolAsyncTests {
  /// The observer's records, in order.
  final class Records: Sendable {
    let all = Mutex<[PoolRunRecord]>([])
    var outcomes: [PoolRunRecord.Outcome] { all.withLock { $0.map(\.outcome) } }
    func add(_ record: PoolRunRecord) { all.withLock { $0.append(record) } }
  }

  /// Where the tasks under test run: dispatch threads, not the cooperative pool, which the suite's
  /// other tests may hold (a task that cannot start would never reach the queue it is tested on).
  static let executor = DispatchQueueTaskExecutor(
    queue: DispatchQueue(label: "tests.queue-pool-async", attributes: .concurrent))

  /// Occupies the only queue of `pool` with an item held at a gate; returns the gate to release it.
  static func hold(_ pool: QueuePool) async -> Gate {
    let started = Gate()
    let release = Gate()
    pool.enqueue(onQueue: 0) {
      started.open()
      release.enter()
    }
    await started.enterAsync()
    return release
  }

  /// Yields until `condition` holds: for state another thread sets at a known point (an item
  /// queued), never for time. The deadline is only a safety net, as in ``Gate``.
  static func until(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(60)
    while !condition() {
      if ContinuousClock.now > deadline { return false }
      await Task.yield()
    }
    return true
  }

  @Test("a queued run cancelled leaves its queue at once, never runs and throws CancellationError")
  func queuedRunCancelled() async throws {
    // On dispatch threads: the cooperative pool may be busy with the suite's other tests.
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let records = Records()
      let pool = QueuePool(queueCount: 1, name: "test.queued", onRunEnded: records.add)
      defer { pool.shutdown() }
      let release = await Self.hold(pool)
      let ran = Atomic<Bool>(false)
      let task = Task(executorPreference: QueuePoolAsyncTests.executor) {
        try await pool.run { _ in ran.store(true, ordering: .relaxed) }
      }
      #expect(await Self.until { pool.pendingCount == 2 })
      task.cancel()
      await #expect(throws: CancellationError.self) { try await task.value }
      // Counted out before the call threw, while the queue is still held.
      #expect(pool.pendingCount == 1)
      #expect(pool.statistics[0].cancelled == 1)
      #expect(records.all.withLock { $0 } == [PoolRunRecord(outcome: .cancelledWhileQueued, cpuTime: .zero)])
      release.open()
      #expect(await Self.until { pool.pendingCount == 0 })
      let didRun = ran.load(ordering: .relaxed)
      #expect(!didRun)
    }
  }

  @Test("a running run cancelled sees isCancelled at its next check and the call throws")
  func runningRunCancelled() async throws {
    // On dispatch threads: the cooperative pool may be busy with the suite's other tests.
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let records = Records()
      let pool = QueuePool(queueCount: 1, name: "test.running", onRunEnded: records.add)
      defer { pool.shutdown() }
      let started = Gate()
      let proceed = Gate()
      let sawCancel = Atomic<Bool>(false)
      let task = Task(executorPreference: QueuePoolAsyncTests.executor) {
        try await pool.run { isCancelled -> Int in
          started.open()
          proceed.enter()
          sawCancel.store(isCancelled(), ordering: .relaxed)
          return 42  // finished anyway: the caller still gets CancellationError, not 42
        }
      }
      await started.enterAsync()
      task.cancel()
      proceed.open()
      await #expect(throws: CancellationError.self) { try await task.value }
      let saw = sawCancel.load(ordering: .relaxed)
      #expect(saw)
      #expect(records.outcomes == [.cancelledWhileRunning])
    }
  }

  @Test("a task cancelled before the call throws at once and enqueues nothing")
  func cancelledBeforeTheCall() async throws {
    // On dispatch threads: the cooperative pool may be busy with the suite's other tests.
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let records = Records()
      let pool = QueuePool(queueCount: 1, name: "test.before", onRunEnded: records.add)
      defer { pool.shutdown() }
      let ran = Atomic<Bool>(false)
      let task = Task(executorPreference: QueuePoolAsyncTests.executor) {
        withUnsafeCurrentTask { $0?.cancel() }
        return try await pool.run { _ in ran.store(true, ordering: .relaxed) }
      }
      await #expect(throws: CancellationError.self) { try await task.value }
      #expect(pool.statistics[0].enqueued == 0 && pool.pendingCount == 0)
      let didRun = ran.load(ordering: .relaxed)
      #expect(!didRun)
    }
  }

  @Test("completed and failed runs reach the observer with the CPU time they used")
  func observerOutcomesAndCPUTime() async throws {
    // On dispatch threads: the cooperative pool may be busy with the suite's other tests.
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let records = Records()
      let pool = QueuePool(queueCount: 1, name: "test.observer", onRunEnded: records.add)
      defer { pool.shutdown() }
      struct Boom: Error {}
      let value = try await pool.run { _ in
        // Spends at least 2 ms of this thread's CPU time.
        let start = ThreadCPUClock.now()
        var spins = 0
        while ThreadCPUClock.now() - start < .milliseconds(2) { spins += 1 }
        return spins > 0
      }
      #expect(value)
      await #expect(throws: Boom.self) { try await pool.run { _ in throw Boom() } }
      let all = records.all.withLock { $0 }
      #expect(all.map(\.outcome) == [.completed, .failed])
      #expect(all[0].cpuTime >= .milliseconds(2))
      #expect(pool.pendingCount == 0 || pool.pendingCount == 1)  // the last item's count drops after it resumes us
    }
  }

  @Test("a pool at its pending limit refuses a run with a typed error; below it, it admits again")
  func overload() async throws {
    // On dispatch threads: the cooperative pool may be busy with the suite's other tests.
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let pool = QueuePool(queueCount: 1, name: "test.overload", pendingLimit: 2)
      defer { pool.shutdown() }
      let release = await Self.hold(pool)
      let queued = Task(executorPreference: QueuePoolAsyncTests.executor) { try await pool.run { _ in 7 } }
      #expect(await Self.until { pool.pendingCount == 2 })
      await #expect(throws: QueuePoolError.overloaded(pendingLimit: 2)) { try await pool.run { _ in 0 } }
      #expect(pool.pendingCount == 2)
      #expect(
        QueuePoolError.overloaded(pendingLimit: 2).description.contains("2 draws are already queued or running"))
      release.open()
      #expect(try await queued.value == 7)
      #expect(try await pool.run { _ in 8 } == 8)
      #expect(QueuePool(queueCount: 1, pendingLimit: -5).pendingLimit == 1)
    }
  }

  @Test("a run is out of the pending count before its observer hears of it and its caller resumes")
  func finishedRunLeavesThePendingCountFirst() async throws {
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      // The observer runs on the worker just before the caller resumes: what it reads is what a
      // caller would meet if the count dropped only after the worker's loop came round again.
      let poolForObserver = Mutex<QueuePool?>(nil)
      let seenByObserver = Mutex<[Int]>([])
      let pool = QueuePool(queueCount: 1, name: "test.settle", pendingLimit: 1) { _ in
        let count = poolForObserver.withLock { $0?.pendingCount ?? -1 }
        seenByObserver.withLock { $0.append(count) }
      }
      poolForObserver.withLock { $0 = pool }
      defer {
        poolForObserver.withLock { $0 = nil }
        pool.shutdown()
      }
      // With a limit of one, each run in turn is admitted only if the one before left the count.
      for value in 0..<50 {
        #expect(try await pool.run { _ in value } == value)
        #expect(pool.pendingCount == 0)
      }
      #expect(seenByObserver.withLock { $0 } == Array(repeating: 0, count: 50))
    }
  }

  @Test("a run on a shut-down pool throws shutDown")
  func shutDownPool() async throws {
    // On dispatch threads: the cooperative pool may be busy with the suite's other tests.
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let pool = QueuePool(queueCount: 1, name: "test.shutdown")
      pool.shutdown()
      await #expect(throws: QueuePoolError.shutDown) { try await pool.run { _ in 1 } }
      #expect(pool.pendingCount == 0)
    }
  }

  /// The worker threads of `pool`, each read by an item placed on its queue.
  static func workerThreads(of pool: QueuePool) async -> Set<pthread_t> {
    let threads = Mutex<Set<pthread_t>>([])
    let done = Gate()
    for index in 0..<pool.queueCount {
      pool.enqueue(onQueue: index) {
        threads.withLock { _ = $0.insert(pthread_self()) }
        done.open()
      }
    }
    for _ in 0..<pool.queueCount { await done.enterAsync() }
    return threads.withLock { $0 }
  }

  @Test("with the pool as task executor preference, the task's code runs on a pool thread")
  func taskExecutorPreference() async throws {
    let pool = QueuePool(queueCount: 2, name: "test.executor")
    defer { pool.shutdown() }
    let workers = await Self.workerThreads(of: pool)
    #expect(workers.count == 2)
    let executedBefore = pool.statistics.map(\.executed).reduce(0, +)
    let (thread, childThread) = await withTaskExecutorPreference(pool) {
      async let child = pthread_self()
      return (pthread_self(), await child)
    }
    #expect(workers.contains(thread))
    #expect(workers.contains(childThread))
    #expect(!workers.contains(pthread_self()))
    #expect(pool.statistics.map(\.executed).reduce(0, +) > executedBefore)
  }

  @Test("many runs cancelled at random points each end exactly once")
  func cancellationRacesEndOnce() async throws {
    // On dispatch threads: the cooperative pool may be busy with the suite's other tests.
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let records = Records()
      let pool = QueuePool(queueCount: 2, name: "test.races", onRunEnded: records.add)
      defer { pool.shutdown() }
      let count = 400
      // 1: the value, 0: CancellationError, -1: anything else (a wrong value or error).
      let results = await withTaskGroup(of: Int.self) { group in
        for index in 0..<count {
          group.addTask {
            let task = Task(executorPreference: QueuePoolAsyncTests.executor) {
              try await pool.run { isCancelled in isCancelled() ? -1 : index }
            }
            if index % 2 == 0 { task.cancel() }
            do { return try await task.value == index ? 1 : -1 } catch is CancellationError { return 0 } catch {
              return -1
            }
          }
        }
        return await group.reduce(into: [Int]()) { $0.append($1) }
      }
      #expect(results.count == count && !results.contains(-1))
      #expect(results.filter { $0 == 1 }.count >= count / 2)  // none of the uncancelled half is lost
      // Every admitted run was recorded once (a task cancelled before its call is never admitted).
      let outcomes = records.outcomes
      #expect(outcomes.count <= count)
      #expect(outcomes.filter { $0 == .completed }.count == results.filter { $0 == 1 }.count)
      #expect(await Self.until { pool.pendingCount == 0 })
    }
  }
}

extension Gate {
  /// `enter()` from async code, without holding a cooperative thread (tests run in parallel on a
  /// pool as wide as the cores: blocked, the tasks a test waits for could not run).
  @discardableResult
  func enterAsync() async -> Bool {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: self.enter()) }
    }
  }
}
