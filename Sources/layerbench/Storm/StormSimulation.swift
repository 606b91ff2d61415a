import AsyncLayer
import Foundation
import Synchronization

/// How the storm benchmark draws: on the loop, on the pool without cancelling, on the pool
/// cancelling the draw in flight at every change, or on the pool letting a running draw finish and
/// drawing the newest state after it (`RedisplayPolicy.finishRunningDraw`).
enum StormMode: String, CaseIterable, Codable, Sendable {
  case sync
  case asyncNoCancel = "async-nocancel"
  case async
  case asyncFinish = "async-finish"
}

/// Content that changes faster than it can be drawn.
enum StormScenario: String, CaseIterable, Codable, Sendable {
  /// A column of chat messages whose width changes every frame, as in a live window resize.
  case resize
  /// One long multilingual paragraph that grows by a character per keystroke.
  case typing
}

/// One redraw storm on a 60 Hz loop, living on the loop's thread: layers drawn once at rest, then
/// changed for `length` (every frame, or at the key rate), then left alone until every layer has
/// committed its final state (or `settleLimit` passes).
final class StormSimulation {
  struct Result: Codable, Sendable {
    var scenario: String
    var mode: String
    var lengthSeconds: Double
    var layers: Int
    /// Changes made during the storm (frames for resize, keystrokes for typing).
    var changes: Int
    var summary: StormAccounting.Summary
    /// The most draws queued or running on the pool at any frame.
    var peakBacklog: Int
    /// Layers whose final contents equal a synchronous render of their final state.
    var layersMatchingSync: Int
    var committed: Int
    var cancelledBeforeStart: Int
    var cancelledMidDraw: Int
    var discardedAtCommit: Int
    /// Typing: lines the paragraph has at the end, and the median of lines each finished draw
    /// drew (all of them for a full draw; the changed ones for a banded redraw).
    var lineCount: Int?
    var medianLinesDrawn: Double?
  }

  /// The configuration of one run.
  struct Setup: Sendable {
    var scenario: StormScenario
    var mode: StormMode
    var length: Duration
    var layerCount: Int
    var keysPerSecond: Double
    var scale: Double
    /// Words of the typing paragraph before the first keystroke (the paragraph is a few hundred
    /// points tall per 100 words at 600 pt wide).
    var paragraphWords: Int
    /// How long to wait for the final pixels after the storm.
    var settleLimit = Duration.seconds(60)
  }

  static let columnHeight = 140.0
  static let typingWidth = 600.0
  /// The typed-into document is drawn at 2×: its contents are already tens of megabytes.
  static let typingScale = 2.0

  let loop: MainLoop
  let setup: Setup
  private let finish: @Sendable (Result) -> Void
  private var layers: [TextLayer] = []
  private var cpuSeen: [Duration] = []
  private var books: StormAccounting
  private var start = ContinuousClock.now
  private var stormStart: Duration?
  private var turnStart: ContinuousClock.Instant?
  private var frame = 0
  private var changes = 0
  private var peakBacklog = 0
  private var typed = 0
  private var finished = false
  private var keyTimer: LoopTimer?
  /// Text draw reports of the storm's draws, from the draw threads.
  private let drawReports = DrawReports()

  init(loop: MainLoop, setup: Setup, finish: @escaping @Sendable (Result) -> Void) {
    self.loop = loop
    self.setup = setup
    self.finish = finish
    books = StormAccounting(layerCount: setup.scenario == .resize ? setup.layerCount : 1)
  }

  func start(on loop: MainLoop) throws {
    let count = setup.scenario == .resize ? setup.layerCount : 1
    for index in 0..<count {
      let layer = TextLayer(loop: loop)
      layer.contentsScale = setup.scenario == .typing ? Self.typingScale : setup.scale
      layer.isOpaque = true
      layer.backgroundColor = .white
      layer.padding = EdgeInsets(top: 8, left: 12, bottom: 8, right: 12)
      layer.displaysAsynchronously = setup.mode != .sync
      layer.cancelsInFlightDraws = setup.mode != .asyncNoCancel
      layer.redisplayPolicy = setup.mode == .asyncFinish ? .finishRunningDraw : .cancelRunningDraw
      switch setup.scenario {
      case .resize:
        layer.style = Feed.bodyStyle
        layer.text = .plain(StormText.message(index))
        layer.size = Size(width: Self.width(frame: 0), height: Self.columnHeight)
      case .typing:
        layer.style = TextStyle(fontFamily: "Sans", fontSize: 15)
        layer.text = .plain(StormText.paragraph(words: setup.paragraphWords))
        // Tall enough for the paragraph and what is typed (a few lines), no taller: the contents
        // of a draw cost width × height × scale² × 4 bytes, and no-cancel queues many.
        let measured = try TextMeasurer(capacity: 1).size(
          of: layer.text, style: layer.style, width: Self.typingWidth - 24, scale: Self.typingScale)
        layer.size = Size(width: Self.typingWidth, height: (measured.height + 120).rounded(.up))
      }
      if setup.scenario == .typing {
        let reports = drawReports
        layer.drawReportHandler = { report in reports.all.withLock { $0.append(report) } }
      }
      layer.onDidDisplay = { [weak self] layer, finished in
        if finished { self?.committed(index, cpu: layer.statistics.cpuTimeCommitted) }
      }
      layers.append(layer)
      cpuSeen.append(.zero)
    }
    loop.addObserver(.afterWaiting, order: Int.min) { [weak self] _ in self?.turnStart = .now }
    loop.addObserver(.beforeWaiting, order: Int.max) { [weak self] _ in self?.endOfTurn() }
    start = .now
    try loop.addFrameTimer(rate: 60) { [weak self] _ in self?.tick() }
  }

  private var elapsed: Duration { ContinuousClock.now - start }

  /// A width for every frame: a triangle wave of 4 pt steps between 240 and 480 pt.
  static func width(frame: Int) -> Double {
    let step = frame % 120
    return 240 + 4 * Double(step < 60 ? step : 120 - step)
  }

  private func committed(_ index: Int, cpu: Duration) {
    defer { cpuSeen[index] = cpu }
    guard stormStart != nil else { return }
    books.recordCommit(layer: index, at: elapsed, cpu: cpu - cpuSeen[index])
  }

  private func tick() {
    guard !finished else { return }
    frame += 1
    peakBacklog = max(peakBacklog, QueuePool.shared.statistics.reduce(0) { $0 + $1.pending })
    guard let stormStart else {
      // At rest first: the storm starts once every layer shows its first contents.
      if layers.allSatisfy({ $0.contents != nil && !$0.isDisplayPending }) { beginStorm() }
      return
    }
    let inStorm = elapsed - stormStart < setup.length
    if inStorm, setup.scenario == .resize {
      let width = Self.width(frame: frame)
      for layer in layers { layer.size = Size(width: width, height: Self.columnHeight) }
      change()
    }
    if !inStorm {
      keyTimer?.invalidate()
      keyTimer = nil
      // Settled, and the pool drained (no-cancel's backlog still costs CPU after the final commit).
      let drained = QueuePool.shared.statistics.allSatisfy { $0.pending == 0 }
      let settled = books.isSettled && drained && !layers.contains(where: \.isDisplayPending)
      if settled || elapsed - stormStart > setup.length + setup.settleLimit { end() }
    }
  }

  private func beginStorm() {
    loop.resetLayerStatistics()
    drawReports.all.withLock { $0.removeAll() }
    peakBacklog = 0
    stormStart = elapsed
    if setup.scenario == .typing {
      let interval = Duration.nanoseconds(Int64((1e9 / setup.keysPerSecond).rounded()))
      keyTimer = try? loop.scheduleTimer(after: interval, repeating: interval, modes: .common) { [weak self] in
        self?.keystroke()
      }
    }
  }

  /// Applies every keystroke due by now (a loop busy drawing receives several at once, as an app
  /// reads queued key events), so every mode types the same text in the same time.
  private func keystroke() {
    guard let stormStart, elapsed - stormStart < setup.length, let layer = layers.first else { return }
    let due = Int(((elapsed - stormStart).milliseconds / 1000 * setup.keysPerSecond).rounded(.down))
    guard due > typed else { return }
    typed = due
    layer.text = .plain(StormText.paragraph(words: setup.paragraphWords) + StormText.typed(typed))
    change()
  }

  private func change() {
    changes += 1
    books.recordChange(at: elapsed)
  }

  private func endOfTurn() {
    guard let turnStart, stormStart != nil, !finished else { return }
    books.recordTurn(end: elapsed, length: ContinuousClock.now - turnStart)
    self.turnStart = nil
  }

  private func end() {
    finished = true
    let statistics = loop.layerStatistics
    let finished = drawReports.all.withLock { $0 }.filter { !$0.wasCancelled }
    let summary = books.summary(
      cpuCommitted: statistics.cpuTimeCommitted, cpuCancelled: statistics.cpuTimeCancelledMidDraw,
      cpuDiscarded: statistics.cpuTimeDiscarded)
    finish(
      Result(
        scenario: setup.scenario.rawValue, mode: setup.mode.rawValue, lengthSeconds: setup.length.milliseconds / 1000,
        layers: layers.count, changes: changes, summary: summary, peakBacklog: peakBacklog,
        layersMatchingSync: layers.filter(matchesSyncRender).count, committed: statistics.committed,
        cancelledBeforeStart: statistics.cancelledBeforeStart, cancelledMidDraw: statistics.cancelledMidDraw,
        discardedAtCommit: statistics.discardedAtCommit, lineCount: finished.last?.lineCount,
        medianLinesDrawn: finished.isEmpty ? nil : median(finished.map { Double($0.linesDrawn) })))
  }

  /// Draws the layer's final state again, synchronously, and compares the pixels.
  private func matchesSyncRender(_ layer: TextLayer) -> Bool {
    let twin = layer.synchronousTwin()
    twin.display()
    return twin.contents != nil && twin.contents == layer.contents
  }
}

/// Text draw reports, appended on the draw threads.
private final class DrawReports: Sendable {
  let all = Mutex<[TextDrawReport]>([])
}

/// The storm's text: chat messages and a long multilingual paragraph.
enum StormText {
  private static let latin = [
    "the", "window", "grows", "while", "every", "message", "wraps", "again", "and", "draws", "off", "main", "thread",
    "so", "frames", "keep", "coming", "cancel", "stale", "work",
  ]
  private static let cjk = ["窗口", "正在", "调整", "大小", "每条", "消息", "重新", "换行", "描画", "取消"]
  private static let arabic = ["النافذة", "تتغير", "وكل", "رسالة", "تلتف", "من", "جديد"]

  /// Message `index` of the chat column: 14 to 40 words, every fourth Chinese, every seventh Arabic.
  static func message(_ index: Int) -> String {
    let words = index % 4 == 1 ? cjk : index % 7 == 3 ? arabic : latin
    let count = 14 + index * 13 % 27
    return (0..<count).map { words[($0 * 7 + index) % words.count] }.joined(separator: index % 4 == 1 ? "" : " ")
  }

  /// A paragraph of `words` words cycling through Latin, Chinese and Arabic sentences.
  static func paragraph(words: Int) -> String {
    (0..<words).map { index in
      let sentence = index / 12 % 3
      let vocabulary = sentence == 0 ? latin : sentence == 1 ? cjk : arabic
      return vocabulary[(index * 5) % vocabulary.count]
    }.joined(separator: " ")
  }

  /// What the user has typed after `count` keystrokes.
  static func typed(_ count: Int) -> String {
    let keys = Array(" typing fast in a long document 快速输入 ")
    return String((0..<count).map { keys[$0 % keys.count] })
  }
}
