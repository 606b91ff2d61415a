import AsyncLayer
import Testing

@Suite struct CollectorTests {
  final class Target {
    var runs: [String] = []
  }

  @Test func equalPairsCoalesceAndFlushAtTheEndOfTheTurn() {
    let loop = MainLoop(clock: .manual)
    let first = Target()
    let second = Target()
    #expect(loop.collector.add(first, action: .display) { $0.runs.append("display") })
    #expect(!loop.collector.add(first, action: .display) { $0.runs.append("again") })
    #expect(loop.collector.add(first, action: Collector.Action("layout")) { $0.runs.append("layout") })
    #expect(loop.collector.add(second, action: .display) { $0.runs.append("display") })
    #expect(loop.collector.pendingCount == 3)
    #expect(first.runs.isEmpty)
    loop.runOnce()
    #expect(first.runs == ["display", "layout"])
    #expect(second.runs == ["display"])
    #expect(loop.collector.pendingCount == 0)
    #expect(loop.collector.flushCount == 1)
  }

  @Test func hundredRequestsInOneTurnMakeOneDisplay() {
    let loop = MainLoop(clock: .manual)
    let layer = AsyncLayer(loop: loop)
    layer.displaysAsynchronously = false
    layer.size = Size(width: 4, height: 4)
    var displays = 0
    layer.onWillDisplay = { _ in displays += 1 }
    loop.runOnce()
    #expect(displays == 1)
    for _ in 0..<100 { layer.setNeedsDisplay() }
    loop.runOnce()
    #expect(displays == 2)
    let stats = layer.statistics
    #expect(stats.requested == 101)  // the size change plus the hundred calls
    #expect(stats.coalesced == 99)
    #expect(stats.displays == 2)
  }

  @Test func flushRunsAfterLayoutObserversInTheSameTurn() {
    let loop = MainLoop(clock: .manual)
    let layer = AsyncLayer(loop: loop)
    layer.displaysAsynchronously = false
    var events: [String] = []
    loop.addObserver(.beforeWaiting, order: LoopObserverOrder.layout) { _ in
      events.append("layout")
      layer.size = Size(width: 8, height: 8)  // layout marks the layer for display
    }
    loop.addObserver(.beforeWaiting, order: LoopObserverOrder.collector + 1) { _ in events.append("after") }
    layer.onDidDisplay = { _, _ in events.append("display") }
    loop.runOnce()
    #expect(events == ["layout", "display", "after"])
    #expect(layer.contents?.pixelWidth == 8)
  }

  @Test func pairsAddedOnExitFlushOnExit() {
    let loop = MainLoop(clock: .manual)
    let target = Target()
    loop.addObserver(.exit, order: 0, repeats: false) { _ in
      loop.collector.add(target, action: .display) { $0.runs.append("exit") }
    }
    loop.runOnce()
    #expect(target.runs == ["exit"])
  }

  @Test func pairAddedWhileFlushingWaitsForTheNextFlush() {
    let loop = MainLoop(clock: .manual)
    let target = Target()
    var beforeWaitingFlushes: [Int] = []
    loop.collector.add(target, action: .display) { target in
      target.runs.append("first")
      loop.collector.add(target, action: Collector.Action("second")) { $0.runs.append("second") }
    }
    loop.addObserver(.beforeWaiting, order: LoopObserverOrder.collector + 1) { _ in
      beforeWaitingFlushes.append(target.runs.count)
    }
    loop.runOnce()
    #expect(beforeWaitingFlushes == [1])  // "second" was not run by the same flush
    #expect(target.runs == ["first", "second"])  // the exit flush ran it
  }

  @Test func aFlushStartedInsideAFlushDoesNotRunTheBatchTwice() {
    let loop = MainLoop(clock: .manual)
    let target = Target()
    loop.collector.add(target, action: .display) { target in
      target.runs.append("outer")
      loop.collector.add(target, action: Collector.Action("inner")) { $0.runs.append("inner") }
      loop.collector.flush()
    }
    loop.collector.flush()
    #expect(target.runs == ["outer"])
    loop.collector.flush()
    #expect(target.runs == ["outer", "inner"])
  }

  @Test func aDisplayRequestedWhileFlushingRunsInTheNextTurnWithoutSleeping() {
    // A synchronous layer's onDidDisplay runs inside the flush; the display it requests is pending
    // when the turn ends, so the loop must run another turn at once instead of sleeping until a
    // wake-up that never comes (the timeout is only a safety net: reaching it fails the test).
    let loop = MainLoop(clock: .manual)
    let first = AsyncLayer(loop: loop)
    let second = AsyncLayer(loop: loop)
    for layer in [first, second] {
      layer.displaysAsynchronously = false
      layer.size = Size(width: 4, height: 4)
    }
    loop.runOnce()
    var secondDisplays = 0
    second.onDidDisplay = { _, _ in secondDisplays += 1 }
    first.onDidDisplay = { _, _ in second.setNeedsDisplay() }
    first.setNeedsDisplay()
    var turns = 0
    loop.addObserver(.beforeTimers) { _ in turns += 1 }
    let finished = loop.run(until: { secondDisplays == 1 }, timeout: .seconds(10))
    #expect(finished)
    #expect(turns == 2)
    #expect(loop.collector.pendingCount == 0)
  }
}
