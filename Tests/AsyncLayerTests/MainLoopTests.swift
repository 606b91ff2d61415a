import AsyncLayer
import Dispatch
import Foundation
import Synchronization
import Testing

@Suite struct MainLoopTests {
  @Test func oneTurnNotifiesEveryActivityInOrder() {
    let loop = MainLoop(clock: .manual)
    var seen: [LoopActivity] = []
    loop.addObserver(.all) { seen.append($0) }
    loop.runOnce()
    #expect(seen == [.entry, .beforeTimers, .beforeSources, .beforeWaiting, .exit])
  }

  @Test func observersRunInAscendingOrderThenRegistrationOrder() {
    let loop = MainLoop(clock: .manual)
    var calls: [String] = []
    loop.addObserver(.beforeWaiting, order: 3) { _ in calls.append("3") }
    loop.addObserver(.beforeWaiting, order: 1) { _ in calls.append("1a") }
    loop.addObserver(.beforeWaiting, order: 2) { _ in calls.append("2") }
    loop.addObserver(.beforeWaiting, order: 1) { _ in calls.append("1b") }
    loop.runOnce()
    #expect(calls == ["1a", "1b", "2", "3"])
  }

  @Test func oneShotAndInvalidatedObserversStop() {
    let loop = MainLoop(clock: .manual)
    var once = 0
    var always = 0
    loop.addObserver(.beforeWaiting, repeats: false) { _ in once += 1 }
    let observer = loop.addObserver(.beforeWaiting) { _ in always += 1 }
    loop.runOnce()
    loop.runOnce()
    observer.invalidate()
    loop.runOnce()
    #expect(once == 1)
    #expect(always == 2)
  }

  @Test func performFromAnotherThreadWakesTheLoopAndRunsOnIt() {
    let loop = MainLoop(clock: .manual)
    let ranOnLoopThread = Mutex<Bool?>(nil)
    let bound = LoopBound(loop, loop: loop)
    Thread.detachNewThread {
      loop.perform { ranOnLoopThread.withLock { $0 = bound.value.isInLoopThread } }
    }
    let done = loop.run(until: { ranOnLoopThread.withLock { $0 } != nil })
    #expect(done)
    #expect(ranOnLoopThread.withLock { $0 } == true)
  }

  @Test func blocksPerformedDuringATurnRunInTheNextTurn() {
    let loop = MainLoop(clock: .manual)
    let order = Mutex<[Int]>([])
    loop.perform { order.withLock { $0.append(1) } }
    loop.perform { order.withLock { $0.append(2) } }
    loop.runOnce()
    #expect(order.withLock { $0 } == [1, 2])
    let bound = LoopBound(Box(), loop: loop)
    loop.perform { loop.perform { bound.value.count += 1 } }
    loop.runOnce()
    #expect(bound.value.count == 0)
    loop.runOnce()
    #expect(bound.value.count == 1)
  }

  @Test func manualClockFiresTimersAtTheirVirtualDeadlines() throws {
    let loop = MainLoop(clock: .manual)
    var fired: [Duration] = []
    var once = 0
    try loop.scheduleTimer(after: .milliseconds(10), repeating: .milliseconds(10)) { fired.append(loop.now) }
    let oneShot = try loop.scheduleTimer(after: .milliseconds(15)) { once += 1 }
    loop.runOnce()
    #expect(fired.isEmpty)
    try loop.advance(by: .milliseconds(35))
    #expect(fired == [.milliseconds(10), .milliseconds(20), .milliseconds(30)])
    #expect(once == 1)
    #expect(!oneShot.isValid)
    #expect(loop.now == .milliseconds(35))
  }

  @Test func invalidatedTimerDoesNotFire() throws {
    let loop = MainLoop(clock: .manual)
    var fired = 0
    let timer = try loop.scheduleTimer(after: .milliseconds(5)) { fired += 1 }
    timer.invalidate()
    try loop.advance(by: .milliseconds(10))
    #expect(fired == 0)
  }

  @Test func badIntervalsAreTypedErrors() {
    let loop = MainLoop(clock: .manual)
    #expect(throws: LoopError.invalidInterval(.zero)) {
      try loop.scheduleTimer(after: .zero, repeating: .zero) {}
    }
    #expect(throws: LoopError.self) { try loop.addFrameTimer(rate: 0) { _ in } }
    #expect(throws: LoopError.self) { try loop.advance(by: .milliseconds(-1)) }
    let realTime = MainLoop(clock: .realTime)
    #expect(throws: LoopError.self) { try realTime.advance(by: .milliseconds(1)) }
  }

  @Test func trackingTurnSkipsDefaultOnlyObserversAndTimers() throws {
    let loop = MainLoop(clock: .manual)
    var defaultOnly = 0
    var common = 0
    var trackingOnly = 0
    var timerFired = 0
    loop.addObserver(.beforeWaiting, modes: .default) { _ in defaultOnly += 1 }
    loop.addObserver(.beforeWaiting, modes: .common) { _ in common += 1 }
    loop.addObserver(.beforeWaiting, modes: .tracking) { _ in trackingOnly += 1 }
    try loop.scheduleTimer(after: .milliseconds(1), modes: .default) { timerFired += 1 }

    try loop.advance(by: .milliseconds(5), in: .tracking)
    #expect(loop.currentMode == nil)
    #expect(defaultOnly == 0)
    #expect(timerFired == 0)
    #expect(common == 1)
    #expect(trackingOnly == 1)

    loop.runOnce(in: .default)
    #expect(timerFired == 1)
    #expect(defaultOnly == 1)
    #expect(common == 2)
    #expect(trackingOnly == 1)
  }

  @Test func currentModeIsVisibleDuringTheRun() {
    let loop = MainLoop(clock: .manual)
    var modes: [LoopMode?] = []
    loop.addObserver(.beforeSources) { _ in modes.append(loop.currentMode) }
    loop.runOnce(in: .tracking)
    loop.runOnce()
    #expect(modes == [.tracking, .default])
  }

  @Test func sourceSignalledManyTimesRunsOnceInItsModes() {
    let loop = MainLoop(clock: .manual)
    var handled = 0
    let source = loop.addSource(modes: .default) { handled += 1 }
    let signalled = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      for _ in 0..<3 { source.signal() }
      signalled.signal()
    }
    #expect(signalled.wait(timeout: .now() + .seconds(60)) == .success)
    loop.runOnce(in: .tracking)
    #expect(handled == 0)
    loop.runOnce()
    #expect(handled == 1)
    loop.runOnce()
    #expect(handled == 1)
    source.invalidate()
    source.signal()
    loop.runOnce()
    #expect(handled == 1)
  }

  // The one real-time test: frames arrive on the loop's own thread; the semaphore wait has a
  // generous timeout only as a safety net.
  @Test func realTimeLoopDeliversFramesOnItsThread() throws {
    let frames = Atomic<Int>(0)
    let threeFrames = DispatchSemaphore(value: 0)
    let loop = MainLoop.startOnNewThread { loop in
      _ = try? loop.addFrameTimer(rate: 120) { _ in
        precondition(loop.isInLoopThread)
        if frames.add(1, ordering: .relaxed).newValue == 3 { threeFrames.signal() }
      }
    }
    #expect(!loop.isInLoopThread)
    #expect(threeFrames.wait(timeout: .now() + .seconds(30)) == .success)
    loop.stop()
  }
}

final class Box {
  var count = 0
}

/// An actor isolated to a loop: its methods run on the loop's thread and may use layers.
actor LayerController {
  let loop: MainLoop
  let layer: LoopBound<AsyncLayer>

  init(loop: MainLoop, layer: LoopBound<AsyncLayer>) {
    self.loop = loop
    self.layer = layer
  }

  nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

  func resize(to size: Size) -> Bool {
    layer.value.size = size
    return loop.isInLoopThread
  }
}

@Suite struct MainLoopExecutorTests {
  @Test func actorOnTheLoopRunsItsMethodsOnTheLoopThread() {
    let loop = MainLoop(clock: .manual)
    let layer = AsyncLayer(loop: loop)
    let controller = LayerController(loop: loop, layer: LoopBound(layer, loop: loop))
    let result = Mutex<Bool?>(nil)
    // The task starts on a thread of its own, not on the cooperative pool: other tests may hold
    // every pool thread (2 on this machine) in blocking waits, which would starve it.
    Task.detached(executorPreference: ThreadPerJobExecutor()) { @Sendable in
      let onLoop = await controller.resize(to: Size(width: 3, height: 2))
      result.withLock { $0 = onLoop }
      loop.wakeUp()  // the task resumed off the loop: tell the loop to look at the condition again
    }
    #expect(loop.run(until: { result.withLock { $0 } != nil }))
    #expect(result.withLock { $0 } == true)
    #expect(layer.size == Size(width: 3, height: 2))
    #expect(layer.statistics.displays == 1)  // the resize was displayed at the end of that turn
  }
}

/// Runs each job on a new thread: a task executor independent of the cooperative pool.
final class ThreadPerJobExecutor: TaskExecutor {
  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    Thread { job.runSynchronously(on: executor) }.start()
  }
}
