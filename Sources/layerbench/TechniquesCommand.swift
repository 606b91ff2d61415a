import ArgumentParser
import AsyncLayer
import Foundation
import Synchronization

/// `layerbench techniques`: one batch of tiles through each way of taking work off the loop.
struct TechniquesCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "techniques",
    abstract: "Render one batch of tiles through each multithreading technique, side by side.",
    discussion: """
      Techniques: sync (on the loop), thread-per-task, operation-queue (concurrent), operation-serial \
      (serial through dependencies, cancelled half-way), concurrent-perform, serial-queue, pool (AsyncLayer's \
      queue pool). The loop runs at 60 Hz on its own thread; 'longest stall' is its longest busy turn.
      """
  )

  /// thread-per-task starts one OS thread per tile, all at once (each with its own Pango state).
  static let maximumTiles = 500

  @Option(parsing: .unconditional, help: "Tiles in the batch, 2–500.")
  var tiles = 120

  @OptionGroup var measurement: MeasurementOptions<TechniquesCommand>

  @OptionGroup var options: TextOptions

  func validate() throws {
    try Bounds.check(tiles, "--tiles", 2...Self.maximumTiles)
  }

  struct Row: Codable {
    var technique: String
    var tilesDone: Int
    var wallMs: Double
    var cpuMs: Double
    var longestStallMs: Double
    var threads: Int
    var orderKept: Bool
  }

  func run() throws {
    let words = ["layer", "tile", "render", "async", "queue", "draw", "cancel", "text", "image", "loop"]
    let batch = (0..<tiles).map { index in
      options.tile(
        .plain(
          "Row \(index): "
            + (0..<(12 + index % 20)).map { words[($0 * 7 + index) % words.count] }.joined(separator: " ")))
    }
    _ = try batch[0].render()  // bad options fail here, before any thread starts
    let recorder = LoopTurnRecorder()
    let loop = MainLoop.startOnNewThread(name: "layerbench.loop") { loop in
      recorder.attach(to: loop)
      _ = try? loop.addFrameTimer(rate: 60) { _ in }
    }
    defer { loop.stop() }

    var rows: [Row] = []
    for (index, technique) in Technique.allCases.enumerated() {
      Terminal.progress(index, of: Technique.allCases.count, label: "techniques")
      rows.append(try measure(technique, batch: batch, loop: loop, recorder: recorder))
    }
    Terminal.progress(Technique.allCases.count, of: Technique.allCases.count, label: "techniques")

    var table = TextTable(headers: [
      "technique", "tiles", "wall ms", "CPU ms", "longest stall ms", "threads", "order kept",
    ])
    for row in rows {
      table.add([
        row.technique, "\(row.tilesDone)", String(format: "%.1f", row.wallMs), String(format: "%.1f", row.cpuMs),
        String(format: "%.1f", row.longestStallMs), "\(row.threads)", row.orderKept ? "yes" : "no",
      ])
    }
    print(table.render())
    if let json = measurement.json { try writeJSON(rows, to: json) }
    if let chart = measurement.chart {
      try BarChart(
        title: "\(tiles) tiles per technique (ms)", categories: rows.map(\.technique),
        series: [
          ("wall", rows.map(\.wallMs)), ("CPU", rows.map(\.cpuMs)), ("longest stall", rows.map(\.longestStallMs)),
        ]
      ).render().write(to: chart)
      print("wrote \(chart)")
    }
  }

  enum Technique: String, CaseIterable {
    case sync
    case threadPerTask = "thread-per-task"
    case operationQueue = "operation-queue"
    case operationSerial = "operation-serial"
    case concurrentPerform = "concurrent-perform"
    case serialQueue = "serial-queue"
    case pool
  }

  private func measure(_ technique: Technique, batch: [TextTile], loop: MainLoop, recorder: LoopTurnRecorder) throws
    -> Row
  {
    let run = BatchRun(count: batch.count)
    let finished = DispatchSemaphore(value: 0)
    // A tile's work: render, note the thread, and report completion to the loop.
    let work: @Sendable (Int) -> Void = { index in
      _ = try? batch[index].render()
      run.ran(onThread: currentThreadNumber())
      loop.perform {
        if run.completed(index) { finished.signal() }
      }
    }
    recorder.reset()
    let cpuStart = processCPUTime()
    let start = ContinuousClock.now
    let count = batch.count
    loop.perform {
      switch technique {
      case .sync:
        for index in 0..<count { work(index) }
      case .threadPerTask:
        for index in 0..<count { Thread { work(index) }.start() }
      case .operationQueue:
        let queue = OperationQueue()
        for index in 0..<count { queue.addOperation { work(index) } }
      case .operationSerial:
        // Serial through dependencies; half-way through, the rest is cancelled.
        let queue = OperationQueue()
        let half = count / 2
        var previous: Operation?
        let operations = (0..<count).map { index -> BlockOperation in
          let operation = BlockOperation {
            work(index)
            if index == half - 1 { queue.cancelAllOperations() }
          }
          if let previous { operation.addDependency(previous) }
          previous = operation
          return operation
        }
        run.expect(half)
        queue.addOperations(operations, waitUntilFinished: false)
      case .concurrentPerform:
        DispatchQueue.global().async { DispatchQueue.concurrentPerform(iterations: count, execute: work) }
      case .serialQueue:
        let queue = DispatchQueue(label: "layerbench.serial")
        for index in 0..<count { queue.async { work(index) } }
      case .pool:
        let pool = QueuePool.shared
        for index in 0..<count { pool.enqueue { work(index) } }
      }
    }
    finished.wait()
    let wall = ContinuousClock.now - start
    let cpu = processCPUTime() - cpuStart
    return Row(
      technique: technique.rawValue, tilesDone: run.completedCount, wallMs: wall.milliseconds, cpuMs: cpu.milliseconds,
      longestStallMs: recorder.longestTurn.milliseconds, threads: run.threadCount, orderKept: run.orderKept)
  }
}

/// Bookkeeping of one batch: which threads ran tiles and the order completions reached the loop.
final class BatchRun: Sendable {
  private struct State {
    var expected: Int
    var order: [Int] = []
    var threads = Set<Int>()
  }
  private let state: Mutex<State>

  init(count: Int) { state = ThreadSanitizedMutex(State(expected: count)) }

  /// For a run that stops early (the cancelled serial chain).
  func expect(_ count: Int) { state.withLock { $0.expected = count } }
  func ran(onThread tid: Int) { _ = state.withLock { $0.threads.insert(tid) } }

  /// Records a completion; true when the batch is complete.
  func completed(_ index: Int) -> Bool {
    state.withLock {
      $0.order.append(index)
      return $0.order.count == $0.expected
    }
  }

  var completedCount: Int { state.withLock { $0.order.count } }
  var threadCount: Int { state.withLock { $0.threads.count } }
  var orderKept: Bool { state.withLock { $0.order == $0.order.sorted() } }
}

extension TechniquesCommand: MeasuringCommand {
  static let jsonHelp = "Write the rows as JSON to this file."
  static let chartHelp = "Draw wall and CPU time per technique into this image (.png, .jpg)."
  /// Each technique runs once.
  static let repeats: RepeatsOption? = nil
}
