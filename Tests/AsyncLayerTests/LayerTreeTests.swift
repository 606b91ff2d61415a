import AsyncLayerTestSupport
import Synchronization
import Testing

@testable import AsyncLayer

@Suite struct LayerTreeTests {
  private static let lime = Color(red: 0, green: 1, blue: 0)

  private static func solid(_ color: Color) -> @Sendable (DrawingContext) throws -> Void {
    { context in context.fill(Rect(origin: .zero, size: context.size), color: color) }
  }

  /// A layer at `frame` filled with `color`.
  private static func layer(
    _ loop: MainLoop, _ pool: QueuePool, _ color: Color?, frame: Rect, scale: Double = 1
  ) -> AsyncLayer {
    let layer = AsyncLayer(loop: loop, pool: pool)
    layer.frame = frame
    layer.contentsScale = scale
    if let color { layer.drawHandler = solid(color) }
    return layer
  }

  /// Runs the loop until the tree's composite is up to date and returns it.
  private static func composite(_ root: AsyncLayer) throws -> RenderedImage {
    #expect(root.loop.run(until: { !root.isCompositePending }))
    return try #require(root.compositedContents)
  }

  @Test func sublayersAreDrawnAtTheirFramesRecursively() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let root = Self.layer(loop, pool, .white, frame: Rect(x: 100, y: 100, width: 40, height: 40), scale: 2)
    let red = Self.layer(loop, pool, .red, frame: Rect(x: 5, y: 5, width: 10, height: 10), scale: 2)
    let blue = Self.layer(loop, pool, .blue, frame: Rect(x: 20, y: 10, width: 10, height: 20), scale: 2)
    let lime = Self.layer(loop, pool, Self.lime, frame: Rect(x: 2, y: 2, width: 4, height: 4), scale: 2)
    try root.addSublayer(red)
    try root.addSublayer(blue)
    try blue.addSublayer(lime)
    #expect(root.sublayers.count == 2 && root.sublayers[0] === red && root.sublayers[1] === blue)
    #expect(lime.superlayer === blue && lime.rootLayer === root)

    let image = try Self.composite(root)
    // Pixels are points × 2; the root's own origin does not move its composite.
    #expect(image.pixelWidth == 80 && image.pixelHeight == 80)
    #expect(image.color(x: 8, y: 8) == .white)  // (4, 4): just outside the red layer
    #expect(image.color(x: 10, y: 10) == .red)  // (5, 5): its top-left corner
    #expect(image.color(x: 29, y: 29) == .red)  // (14.5, 14.5): its bottom-right corner
    #expect(image.color(x: 30, y: 30) == .white)
    #expect(image.color(x: 42, y: 22) == .blue)  // (21, 11)
    #expect(image.color(x: 46, y: 26) == Self.lime)  // (23, 13): blue's (3, 3)
    #expect(image.color(x: 58, y: 58) == .blue)  // (29, 29)
    #expect(image.color(x: 70, y: 70) == .white)
    // Only the root composites.
    #expect(blue.compositedContents == nil && red.compositedContents == nil)
    #expect(!blue.isCompositePending)
  }

  @Test func higherZPositionDrawsOnTopAndTiesFollowInsertionOrder() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let root = Self.layer(loop, pool, nil, frame: Rect(x: 0, y: 0, width: 20, height: 20))
    let red = Self.layer(loop, pool, .red, frame: Rect(x: 0, y: 0, width: 10, height: 10))
    let blue = Self.layer(loop, pool, .blue, frame: Rect(x: 5, y: 5, width: 10, height: 10))
    red.zPosition = 1
    try root.addSublayer(red)
    try root.addSublayer(blue)  // added later, but lower
    #expect(try Self.composite(root).color(x: 7, y: 7) == .red)

    blue.zPosition = 2
    #expect(try Self.composite(root).color(x: 7, y: 7) == .blue)

    // Equal positions: the later sublayer is on top; an insertion at 0 goes to the back.
    red.zPosition = 0
    blue.zPosition = 0
    #expect(try Self.composite(root).color(x: 7, y: 7) == .blue)
    let lime = Self.layer(loop, pool, Self.lime, frame: Rect(x: 6, y: 6, width: 14, height: 14))
    try root.insertSublayer(lime, at: 0)
    #expect(root.sublayers.first === lime)
    let image = try Self.composite(root)
    #expect(image.color(x: 7, y: 7) == .blue)
    #expect(image.color(x: 17, y: 17) == Self.lime)
    #expect(image.color(x: 1, y: 1) == .red)
  }

  @Test func hiddenLayersAreLeftOutAndNotWaitedFor() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let root = Self.layer(loop, pool, .white, frame: Rect(x: 0, y: 0, width: 20, height: 20))
    let hidden = AsyncLayer(loop: loop, pool: pool)
    hidden.frame = Rect(x: 0, y: 0, width: 10, height: 10)
    hidden.isHidden = true
    // The hidden layer's draw is held: the composite must not wait for it.
    let release = Gate()
    hidden.drawHandler = { context in
      release.enter()
      context.fill(Rect(x: 0, y: 0, width: 10, height: 10), color: .red)
    }
    let child = Self.layer(loop, pool, .blue, frame: Rect(x: 2, y: 2, width: 4, height: 4))
    try hidden.addSublayer(child)
    try root.addSublayer(hidden)
    let image = try Self.composite(root)
    #expect(image.color(x: 1, y: 1) == .white)
    #expect(image.color(x: 3, y: 3) == .white)  // the hidden layer's sublayer is hidden too
    #expect(hidden.isDisplayPending)

    release.open()
    hidden.isHidden = false
    let shown = try Self.composite(root)
    #expect(shown.color(x: 1, y: 1) == .red)
    #expect(shown.color(x: 3, y: 3) == .blue)
  }

  @Test func opacityBlendsTheLayerWithWhatIsBelow() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let root = Self.layer(loop, pool, .white, frame: Rect(x: 0, y: 0, width: 20, height: 10))
    let onWhite = Self.layer(loop, pool, .blue, frame: Rect(x: 0, y: 0, width: 10, height: 10))
    onWhite.opacity = 0.5
    // A group: its sublayer fades with it instead of covering it at full strength.
    let inner = Self.layer(loop, pool, .blue, frame: Rect(x: 0, y: 0, width: 5, height: 10))
    try onWhite.addSublayer(inner)
    let invisible = Self.layer(loop, pool, .red, frame: Rect(x: 10, y: 0, width: 10, height: 10))
    invisible.opacity = 0
    try root.addSublayer(onWhite)
    try root.addSublayer(invisible)
    let image = try Self.composite(root)
    for x in [2, 7] {
      let pixel = image.color(x: x, y: 5)
      #expect(abs(pixel.red - 0.5) < 0.02 && abs(pixel.green - 0.5) < 0.02, "\(pixel)")
      #expect(pixel.blue == 1 && pixel.alpha == 1)
    }
    #expect(image.color(x: 15, y: 5) == .white)

    // Over a transparent root the alpha halves instead.
    root.drawHandler = nil
    let alpha = try Self.composite(root).color(x: 7, y: 5).alpha
    #expect(abs(alpha - 0.5) < 0.02)

    invisible.opacity = 7
    #expect(invisible.opacity == 1)
    invisible.opacity = .nan
    #expect(invisible.opacity == 0)
  }

  @Test func masksToBoundsClipsToTheRoundedBounds() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let root = Self.layer(loop, pool, nil, frame: Rect(x: 0, y: 0, width: 40, height: 40))
    let card = Self.layer(loop, pool, nil, frame: Rect(x: 10, y: 10, width: 20, height: 20))
    card.cornerRadius = 8
    card.masksToBounds = true
    // Overhangs the card by 5 points on every side.
    let fill = Self.layer(loop, pool, .red, frame: Rect(x: -5, y: -5, width: 30, height: 30))
    try card.addSublayer(fill)
    try root.addSublayer(card)
    let clipped = try Self.composite(root)
    #expect(clipped.color(x: 10, y: 10) == .clear)  // the card's top-left corner is cut off
    #expect(clipped.color(x: 29, y: 29) == .clear)
    #expect(clipped.color(x: 10, y: 20) == .red)  // the middle of its left edge is not
    #expect(clipped.color(x: 20, y: 20) == .red)
    #expect(clipped.color(x: 8, y: 20) == .clear)  // the overhang is clipped
    #expect(clipped.color(x: 32, y: 20) == .clear)

    card.masksToBounds = false
    let unclipped = try Self.composite(root)
    #expect(unclipped.color(x: 10, y: 10) == .red)
    #expect(unclipped.color(x: 6, y: 6) == .red)
    #expect(unclipped.color(x: 34, y: 34) == .red)
    #expect(unclipped.color(x: 2, y: 2) == .clear)
  }

  @Test func asynchronousCompositeEqualsTheSynchronousRender() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let root = Self.layer(loop, pool, .lightGray, frame: Rect(x: 0, y: 0, width: 120, height: 60), scale: 2)
    root.cornerRadius = 12
    root.masksToBounds = true
    let avatar = Self.layer(loop, pool, .blue, frame: Rect(x: 6, y: 6, width: 48, height: 48), scale: 2)
    avatar.cornerRadius = 24
    avatar.masksToBounds = true
    let badge = Self.layer(loop, pool, .red, frame: Rect(x: 36, y: 36, width: 16, height: 16), scale: 2)
    badge.zPosition = 1
    let title = TextLayer(loop: loop, pool: pool)
    title.frame = Rect(x: 60, y: 6, width: 56, height: 30)
    title.contentsScale = 2
    title.text = .plain("Ada Lovelace")
    title.opacity = 0.75
    try root.addSublayer(badge)
    try root.addSublayer(avatar)
    try root.addSublayer(title)
    let image = try Self.composite(root)
    #expect(image == (try root.renderTree()))
    #expect(image.color(x: 0, y: 0) == .clear)
    #expect(image.color(x: 60, y: 60) == .blue)
    #expect(image.color(x: 100, y: 100) == .red)
    // The title's ink is there: its box differs from the plain background.
    let titleInk = (120..<230).reduce(0) { count, x in
      count + (12..<70).filter { y in image.isInk(x: x, y: y, background: .lightGray) }.count
    }
    #expect(titleInk > 20)
  }

  @Test func sublayersDrawInParallelOnThePoolAndTheCompositeToo() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let root = Self.layer(loop, pool, nil, frame: Rect(x: 0, y: 0, width: 20, height: 10))
    let leftStarted = Gate()
    let rightStarted = Gate()
    let metTheOther = Mutex<[Bool]>([])
    let drawThreads = Mutex<[String: UInt]>([:])
    // Each draw waits until the other has started: both finish only if they run at the same time.
    let left = Self.layer(loop, pool, nil, frame: Rect(x: 0, y: 0, width: 10, height: 10))
    left.drawHandler = { context in
      drawThreads.withLock { $0["left"] = currentThreadID() }
      leftStarted.open()
      let met = rightStarted.enter()
      metTheOther.withLock { $0.append(met) }
      context.fill(Rect(x: 0, y: 0, width: 10, height: 10), color: .red)
    }
    let right = Self.layer(loop, pool, nil, frame: Rect(x: 10, y: 0, width: 10, height: 10))
    right.drawHandler = { context in
      drawThreads.withLock { $0["right"] = currentThreadID() }
      rightStarted.open()
      let met = leftStarted.enter()
      metTheOther.withLock { $0.append(met) }
      context.fill(Rect(x: 0, y: 0, width: 10, height: 10), color: .blue)
    }
    root.compositor.cancellationPollHook = { drawThreads.withLock { $0["composite"] = currentThreadID() } }
    try root.addSublayer(left)
    try root.addSublayer(right)
    let image = try Self.composite(root)
    #expect(image.color(x: 5, y: 5) == .red && image.color(x: 15, y: 5) == .blue)
    #expect(metTheOther.withLock { $0 } == [true, true])
    let threads = drawThreads.withLock { $0 }
    let loopThread = currentThreadID()
    #expect(threads.count == 3 && threads.values.allSatisfy { $0 != loopThread })
    #expect(threads["left"] != threads["right"])
    #expect(pool.statistics.allSatisfy { $0.enqueued >= 1 })
    #expect(root.compositeStatistics.committed == 1)
  }

  @Test func aRedisplayOrAMoveAfterTheCommitUpdatesTheComposite() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let root = Self.layer(loop, pool, .white, frame: Rect(x: 0, y: 0, width: 20, height: 20))
    let child = Self.layer(loop, pool, .blue, frame: Rect(x: 0, y: 0, width: 10, height: 10))
    try root.addSublayer(child)
    var finishes: [Bool] = []
    root.onDidComposite = { _, finished in finishes.append(finished) }
    #expect(try Self.composite(root).color(x: 5, y: 5) == .blue)

    child.drawHandler = Self.solid(.red)
    #expect(root.isCompositePending)
    #expect(try Self.composite(root).color(x: 5, y: 5) == .red)
    #expect(child.statistics.committed == 2)

    // A move recomposites the committed contents without drawing the child again.
    child.frame.origin = Point(x: 10, y: 10)
    let moved = try Self.composite(root)
    #expect(moved.color(x: 5, y: 5) == .white && moved.color(x: 15, y: 15) == .red)
    #expect(child.statistics.displays == 2)
    #expect(finishes == [true, true, true])
    #expect(root.compositeStatistics.committed == 3)

    child.removeFromSuperlayer()
    #expect(child.superlayer == nil && root.sublayers.isEmpty)
    #expect(root.loop.run(until: { !root.isCompositePending }))
    #expect(root.compositedContents == nil)  // no sublayers: `contents` is the whole picture
  }

  @Test func aCompositeCancelledMidFlightNeverCommits() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let root = Self.layer(loop, pool, .white, frame: Rect(x: 0, y: 0, width: 20, height: 20))
    let child = Self.layer(loop, pool, .blue, frame: Rect(x: 0, y: 0, width: 10, height: 10))
    try root.addSublayer(child)
    _ = try Self.composite(root)
    var committed: [Color] = []
    var unfinished = 0
    root.onDidComposite = { layer, finished in
      if finished { committed.append(layer.compositedContents!.color(x: 5, y: 5)) } else { unfinished += 1 }
    }
    let held = Atomic<Bool>(false)
    let started = Gate()
    let release = Gate()
    // The next composite stops at its first cancellation check until the child has changed.
    root.compositor.cancellationPollHook = {
      if !held.exchange(true, ordering: .relaxed) {
        started.open()
        release.enter()
      }
    }
    child.drawHandler = Self.solid(.red)
    // The turn that commits the child's red starts the composite of red.
    #expect(loop.run(until: { child.contents?.color(x: 0, y: 0) == .red }))
    #expect(started.enter())
    child.drawHandler = Self.solid(Self.lime)
    release.open()
    // The stale composite ends on the loop, possibly after its successor has committed: wait for both.
    #expect(loop.run(until: { !root.isCompositePending && unfinished == 1 }))
    #expect(committed == [Self.lime])
    let stats = root.compositeStatistics
    #expect(stats.cancelledMidDraw == 1)
    #expect(stats.committed == 2)
  }

  @Test func aCompositeFinishedAfterAChangeIsDiscardedAtTheCommit() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let root = Self.layer(loop, pool, .white, frame: Rect(x: 0, y: 0, width: 20, height: 20))
    let child = Self.layer(loop, pool, .blue, frame: Rect(x: 0, y: 0, width: 10, height: 10))
    try root.addSublayer(child)
    _ = try Self.composite(root)
    var committed: [Color] = []
    var unfinished = 0
    root.onDidComposite = { layer, finished in
      if finished { committed.append(layer.compositedContents!.color(x: 5, y: 5)) } else { unfinished += 1 }
    }
    let rendered = Gate()
    root.compositor.renderedHook = { rendered.open() }
    child.drawHandler = Self.solid(.red)
    #expect(loop.run(until: { child.contents?.color(x: 0, y: 0) == .red }))
    // The composite of red has finished on the pool; its commit waits for the loop, which we hold.
    #expect(rendered.enter())
    child.drawHandler = Self.solid(Self.lime)
    #expect(loop.run(until: { !root.isCompositePending && unfinished == 1 }))
    #expect(committed == [Self.lime])
    #expect(root.compositedContents?.color(x: 5, y: 5) == Self.lime)
    let stats = root.compositeStatistics
    #expect(stats.discardedAtCommit == 1)
    #expect(stats.committed == 2)
  }

  @Test func invalidTreeChangesThrowAndChangeNothing() throws {
    let loop = MainLoop(clock: .manual)
    let otherLoop = MainLoop(clock: .manual)
    let root = AsyncLayer(loop: loop)
    let child = AsyncLayer(loop: loop)
    let grandchild = AsyncLayer(loop: loop)
    try root.addSublayer(child)
    try child.addSublayer(grandchild)
    #expect(throws: LayerTreeError.cycle) { try root.addSublayer(root) }
    #expect(throws: LayerTreeError.cycle) { try grandchild.addSublayer(root) }
    #expect(throws: LayerTreeError.differentLoops) { try root.addSublayer(AsyncLayer(loop: otherLoop)) }
    #expect(throws: LayerTreeError.indexOutOfRange(index: 2, count: 1)) {
      try root.insertSublayer(AsyncLayer(loop: loop), at: 2)
    }
    #expect(throws: LayerTreeError.indexOutOfRange(index: -1, count: 1)) {
      try root.insertSublayer(AsyncLayer(loop: loop), at: -1)
    }
    #expect("\(LayerTreeError.indexOutOfRange(index: 2, count: 1))" == "sublayer index 2 is outside 0...1")
    #expect(root.sublayers.count == 1 && child.sublayers.count == 1 && grandchild.sublayers.isEmpty)
    #expect(root.superlayer == nil)

    // Moving a layer to a new superlayer takes it out of the old one; re-adding moves it to the end.
    let sibling = AsyncLayer(loop: loop)
    try root.addSublayer(sibling)
    try root.addSublayer(grandchild)
    #expect(child.sublayers.isEmpty && grandchild.superlayer === root)
    try root.addSublayer(child)
    #expect(root.sublayers.map { ObjectIdentifier($0) } == [sibling, grandchild, child].map { ObjectIdentifier($0) })
  }

  @Test func aRootAddedToATreeStopsCompositing() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let card = Self.layer(loop, pool, .white, frame: Rect(x: 0, y: 0, width: 10, height: 10))
    try card.addSublayer(Self.layer(loop, pool, .red, frame: Rect(x: 0, y: 0, width: 5, height: 5)))
    #expect(try Self.composite(card).color(x: 2, y: 2) == .red)

    let page = Self.layer(loop, pool, .blue, frame: Rect(x: 0, y: 0, width: 20, height: 20))
    try page.addSublayer(card)
    #expect(card.compositedContents == nil && !card.isCompositePending)
    let image = try Self.composite(page)
    #expect(image.color(x: 2, y: 2) == .red && image.color(x: 7, y: 7) == .white)
    #expect(image.color(x: 15, y: 15) == .blue)

    card.removeFromSuperlayer()
    #expect(try Self.composite(card).color(x: 2, y: 2) == .red)
    #expect(loop.run(until: { !page.isCompositePending }))
    #expect(page.compositedContents == nil)
  }
}
