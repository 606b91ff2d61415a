import AsyncLayer
import Synchronization
import Testing

@Suite("Idle task queue and loop-driven scheduling")
struct IdleTaskQueueTests {
  @Test("one task per turn, oldest first, before the loop waits")
  func onePerTurn() {
    let loop = MainLoop(clock: .manual)
    let log = RunLog()
    let queue = IdleTaskQueue(loop: loop)
    for index in 0..<3 {
      queue.add(id: "task-\(index)") {
        log.record(index)
        return .done
      }
    }
    loop.runOnce()
    #expect(log.values == [0])
    loop.runOnce()
    loop.runOnce()
    #expect(log.values == [0, 1, 2])
    loop.runOnce()
    #expect(log.values == [0, 1, 2])
  }

  @Test("a task that is not done runs again on a later turn, never twice in one")
  func notDoneDoesNotSpin() {
    let loop = MainLoop(clock: .manual)
    let runs = Atomic(0)
    let queue = IdleTaskQueue(loop: loop)
    queue.add(id: "poll") { runs.add(1, ordering: .relaxed).newValue < 3 ? .notDone : .done }
    loop.runOnce()
    #expect(runs.load(ordering: .relaxed) == 1)
    loop.runOnce()
    #expect(runs.load(ordering: .relaxed) == 2)
    loop.runOnce()
    loop.runOnce()
    #expect(runs.load(ordering: .relaxed) == 3)
    #expect(queue.pendingIDs.isEmpty)
  }

  @Test("at most ten kept by default; the oldest is dropped and the owner told")
  func maximumCount() {
    let loop = MainLoop(clock: .manual)
    let dropped = Mutex<[String]>([])
    let queue = IdleTaskQueue(loop: loop) { id in dropped.withLock { $0.append(id) } }
    for index in 0..<12 { queue.add(id: "\(index)") { .done } }
    #expect(queue.pendingIDs == (2..<12).map(String.init))
    #expect(dropped.withLock { $0 } == ["0", "1"])
  }

  @Test("removal by id, also of the running task and from inside a task")
  func removal() {
    let loop = MainLoop(clock: .manual)
    let log = RunLog()
    let queue = IdleTaskQueue(loop: loop)
    queue.add(id: "a") {
      log.record(1)
      queue.remove(id: "b")  // removing another task while this one runs
      queue.remove(id: "a")  // and itself: not put back although not done
      return .notDone
    }
    queue.add(id: "b") {
      log.record(2)
      return .done
    }
    queue.add(id: "c") {
      log.record(3)
      return .done
    }
    for _ in 0..<4 { loop.runOnce() }
    #expect(log.values == [1, 3])
    queue.add(id: "d") { .done }
    queue.add(id: "e") { .done }
    queue.removeAll()
    #expect(queue.pendingIDs.isEmpty)
  }

  @Test("suspend and resume; resume wakes the loop")
  func suspendResume() {
    let loop = MainLoop(clock: .manual)
    let log = RunLog()
    let queue = IdleTaskQueue(loop: loop)
    queue.add(id: "x") {
      log.record(1)
      return .done
    }
    queue.suspend()
    loop.runOnce()
    #expect(log.values.isEmpty)
    queue.resume()
    // run(until:) sleeps on the wake-up signal only: it returns because resume woke the loop.
    #expect(loop.run(until: { log.values == [1] }, timeout: .seconds(10)))
  }

  @Test("execute-now runs the next task in the turn it wakes, in the sources phase")
  func executeNow() {
    let loop = MainLoop(clock: .manual)
    let phases = Mutex<[String]>([])
    loop.addObserver([.beforeSources, .beforeWaiting]) { activity in
      phases.withLock { $0.append("\(activity)") }
    }
    let queue = IdleTaskQueue(loop: loop)
    queue.suspend()
    queue.add(id: "now") {
      phases.withLock { $0.append("task") }
      return .done
    }
    loop.runOnce()
    phases.withLock { $0.removeAll() }
    queue.resume()
    queue.executeNow()
    loop.runOnce()
    #expect(phases.withLock { $0 }.prefix(2) == ["beforeSources", "task"])
  }

  @Test("the queue keeps running while the loop tracks; a default-mode one does not")
  func commonModes() {
    let loop = MainLoop(clock: .manual)
    let common = Atomic(0)
    let defaultOnly = Atomic(0)
    let commonQueue = IdleTaskQueue(loop: loop)
    let defaultQueue = IdleTaskQueue(loop: loop, modes: .default)
    commonQueue.add(id: "c") {
      common.add(1, ordering: .relaxed)
      return .done
    }
    defaultQueue.add(id: "d") {
      defaultOnly.add(1, ordering: .relaxed)
      return .done
    }
    loop.runOnce(in: .tracking)
    #expect(common.load(ordering: .relaxed) == 1)
    #expect(defaultOnly.load(ordering: .relaxed) == 0)
    loop.runOnce(in: .default)
    #expect(defaultOnly.load(ordering: .relaxed) == 1)
  }

  @Test("a scheduler attached to the loop runs 2 tasks every 5 turns, LIFO")
  func schedulerOnLoop() {
    let loop = MainLoop(clock: .manual)
    let log = RunLog()
    let scheduler = TaskScheduler(configuration: .init(strategy: .lifo, executeNumber: 2, executeFrequency: 5))
    scheduler.attach(to: loop)
    for index in 0..<4 { scheduler.add { log.record(index) } }
    for _ in 0..<4 { loop.runOnce() }
    #expect(log.values.isEmpty)
    loop.runOnce()
    #expect(log.values == [3, 2])
    for _ in 0..<5 { loop.runOnce() }
    #expect(log.values == [3, 2, 1, 0])
  }

  @Test("a default-mode loop timer does not fire while tracking; a common-mode one does")
  func timerModes() throws {
    let loop = MainLoop(clock: .manual)
    let defaultFires = Atomic(0)
    let commonFires = Atomic(0)
    let defaultTimer = try loop.scheduleTimer(after: .milliseconds(10), repeating: .milliseconds(10), modes: .default) {
      defaultFires.add(1, ordering: .relaxed)
    }
    let commonTimer = try loop.scheduleTimer(after: .milliseconds(10), repeating: .milliseconds(10), modes: .common) {
      commonFires.add(1, ordering: .relaxed)
    }
    try loop.advance(by: .milliseconds(50), in: .tracking)
    #expect(defaultFires.load(ordering: .relaxed) == 0)
    #expect(commonFires.load(ordering: .relaxed) == 5)
    try loop.advance(by: .milliseconds(10), in: .default)
    #expect(defaultFires.load(ordering: .relaxed) >= 1)
    #expect(commonTimer.fireCount == commonFires.load(ordering: .relaxed))
    #expect(defaultTimer.fireCount == defaultFires.load(ordering: .relaxed))
    defaultTimer.invalidate()
    commonTimer.invalidate()
    try loop.advance(by: .milliseconds(50))
    #expect(commonTimer.fireCount == commonFires.load(ordering: .relaxed))  // readable after invalidation
    #expect(!commonTimer.isValid)
  }

  @Test("dropping loop timer handles in any state is safe; the loop keeps or drops the timer as asked")
  func loopTimerTeardown() throws {
    let loop = MainLoop(clock: .manual)
    let fires = Atomic(0)
    do {
      _ = try loop.scheduleTimer(
        after: .milliseconds(5), repeating: .milliseconds(5), modes: .common, tolerance: .milliseconds(1)
      ) {
        fires.add(1, ordering: .relaxed)
      }
      let oneShot = try loop.scheduleTimer(after: .milliseconds(1)) {}
      try loop.advance(by: .milliseconds(2))
      #expect(!oneShot.isValid)  // fired, then dropped
      #expect(oneShot.fireCount == 1)
      let invalidated = try loop.scheduleTimer(after: .milliseconds(1)) {}
      invalidated.invalidate()
    }
    // The repeating timer's handle is gone; the timer itself keeps firing until invalidated.
    try loop.advance(by: .milliseconds(20))
    #expect(fires.load(ordering: .relaxed) == 4)
  }
}
