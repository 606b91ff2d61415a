import AsyncLayer
import Dispatch
import Synchronization
import Testing

@Suite("Task scheduler")
struct TaskSchedulerTests {
  func drain(_ scheduler: TaskScheduler, turns: Int = 100) {
    for _ in 0..<turns { scheduler.runTurn(now: { .zero }) }
  }

  @Test("execution order per strategy", arguments: [TaskScheduler.Strategy.lifo, .fifo, .priority])
  func order(strategy: TaskScheduler.Strategy) {
    let log = RunLog()
    let scheduler = TaskScheduler(configuration: .init(strategy: strategy))
    let priorities = [2, 9, 5, 9, 1]
    for (index, priority) in priorities.enumerated() { scheduler.add(priority: priority) { log.record(index) } }
    drain(scheduler)
    switch strategy {
    case .lifo: #expect(log.values == [4, 3, 2, 1, 0])
    case .fifo: #expect(log.values == [0, 1, 2, 3, 4])
    case .priority: #expect(log.values == [1, 3, 2, 0, 4])  // 9 (older), 9, 5, 2, 1
    }
  }

  @Test("eviction per strategy", arguments: [TaskScheduler.Strategy.lifo, .fifo, .priority])
  func eviction(strategy: TaskScheduler.Strategy) {
    let log = RunLog()
    let evicted = RunLog()
    let scheduler = TaskScheduler(configuration: .init(strategy: strategy, maximumTaskCount: 3)) { id in
      evicted.record(Int(id.rawValue))
    }
    let priorities = [5, 1, 7, 3, 6]
    for (index, priority) in priorities.enumerated() { scheduler.add(priority: priority) { log.record(index) } }
    #expect(scheduler.pendingCount == 3)
    drain(scheduler)
    switch strategy {
    case .lifo:
      #expect(evicted.values == [1, 2])  // ids are 1-based: the two oldest
      #expect(log.values == [4, 3, 2])
    case .fifo:
      #expect(evicted.values == [4, 5])  // the newest are turned away
      #expect(log.values == [0, 1, 2])
    case .priority:
      #expect(evicted.values == [2, 4])  // priority 1, then priority 3
      #expect(log.values == [2, 4, 0])  // 7, 6, 5
    }
    #expect(scheduler.currentStatistics.evicted == 2)
    #expect(scheduler.currentStatistics.executed == 3)
  }

  @Test("rate control: 2 tasks every 5 turns")
  func rateControl() {
    let log = RunLog()
    let scheduler = TaskScheduler(configuration: .init(strategy: .fifo, executeNumber: 2, executeFrequency: 5))
    for index in 0..<7 { scheduler.add { log.record(index) } }
    var perTurn: [Int] = []
    for _ in 0..<20 { perTurn.append(scheduler.runTurn(now: { .zero })) }
    #expect(perTurn == [0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1])
    #expect(log.values == Array(0..<7))
  }

  @Test("the time budget stops a turn once spent")
  func timeBudget() {
    let time = FakeTime()
    let log = RunLog()
    let scheduler = TaskScheduler(
      configuration: .init(strategy: .fifo, executeNumber: 10, turnBudget: .milliseconds(5)))
    for index in 0..<10 {
      scheduler.add {
        log.record(index)
        time.advance(.milliseconds(2))  // each task costs 2 ms of (fake) loop time
      }
    }
    #expect(scheduler.runTurn(now: { time.now }) == 3)  // 0, 2, 4 ms spent before each: the 4th would start at 6
    #expect(scheduler.runTurn(now: { time.now }) == 3)
    #expect(scheduler.currentStatistics.budgetStops == 2)
    #expect(log.values == Array(0..<6))
  }

  @Test("suspend, resume and remove all")
  func suspendResume() {
    let log = RunLog()
    let scheduler = TaskScheduler(configuration: .init(strategy: .fifo))
    scheduler.add { log.record(1) }
    scheduler.suspend()
    drain(scheduler, turns: 5)
    #expect(log.values.isEmpty)
    scheduler.add { log.record(2) }
    scheduler.resume()
    drain(scheduler)
    #expect(log.values == [1, 2])
    for index in 0..<5 { scheduler.add { log.record(index) } }
    scheduler.removeAll()
    drain(scheduler)
    #expect(log.values == [1, 2])
    #expect(scheduler.currentStatistics.removed == 5)
  }

  @Test("a queue target dispatches the work off the loop")
  func queueTarget() {
    let queue = DispatchQueue(label: "test.scheduler")
    let log = RunLog()
    let scheduler = TaskScheduler(configuration: .init(strategy: .fifo, executeNumber: 3), target: .queue(queue))
    for index in 0..<3 { scheduler.add { log.record(index) } }
    #expect(scheduler.runTurn(now: { .zero }) == 3)
    queue.sync {}
    #expect(log.values == [0, 1, 2])
  }

  @Test("adding from many threads keeps every task and the bound")
  func concurrentAdds() {
    let evictions = Atomic(0)
    let scheduler = TaskScheduler(configuration: .init(strategy: .lifo, maximumTaskCount: 50)) { _ in
      evictions.add(1, ordering: .relaxed)
    }
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<100 { scheduler.add {} }
    }
    #expect(scheduler.pendingCount == 50)
    #expect(evictions.load(ordering: .relaxed) == 750)
    #expect(scheduler.currentStatistics.added == 800)
  }
}
