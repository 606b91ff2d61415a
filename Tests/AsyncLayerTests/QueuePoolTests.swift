import Dispatch
import Synchronization
import Testing

@testable import AsyncLayer

@Suite struct QueuePoolTests {
  /// Occupies every queue with an item held at a gate; returns the gates and a barrier.
  private func block(_ pool: QueuePool) -> (started: Gate, release: Gate) {
    let started = Gate()
    let release = Gate()
    for index in 0..<pool.queueCount {
      pool.enqueue(onQueue: index) {
        started.open()
        release.enter()
      }
    }
    for _ in 0..<pool.queueCount { started.enter() }
    return (started, release)
  }

  /// Waits until every queue has run everything enqueued before this call, and returns the
  /// queues' counters as they were then, read by a barrier item on each queue (which leaves
  /// itself out of them): a worker updates its counters before it starts its next item.
  @discardableResult
  private func drain(_ pool: QueuePool) -> [QueueStatistics] {
    let done = Gate()
    let seen = Mutex<[Int: QueueStatistics]>([:])
    for index in 0..<pool.queueCount {
      pool.enqueue(onQueue: index) {
        var stats = pool.statistics[index]
        stats.enqueued -= 1
        stats.pending -= 1
        seen.withLock { $0[index] = stats }
        done.open()
      }
    }
    for _ in 0..<pool.queueCount { #expect(done.enter()) }
    return seen.withLock { seen in (0..<pool.queueCount).compactMap { seen[$0] } }
  }

  @Test func defaultQueueCountIsCoresCappedAtSix() {
    #expect(QueuePool.defaultQueueCount >= 1)
    #expect(QueuePool.defaultQueueCount <= 6)
    let pool = QueuePool(queueCount: 0)
    defer { pool.shutdown() }
    #expect(pool.queueCount == 1)
  }

  @Test func newWorkGoesToTheLeastPendingQueueAlsoAfterCancellations() {
    let pool = QueuePool(queueCount: 3)
    defer { pool.shutdown() }
    let (_, release) = block(pool)
    #expect(pool.statistics.map(\.pending) == [1, 1, 1])

    let ran = Mutex<[Int]>([])
    let itemRan = Gate()
    let record: @Sendable (Int) -> Void = { n in
      ran.withLock { $0.append(n) }
      itemRan.open()
    }
    let tickets = (0..<4).map { n in pool.enqueue { record(n) } }
    #expect(tickets.map(\.queueIndex) == [0, 1, 2, 0])
    #expect(pool.statistics.map(\.pending) == [3, 2, 2])

    // Cancelling leaves the count at once, before the worker reaches the item.
    #expect(tickets[0].cancel())
    #expect(tickets[3].cancel())
    #expect(!tickets[3].cancel())
    #expect(tickets[3].status == .cancelled)
    #expect(pool.statistics.map(\.pending) == [1, 2, 2])
    #expect(pool.enqueue { record(4) }.queueIndex == 0)

    for _ in 0..<3 { release.open() }
    for _ in 0..<3 { #expect(itemRan.enter()) }
    let stats = drain(pool)
    #expect(ran.withLock { $0.sorted() } == [1, 2, 4])
    #expect(stats.map(\.pending) == [0, 0, 0])
    #expect(stats[0].cancelled == 2)
    #expect(stats[0].enqueued == 4)  // the blocker, two cancelled items, the re-routed item
    // Each item ran once: where it was queued, or on a queue that was idle first and took it.
    #expect(stats.map(\.executed).reduce(0, +) == 6)  // three blockers, three items
    #expect(stats.map(\.stolen).reduce(0, +) <= 3)
    #expect(tickets[1].status == .finished)
  }

  @Test func anIdleQueueTakesTheWorkWaitingBehindALongItem() {
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    // Queue 0 runs a long item (held at a gate); four items wait behind it.
    let longStarted = Gate()
    let longRelease = Gate()
    pool.enqueue(onQueue: 0) {
      longStarted.open()
      longRelease.enter()
    }
    #expect(longStarted.enter())
    let queue1Started = Gate()
    let queue1Release = Gate()
    pool.enqueue(onQueue: 1) {
      queue1Started.open()
      queue1Release.enter()
    }
    #expect(queue1Started.enter())
    let ran = Mutex<[Int]>([])
    let itemRan = Gate()
    let tickets = (0..<4).map { n in
      pool.enqueue {
        ran.withLock { $0.append(n) }
        itemRan.open()
      }
    }
    #expect(tickets.map(\.queueIndex) == [0, 1, 0, 1])
    // Pinned work is never taken: a barrier placed on queue 0 waits for the long item.
    let barrierRan = Atomic<Bool>(false)
    pool.enqueue(onQueue: 0) { barrierRan.store(true, ordering: .relaxed) }

    // Queue 1 finishes its item and its own backlog, then takes queue 0's, in order, while
    // queue 0 is still in its long item.
    queue1Release.open()
    for _ in 0..<4 { #expect(itemRan.enter()) }
    #expect(ran.withLock { $0 } == [1, 3, 0, 2])
    let barrierRanEarly = barrierRan.load(ordering: .relaxed)
    #expect(!barrierRanEarly)
    let during = pool.statistics
    #expect(during[1].stolen == 2)
    #expect(during[0].pending == 2)  // the long item and the barrier

    longRelease.open()
    let stats = drain(pool)
    let barrierRanLater = barrierRan.load(ordering: .relaxed)
    #expect(barrierRanLater)
    #expect(stats.map(\.pending) == [0, 0])
    #expect(stats[0].executed == 2)  // the long item and the barrier
    #expect(stats[1].executed == 5)  // its blocker, its two items, the two taken
    #expect(tickets.allSatisfy { $0.status == .finished })
  }

  @Test func aQueueRunsItsItemsOneAtATimeInOrder() {
    let pool = QueuePool(queueCount: 1)
    defer { pool.shutdown() }
    let order = Mutex<[Int]>([])
    let running = Atomic<Int>(0)
    let overlapped = Atomic<Bool>(false)
    for n in 0..<50 {
      pool.enqueue {
        if running.add(1, ordering: .relaxed).newValue > 1 { overlapped.store(true, ordering: .relaxed) }
        order.withLock { $0.append(n) }
        running.subtract(1, ordering: .relaxed)
      }
    }
    drain(pool)
    #expect(order.withLock { $0 } == Array(0..<50))
    let didOverlap = overlapped.load(ordering: .relaxed)
    #expect(!didOverlap)
  }

  @Test func runningOrFinishedWorkCannotBeCancelled() {
    let pool = QueuePool(queueCount: 1)
    defer { pool.shutdown() }
    let started = Gate()
    let release = Gate()
    let ticket = pool.enqueue {
      started.open()
      release.enter()
    }
    started.enter()
    #expect(ticket.status == .running)
    #expect(!ticket.cancel())
    release.open()
    let stats = drain(pool)
    #expect(ticket.status == .finished)
    #expect(!ticket.cancel())
    #expect(stats[0].cancelled == 0)
    #expect(stats[0].executed == 1)
  }

  @Test func workEnqueuedAfterShutdownIsCancelled() {
    let pool = QueuePool(queueCount: 1)
    pool.shutdown()
    let ticket = pool.enqueue {}
    #expect(ticket.status == .cancelled)
    #expect(pool.statistics[0].pending == 0)
  }
}
