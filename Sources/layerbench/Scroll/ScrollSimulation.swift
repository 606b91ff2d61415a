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
    var prefetchPoints: Double
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
  }

  static let viewportHeight = 600.0
  static let frameInterval = 1.0 / 60

  let loop: MainLoop
  let feed: Feed
  let script: FlingScript
  let mode: ScrollMode
  let imagePaths: [String]
  let scale: Double
  /// Points above and below the viewport whose rows get cells (and draws) ahead of time.
  let prefetch: Double
  private let recorder: LoopTurnRecorder
  private let finish: @Sendable (Result) -> Void

  /// Cells bound to rows: the viewport plus the prefetch range.
  private var bound: [Int: FeedCellLayer] = [:]
  /// Rows in the viewport: what the screen shows, stale frames and settling are judged on.
  private var viewportRows: Range<Int> = 0..<0
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
    prefetch: Double = 0, recorder: LoopTurnRecorder, finish: @escaping @Sendable (Result) -> Void
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
    DisplayStatistics.resetGlobal()
    loadScheduler.attach(to: loop)
    loop.addObserver(.beforeWaiting, order: LoopObserverOrder.collector + 100) { [weak self] _ in
      self?.endOfTurn()
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
    layOut(offset: currentOffset)
    if mode == .asyncPriority { schedulePriorityDisplays() }
    if elapsed > script.duration + .milliseconds(400) { end() }
  }

  /// Binds cells to the rows in the viewport and the prefetch range around it, reusing the cells
  /// of rows that left it.
  private func layOut(offset: Double) {
    viewportRows = feed.visibleRange(top: offset, height: Self.viewportHeight)
    let range = feed.visibleRange(top: offset - prefetch, height: Self.viewportHeight + 2 * prefetch)
    for (index, cell) in bound where !range.contains(index) {
      bound[index] = nil
      pendingDisplay.remove(ObjectIdentifier(cell))
      reusable.append(cell)
    }
    for index in range where bound[index] == nil {
      let row = feed.rows[index]
      let cell = reusable.popLast() ?? makeCell()
      let image = row.imageIndex.flatMap { imageCache[$0] }
      bound[index] = cell
      cell.bind(row, image: image)
      if let imageIndex = row.imageIndex, image == nil { requestImage(imageIndex) }
    }
  }

  private func makeCell() -> FeedCellLayer {
    let cell = FeedCellLayer(loop: loop)
    cell.contentsScale = scale
    cell.isOpaque = true
    cell.backgroundColor = .white
    cell.displaysAsynchronously = mode != .sync
    cell.cancelsInFlightDraws = mode != .asyncNoCancel
    if mode == .asyncPriority {
      cell.requestDisplay = { [weak self] cell in self?.pendingDisplay.insert(ObjectIdentifier(cell)) }
    }
    return cell
  }

  /// Starts the displays nearest the viewport's centre, keeping at most two per queue in flight.
  private func schedulePriorityDisplays() {
    let limit = QueuePool.shared.queueCount * 2
    var inFlight = bound.values.filter(\.isDisplayPending).count
    guard inFlight < limit, !pendingDisplay.isEmpty else { return }
    let center = currentOffset + Self.viewportHeight / 2
    let candidates = bound.values.filter { pendingDisplay.contains(ObjectIdentifier($0)) && !$0.isDisplayPending }
      .sorted { distance($0, center) < distance($1, center) }
    for cell in candidates where inFlight < limit {
      pendingDisplay.remove(ObjectIdentifier(cell))
      cell.display()
      inFlight += 1
    }
  }

  private func distance(_ cell: FeedCellLayer, _ center: Double) -> Double {
    guard let row = cell.row else { return .infinity }
    return abs(row.y + row.height / 2 - center)
  }

  /// At the end of a turn with a frame: what the screen shows now.
  private func endOfTurn() {
    guard frameThisTurn, !finished else { return }
    frameThisTurn = false
    let onScreen = viewportRows.compactMap { bound[$0] }
    if onScreen.contains(where: \.isStaleOrBlank) { staleFrames += 1 }
    let elapsed = ContinuousClock.now - start
    // Settle: the first end of turn after a fling's stop at which every visible cell is final.
    while nextStop < script.stopTimes.count, elapsed >= .milliseconds(script.stopTimes[nextStop]) {
      guard onScreen.allSatisfy({ $0.isCurrent && !pendingDisplay.contains(ObjectIdentifier($0)) }) else { return }
      settleTimes.append(max(.zero, elapsed - .milliseconds(script.stopTimes[nextStop])))
      nextStop += 1
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
    let statistics = DisplayStatistics.global
    let turns = recorder.turnDurations.map(\.milliseconds)
    let busy =
      statistics.cpuTimeCommitted + statistics.cpuTimeCancelledMidDraw + statistics.cpuTimeDiscarded
      + statistics.cpuTimeFailed
    let wasted = statistics.cpuTimeCancelledMidDraw + statistics.cpuTimeDiscarded
    let settle = settleTimes.map(\.milliseconds)
    var intervals: [Double] = []
    for index in frameTimes.indices.dropFirst() { intervals.append(frameTimes[index] - frameTimes[index - 1]) }
    let result = Result(
      mode: mode.rawValue, prefetchPoints: prefetch, frames: frames,
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
      imageLoadsShed: shedCounter.value, frameTimesMs: intervals)
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
