import Dispatch
import Synchronization
import Testing

@testable import AsyncLayer

@Suite struct AsyncLayerTests {
  private func solid(_ color: Color) -> @Sendable (DrawingContext) throws -> Void {
    { context in context.fill(Rect(origin: .zero, size: context.size), color: color) }
  }

  @Test func asynchronousDrawRunsOffTheLoopAndCommitsOnIt() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let layer = AsyncLayer(loop: loop, pool: pool)
    let loopThread = currentThreadID()
    let drawThreads = Mutex<[UInt]>([])
    layer.size = Size(width: 10, height: 5)
    layer.contentsScale = 2
    layer.drawHandler = { context in
      drawThreads.withLock { $0.append(currentThreadID()) }
      context.fill(Rect(x: 0, y: 0, width: 10, height: 5), color: .blue)
    }
    var commits: [(finished: Bool, onLoop: Bool)] = []
    layer.onDidDisplay = { layer, finished in commits.append((finished, layer.loop.isInLoopThread)) }
    loop.runOnce()
    #expect(layer.contents == nil)
    #expect(layer.isDisplayPending)
    #expect(loop.run(until: { !layer.isDisplayPending }))
    let contents = try #require(layer.contents)
    #expect(contents.pixelWidth == 20 && contents.pixelHeight == 10)
    #expect(contents.color(x: 19, y: 9) == .blue)
    #expect(commits.count == 1 && commits[0].finished && commits[0].onLoop)
    #expect(drawThreads.withLock { $0 }.allSatisfy { $0 != loopThread })
    let stats = layer.statistics
    #expect(stats.committed == 1)
    #expect(stats.cpuTimeCommitted > .zero)
  }

  /// The ABA race of a two-state flag: an old draw, redisplayed while it runs, finishes on its
  /// queue after the new draw has committed on another queue. It must never commit.
  @Test func oldDrawFinishingAfterARedisplayNeverCommits() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let layer = AsyncLayer(loop: loop, pool: pool)
    layer.size = Size(width: 4, height: 4)
    let started = Gate()
    let release = Gate()
    let sawCancellation = Mutex<Bool?>(nil)
    // The old draw ignores cancellation on purpose: it runs to the end like a naive draw would.
    layer.drawHandler = { context in
      started.open()
      release.enter()
      context.fill(Rect(x: 0, y: 0, width: 4, height: 4), color: .red)
      sawCancellation.withLock { $0 = context.isCancelled }
    }
    var finishes: [Bool] = []
    layer.onDidDisplay = { _, finished in finishes.append(finished) }
    loop.runOnce()
    #expect(started.enter())  // the old draw is mid-flight on queue 0

    layer.drawHandler = solid(.blue)
    loop.runOnce()
    #expect(pool.statistics.map(\.enqueued) == [1, 1])  // the new draw went to the idle queue
    #expect(loop.run(until: { layer.contents != nil }))
    #expect(layer.contents?.color(x: 0, y: 0) == .blue)
    #expect(finishes == [true])

    release.open()
    #expect(loop.run(until: { finishes.count == 2 }))
    #expect(finishes == [true, false])
    #expect(sawCancellation.withLock { $0 } == true)
    #expect(layer.contents?.color(x: 0, y: 0) == .blue)
    let stats = layer.statistics
    #expect(stats.discardedAtCommit == 1)
    #expect(stats.committed == 1)
  }

  @Test func queuedDrawLeavesItsQueueWhenRedisplayed() {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 1)
    defer { pool.shutdown() }
    let started = Gate()
    let release = Gate()
    pool.enqueue {
      started.open()
      release.enter()
    }
    started.enter()
    let layer = AsyncLayer(loop: loop, pool: pool)
    layer.size = Size(width: 2, height: 2)
    let draws = Atomic<Int>(0)
    layer.drawHandler = { _ in draws.add(1, ordering: .relaxed) }
    var finishes: [Bool] = []
    layer.onDidDisplay = { _, finished in finishes.append(finished) }
    loop.runOnce()
    #expect(pool.statistics[0].pending == 2)
    layer.setNeedsDisplay()
    // Cancelled at once: the count drops and the owner hears of it without waiting for the queue.
    #expect(pool.statistics[0].pending == 1)
    #expect(finishes == [false])
    #expect(layer.statistics.cancelledBeforeStart == 1)
    loop.runOnce()
    release.open()
    #expect(loop.run(until: { !layer.isDisplayPending }))
    #expect(finishes == [false, true])
    #expect(draws.load(ordering: .relaxed) == 1)
    #expect(pool.statistics[0].cancelled == 1)
  }

  @Test func zeroSizeMeansNoContentsAndNoDraw() {
    let loop = MainLoop(clock: .manual)
    let layer = AsyncLayer(loop: loop)
    layer.displaysAsynchronously = false
    layer.size = Size(width: 3, height: 3)
    let draws = Atomic<Int>(0)
    layer.drawHandler = { _ in draws.add(1, ordering: .relaxed) }
    loop.runOnce()
    #expect(layer.contents != nil)
    layer.size = Size(width: 0, height: 3)
    loop.runOnce()
    #expect(layer.contents == nil)
    #expect(draws.load(ordering: .relaxed) == 1)
    #expect(!layer.isDisplayPending)
  }

  @Test func opaqueLayersFillWhiteUnderAMissingOrTranslucentBackground() throws {
    let loop = MainLoop(clock: .manual)
    let layer = AsyncLayer(loop: loop)
    layer.displaysAsynchronously = false
    layer.size = Size(width: 2, height: 2)
    layer.display()
    #expect(layer.contents?.color(x: 0, y: 0) == .clear)

    layer.isOpaque = true
    layer.display()
    #expect(layer.contents?.color(x: 1, y: 1) == .white)
    #expect(layer.contents?.isFullyOpaque == true)

    layer.backgroundColor = Color.red.withAlpha(0.5)
    layer.display()
    let pixel = try #require(layer.contents?.color(x: 0, y: 0))
    #expect(pixel.alpha == 1)
    #expect(pixel.red == 1)
    #expect(abs(pixel.green - 0.5) < 0.01 && abs(pixel.blue - 0.5) < 0.01)

    layer.isOpaque = false
    layer.display()
    let translucent = try #require(layer.contents?.color(x: 0, y: 0))
    #expect(abs(translucent.alpha - 0.5) < 0.01)
  }

  @Test func staleContentsPolicies() {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 1)
    defer { pool.shutdown() }
    let layer = AsyncLayer(loop: loop, pool: pool)
    layer.size = Size(width: 2, height: 2)
    layer.drawHandler = solid(.blue)
    loop.runOnce()
    #expect(loop.run(until: { layer.contents != nil }))

    // Hold the queue so the next draws stay pending while we look at the contents.
    let started = Gate()
    let release = Gate()
    pool.enqueue {
      started.open()
      release.enter()
    }
    started.enter()
    layer.staleContentsPolicy = .keep
    layer.display()
    #expect(layer.contents?.color(x: 0, y: 0) == .blue)
    layer.staleContentsPolicy = .placeholder(.gray)
    layer.display()
    #expect(layer.contents?.color(x: 1, y: 1) == Color(red8: 128, green8: 128, blue8: 128))
    layer.staleContentsPolicy = .clear
    layer.display()
    #expect(layer.contents == nil)
    release.open()
    #expect(loop.run(until: { !layer.isDisplayPending }))
    #expect(layer.contents?.color(x: 0, y: 0) == .blue)
    #expect(layer.statistics.cancelledBeforeStart == 2)
  }

  @Test func synchronousDisplayInvalidatesAnAsynchronousDrawInFlight() {
    let lime = Color(red: 0, green: 1, blue: 0)
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 1)
    defer { pool.shutdown() }
    let layer = AsyncLayer(loop: loop, pool: pool)
    layer.size = Size(width: 2, height: 2)
    let started = Gate()
    let release = Gate()
    layer.drawHandler = { context in
      started.open()
      release.enter()
      context.fill(Rect(x: 0, y: 0, width: 2, height: 2), color: .red)
    }
    loop.runOnce()
    started.enter()
    layer.displaysAsynchronously = false
    layer.drawHandler = solid(lime)
    loop.runOnce()
    #expect(layer.contents?.color(x: 0, y: 0) == lime)
    release.open()
    #expect(loop.run(until: { !layer.isDisplayPending && layer.statistics.discardedAtCommit == 1 }))
    #expect(layer.contents?.color(x: 0, y: 0) == lime)
  }

  @Test func drawErrorsAreReportedNotCommitted() {
    let loop = MainLoop(clock: .manual)
    let layer = AsyncLayer(loop: loop)
    layer.displaysAsynchronously = false
    layer.size = Size(width: 1e6, height: 1e6)
    var finishes: [Bool] = []
    layer.onDidDisplay = { _, finished in finishes.append(finished) }
    loop.runOnce()
    #expect(finishes == [false])
    #expect(layer.lastError is RenderError)
    #expect(layer.contents == nil)
    #expect(layer.statistics.failed == 1)
  }

  @Test func loopStatisticsCountEveryLayerOfTheLoopAndNoOther() {
    let loop = MainLoop(clock: .manual)
    let otherLoop = MainLoop(clock: .manual)
    let layers = [AsyncLayer(loop: loop), AsyncLayer(loop: loop), AsyncLayer(loop: otherLoop)]
    for layer in layers {
      layer.displaysAsynchronously = false
      layer.size = Size(width: 1, height: 1)
    }
    loop.runOnce()
    otherLoop.runOnce()
    #expect(loop.layerStatistics.requested == layers[0].statistics.requested + layers[1].statistics.requested)
    #expect(loop.layerStatistics.committed == 2)
    #expect(otherLoop.layerStatistics.committed == 1)
    loop.resetLayerStatistics()
    #expect(loop.layerStatistics == DisplayStatistics())
    #expect(layers[0].statistics.committed == 1)
  }

  /// A draw the pool refuses (shut down) still ends its display once, with an error that says why.
  @Test func drawRefusedByAShutDownPoolEndsTheDisplayWithAnError() {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 1)
    pool.shutdown()
    let layer = AsyncLayer(loop: loop, pool: pool)
    layer.size = Size(width: 2, height: 2)
    layer.drawHandler = solid(.blue)
    var finishes: [Bool] = []
    layer.onDidDisplay = { _, finished in finishes.append(finished) }
    loop.runOnce()
    #expect(loop.run(until: { !layer.isDisplayPending }))
    #expect(finishes == [false])
    #expect(layer.lastError as? QueuePoolError == .shutDown)
    #expect(layer.statistics.failed == 1)
  }

  /// Under `.finishRunningDraw` a redisplay lets the running draw commit, then draws the newest
  /// state once, however many changes came meanwhile; each display ends exactly once.
  @Test func finishRunningDrawCommitsTheRunningDrawThenTheNewestState() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    let layer = AsyncLayer(loop: loop, pool: pool)
    layer.redisplayPolicy = .finishRunningDraw
    layer.size = Size(width: 4, height: 4)
    let started = Gate()
    let release = Gate()
    layer.drawHandler = { context in
      started.open()
      release.enter()
      context.fill(Rect(x: 0, y: 0, width: 4, height: 4), color: .red)
    }
    var finishes: [Bool] = []
    var committedColors: [Color?] = []
    layer.onDidDisplay = { layer, finished in
      finishes.append(finished)
      if finished { committedColors.append(layer.contents?.color(x: 0, y: 0)) }
    }
    loop.runOnce()
    #expect(started.enter())  // the red draw is running

    layer.drawHandler = solid(.green)
    loop.runOnce()
    layer.drawHandler = solid(.blue)
    loop.runOnce()
    #expect(pool.statistics.map(\.enqueued).reduce(0, +) == 1)  // nothing new started meanwhile
    #expect(layer.isDisplayPending)

    release.open()
    #expect(loop.run(until: { !layer.isDisplayPending }))
    #expect(finishes == [true, true])
    #expect(committedColors == [.red, .blue])
    #expect(layer.statistics.cancelledMidDraw == 0 && layer.statistics.discardedAtCommit == 0)
    #expect(pool.statistics.map(\.enqueued).reduce(0, +) == 2)
  }
}
