import AsyncLayer
import Foundation
import OrderedCollections
import Synchronization

/// How the scroll benchmark draws its cells.
enum ScrollMode: String, CaseIterable, Codable, Sendable {
  /// Draw on the loop, in place.
  case sync
  /// Draw on the pool; a redisplay does not cancel the draw in flight (it runs to the end and is
  /// thrown away at the commit) — the behaviour of designs without a cancellable draw status.
  case asyncNoCancel = "async-nocancel"
  /// Draw on the pool with cancellation: a reused cell stops its old draw at the next check.
  case async
  /// Cancellation, plus a bounded number of draws in flight chosen by distance to the viewport,
  /// re-ranked every frame as it moves.
  case asyncPriority = "async-priority"
}

/// One run of the scroll benchmark, living on the loop's thread.
final class ScrollSimulation {
  struct Result: Codable, Sendable {
    var mode: String
    /// The working ranges, in words (`PrefetchPolicy.description`).
    var prefetch: String
    var frames: Int
    var droppedFrames: Int
    /// Frames that came more than 1.5 periods after the previous one (the loop was not scheduled
    /// in time, whatever the length of its turns).
    var lateFrames: Int
    var p50Ms: Double
    var p99Ms: Double
    var maxMs: Double
    var staleFrames: Int
    var settleMs: Double
    var settleFrames: Double
    var wastedCpuPercent: Double
    var requested: Int
    var coalesced: Int
    var cancelledBeforeStart: Int
    var cancelledMidDraw: Int
    var discardedAtCommit: Int
    var committed: Int
    var cpuCommittedMs: Double
    var cpuCancelledMidDrawMs: Double
    var cpuDiscardedMs: Double
    var imageLoads: Int
    var imageLoadsShed: Int
    var frameTimesMs: [Double]
    /// Stale or blank visible cells over all frames, by why the right content was not there yet.
    var staleCauses: StaleCauses
    /// Committed draws: how long they waited on their queue, drew, and waited for the loop to commit.
    var drawTimings: DrawTimingSummary
    /// Draw CPU committed for rows that left the preload range without ever being visible: the
    /// price of drawing ahead (not counted in `wastedCpuPercent`, which is cancelled and discarded work).
    var cpuNeverShownMs: Double
    var neverShownPercent: Double
  }

  /// Stale visible cell-frames by cause (a frame with two stale cells counts two).
  struct StaleCauses: Codable, Sendable, Equatable {
    /// The row became visible in the frame its cell was bound: there was no time to draw.
    var boundThisFrame = 0
    /// The display was held by the scheduler (outside the display range, or over the in-flight cap).
    var held = 0
    /// The draw waited on its queue behind other draws.
    var queued = 0
    /// The draw was running.
    var drawing = 0
    /// The draw had finished on the pool; its commit had not reached the loop yet.
    var awaitingCommit = 0
    /// No draw for the row was pending (cancelled or failed).
    var noDraw = 0

    var total: Int { boundThisFrame + held + queued + drawing + awaitingCommit + noDraw }
  }

  /// Medians and 95th percentiles of committed draws, in milliseconds.
  struct DrawTimingSummary: Codable, Sendable, Equatable {
    var queueWaitP50Ms = 0.0
    var queueWaitP95Ms = 0.0
    var drawP50Ms = 0.0
    var drawP95Ms = 0.0
    var commitHopP50Ms = 0.0
    var commitHopP95Ms = 0.0
  }

  static let viewportHeight = 600.0
  static let frameInterval = 1.0 / 60

  let loop: MainLoop
  let feed: Feed
  let script: FlingScript
  let mode: ScrollMode
  let imagePaths: [String]
  let scale: Double
  /// The preload and display ranges around the viewport.
  let prefetch: PrefetchPolicy
  private let recorder: LoopTurnRecorder
  private let finish: @Sendable (Result) -> Void

  /// Cells bound to rows: the preload range.
  private var bound: [Int: FeedCellLayer] = [:]
  /// Rows in the viewport: what the screen shows, stale frames and settling are judged on.
  private var viewportRows: Range<Int> = 0..<0
  /// Rows whose displays may start: the display range.
  private var displayRows: Range<Int> = 0..<0
  private var direction = PrefetchPolicy.Direction.down
  private var previousFrame: (offset: Double, time: Duration)?
  private var staleCauses = StaleCauses()
  private var queueWaits: [Double] = []
  private var drawDurations: [Double] = []
  private var commitHops: [Double] = []
  /// Per bound cell: committed draw CPU when it was bound, and whether its row has been visible.
  private var bindings: [ObjectIdentifier: (cpuAtBind: Duration, seen: Bool)] = [:]
  private var cpuNeverShown = Duration.zero
  private var reusable: [FeedCellLayer] = []
  private var pendingDisplay: Set<ObjectIdentifier> = []
  private var start = ContinuousClock.now
  private var frames = 0
  private var frameTimes: [Double] = []
  private var staleFrames = 0
  private var frameThisTurn = false
  private var settleTimes: [Duration] = []
  private var nextStop = 0
  private var currentOffset = 0.0
  private var finished = false

  // Images: decoded off the loop through a LIFO scheduler that sheds loads for rows long gone.
  private var imageCache: OrderedDictionary<Int, RenderedImage> = [:]
  private let imageCacheLimit = 16
  private var loadsInFlight: Set<Int> = []
  private var imageLoads = 0
  private let loadScheduler: TaskScheduler
  private let shedCounter = ShedCounter()

  init(
    loop: MainLoop, feed: Feed, script: FlingScript, mode: ScrollMode, imagePaths: [String], scale: Double,
    prefetch: PrefetchPolicy = .none, recorder: LoopTurnRecorder, finish: @escaping @Sendable (Result) -> Void
  ) {
    self.scale = scale
    self.prefetch = prefetch
    self.loop = loop
    self.feed = feed
    self.script = script
    self.mode = mode
    self.imagePaths = imagePaths
    self.recorder = recorder
    self.finish = finish
    let shed = shedCounter
    loadScheduler = TaskScheduler(
      configuration: .init(strategy: .lifo, maximumTaskCount: 4, executeNumber: 2),
      target: .queue(DispatchQueue(label: "layerbench.images", attributes: .concurrent)),
      onEvicted: { _ in shed.increment() })
  }

  func start(on loop: MainLoop) throws {
    recorder.reset()
    loop.resetLayerStatistics()
    loadScheduler.attach(to: loop)
    loop.addObserver(.beforeWaiting, order: LoopObserverOrder.collector + 100) { [weak self] _ in
      self?.endOfTurn()
    }
    // Before the collector: displays released now start at this turn's flush, nearest first.
    loop.addObserver(.beforeWaiting, order: LoopObserverOrder.collector - 100) { [weak self] _ in
      self?.releaseDisplays()
    }
    start = .now
    try loop.addFrameTimer(rate: 60) { [weak self] _ in self?.frame() }
  }

  // MARK: Frames

  private func frame() {
    guard !finished else { return }
    let elapsed = ContinuousClock.now - start
    frames += 1
    frameThisTurn = true
    frameTimes.append(elapsed.milliseconds)
    currentOffset = script.offset(at: elapsed)
    layOut(offset: currentOffset, at: elapsed)
    if elapsed > script.duration + .milliseconds(400) { end() }
  }

  /// Binds cells to the rows in the preload range (nearest the viewport first), reusing the cells
  /// of rows that left it.
  private func layOut(offset: Double, at elapsed: Duration) {
    var velocity = 0.0
    if let previousFrame, elapsed > previousFrame.time {
      velocity = (offset - previousFrame.offset) / ((elapsed - previousFrame.time).milliseconds / 1000)
    }
    previousFrame = (offset, elapsed)
    let ranges = prefetch.ranges(
      top: offset, height: Self.viewportHeight, velocity: velocity, direction: &direction)
    viewportRows = feed.visibleRange(top: offset, height: Self.viewportHeight)
    displayRows = feed.rows(in: ranges.display)
    let preloadRows = feed.rows(in: ranges.preload)
    for (index, cell) in bound where !preloadRows.contains(index) { unbind(index, cell) }
    // A draw still queued for a row the display range has left (the viewport passed it) would only
    // delay the rows ahead: take it off its queue and hold the display until the row comes back.
    for (index, cell) in bound where !displayRows.contains(index) && cell.isDisplayPending {
      guard mode != .asyncNoCancel, cell.probe?.stage == .queued else { continue }
      cell.cancelDisplay()
      pendingDisplay.insert(ObjectIdentifier(cell))
    }
    let viewport = offset..<(offset + Self.viewportHeight)
    let newRows = preloadRows.filter { bound[$0] == nil }.sorted {
      priority(feed.rows[$0], viewport) < priority(feed.rows[$1], viewport)
    }
    for index in newRows {
      let row = feed.rows[index]
      let cell = reusable.popLast() ?? makeCell()
      let image = row.imageIndex.flatMap { imageCache[$0] }
      bound[index] = cell
      bindings[ObjectIdentifier(cell)] = (cell.statistics.cpuTimeCommitted, false)
      cell.bind(row, image: image, frame: frames)
      if let imageIndex = row.imageIndex, image == nil { requestImage(imageIndex) }
    }
    for index in viewportRows { if let cell = bound[index] { bindings[ObjectIdentifier(cell)]?.seen = true } }
  }

  private func unbind(_ index: Int, _ cell: FeedCellLayer) {
    bound[index] = nil
    pendingDisplay.remove(ObjectIdentifier(cell))
    cell.cancelDisplay()  // the row left the preload range: its draw is worthless now
    if let binding = bindings.removeValue(forKey: ObjectIdentifier(cell)), !binding.seen {
      cpuNeverShown += cell.statistics.cpuTimeCommitted - binding.cpuAtBind
    }
    reusable.append(cell)
  }

  private func makeCell() -> FeedCellLayer {
    let cell = FeedCellLayer(loop: loop)
    cell.contentsScale = scale
    cell.isOpaque = true
    cell.backgroundColor = .white
    cell.displaysAsynchronously = mode != .sync
    cell.cancelsInFlightDraws = mode != .asyncNoCancel
    cell.requestDisplay = { [weak self] cell in self?.pendingDisplay.insert(ObjectIdentifier(cell)) }
    cell.onCommit = { [weak self] times in self?.recordCommit(times) }
    return cell
  }

  private func recordCommit(_ times: DrawProbe.Times) {
    guard let started = times.started, let finished = times.finished else { return }
    queueWaits.append((started - times.enqueued).milliseconds)
    drawDurations.append((finished - started).milliseconds)
    commitHops.append((ContinuousClock.now - finished).milliseconds)
  }

  /// Starts the held displays of rows in the display range, nearest the viewport first; in
  /// `async-priority` mode keeps at most two per queue in flight, so each start is re-ranked.
  private func releaseDisplays() {
    guard !pendingDisplay.isEmpty, !finished else { return }
    let viewport = currentOffset..<(currentOffset + Self.viewportHeight)
    let ready = displayRows.compactMap { index -> (cell: FeedCellLayer, priority: Double)? in
      guard let cell = bound[index], pendingDisplay.contains(ObjectIdentifier(cell)) else { return nil }
      return (cell, priority(feed.rows[index], viewport))
    }.sorted { $0.priority < $1.priority }
    var budget = Int.max
    if mode == .asyncPriority {
      budget = QueuePool.shared.queueCount * 2 - bound.values.filter(\.isDisplayPending).count
    }
    for (cell, _) in ready.prefix(max(budget, 0)) {
      pendingDisplay.remove(ObjectIdentifier(cell))
      // Inside the collector's flush order: first released, first enqueued.
      cell.setNeedsDisplay()
    }
  }

  private func priority(_ row: Feed.Row, _ viewport: Range<Double>) -> Double {
    PrefetchPolicy.drawPriority(rowTop: row.y, rowBottom: row.y + row.height, viewport: viewport, direction: direction)
  }

  /// At the end of a turn with a frame: what the screen shows now.
  private func endOfTurn() {
    guard frameThisTurn, !finished else { return }
    frameThisTurn = false
    let onScreen = viewportRows.compactMap { bound[$0] }
    let stale = onScreen.filter(\.isStaleOrBlank)
    if !stale.isEmpty { staleFrames += 1 }
    for cell in stale { classifyStale(cell) }
    let elapsed = ContinuousClock.now - start
    // Settle: the first end of turn after a fling's stop at which every visible cell is final.
    while nextStop < script.stopTimes.count, elapsed >= .milliseconds(script.stopTimes[nextStop]) {
      guard onScreen.allSatisfy({ $0.isCurrent && !pendingDisplay.contains(ObjectIdentifier($0)) }) else { return }
      settleTimes.append(max(.zero, elapsed - .milliseconds(script.stopTimes[nextStop])))
      nextStop += 1
    }
  }

  /// Why a visible cell does not show its row yet.
  private func classifyStale(_ cell: FeedCellLayer) {
    if cell.boundFrame == frames {
      staleCauses.boundThisFrame += 1
    } else if pendingDisplay.contains(ObjectIdentifier(cell)) {
      staleCauses.held += 1
    } else if !cell.isDisplayPending || cell.probe == nil {
      staleCauses.noDraw += 1
    } else {
      switch cell.probe!.stage {
      case .queued: staleCauses.queued += 1
      case .drawing: staleCauses.drawing += 1
      case .finished: staleCauses.awaitingCommit += 1
      }
    }
  }

  // MARK: Images

  private func requestImage(_ imageIndex: Int) {
    guard !loadsInFlight.contains(imageIndex) else { return }
    if mode == .sync {
      // Main-thread drawing decodes on the main thread too, as the naive list does.
      imageLoads += 1
      imageLoaded(imageIndex, try? RenderedImage(contentsOfPNGFile: imagePaths[imageIndex], scale: 2))
      return
    }
    loadsInFlight.insert(imageIndex)
    let path = imagePaths[imageIndex]
    let loop = loop
    let bound = LoopBound(WeakSimulation(self), loop: loop)
    imageLoads += 1
    loadScheduler.add {
      let image = try? RenderedImage(contentsOfPNGFile: path, scale: 2)
      loop.perform { bound.value.simulation?.imageLoaded(imageIndex, image) }
    }
  }

  private func imageLoaded(_ imageIndex: Int, _ image: RenderedImage?) {
    loadsInFlight.remove(imageIndex)
    guard let image, !finished else { return }
    imageCache[imageIndex] = image
    if imageCache.count > imageCacheLimit { imageCache.removeFirst() }
    for cell in bound.values where cell.row?.imageIndex == imageIndex && cell.image == nil {
      cell.setImage(image)
    }
  }

  // MARK: Result

  private func end() {
    finished = true
    let statistics = loop.layerStatistics
    let turns = recorder.turnDurations.map(\.milliseconds)
    let busy =
      statistics.cpuTimeCommitted + statistics.cpuTimeCancelledMidDraw + statistics.cpuTimeDiscarded
      + statistics.cpuTimeFailed
    let wasted = statistics.cpuTimeCancelledMidDraw + statistics.cpuTimeDiscarded
    let settle = settleTimes.map(\.milliseconds)
    var intervals: [Double] = []
    for index in frameTimes.indices.dropFirst() { intervals.append(frameTimes[index] - frameTimes[index - 1]) }
    let result = Result(
      mode: mode.rawValue, prefetch: prefetch.description, frames: frames,
      droppedFrames: turns.filter { $0 > 1000 / 60.0 }.count,
      lateFrames: intervals.filter { $0 > 1.5 * 1000 / 60.0 }.count,
      p50Ms: percentile(turns, 50), p99Ms: percentile(turns, 99), maxMs: turns.max() ?? 0, staleFrames: staleFrames,
      settleMs: median(settle), settleFrames: (median(settle) / (1000 / 60.0)).rounded(.up),
      wastedCpuPercent: busy > .zero ? 100 * wasted.milliseconds / busy.milliseconds : 0,
      requested: statistics.requested, coalesced: statistics.coalesced,
      cancelledBeforeStart: statistics.cancelledBeforeStart, cancelledMidDraw: statistics.cancelledMidDraw,
      discardedAtCommit: statistics.discardedAtCommit, committed: statistics.committed,
      cpuCommittedMs: statistics.cpuTimeCommitted.milliseconds,
      cpuCancelledMidDrawMs: statistics.cpuTimeCancelledMidDraw.milliseconds,
      cpuDiscardedMs: statistics.cpuTimeDiscarded.milliseconds, imageLoads: imageLoads,
      imageLoadsShed: shedCounter.value, frameTimesMs: intervals, staleCauses: staleCauses,
      drawTimings: DrawTimingSummary(
        queueWaitP50Ms: median(queueWaits), queueWaitP95Ms: percentile(queueWaits, 95),
        drawP50Ms: median(drawDurations), drawP95Ms: percentile(drawDurations, 95),
        commitHopP50Ms: median(commitHops), commitHopP95Ms: percentile(commitHops, 95)),
      cpuNeverShownMs: cpuNeverShown.milliseconds,
      neverShownPercent: busy > .zero ? 100 * cpuNeverShown.milliseconds / busy.milliseconds : 0)
    loadScheduler.removeAll()
    finish(result)
  }
}

/// Lets work from other threads reach the simulation on the loop without keeping it alive.
struct WeakSimulation {
  weak var simulation: ScrollSimulation?
  init(_ simulation: ScrollSimulation) { self.simulation = simulation }
}

/// Counts image loads the LIFO scheduler evicted.
final class ShedCounter: Sendable {
  private let count = Atomic<Int>(0)
  func increment() { count.add(1, ordering: .relaxed) }
  var value: Int { count.load(ordering: .relaxed) }
}
