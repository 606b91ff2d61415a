import ArgumentParser
import AsyncLayer
import Foundation
import Synchronization

/// `layerbench scroll`: a 1000-row feed flung through a 60 Hz loop, per drawing mode.
struct ScrollCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "scroll",
    abstract: "Scroll a 1000-row feed with scripted flings at 60 Hz and compare drawing modes.",
    discussion: """
      Modes: sync (draw on the loop), async-nocancel (draw on the pool, never cancel), async (cancel the \
      draw in flight on reuse), async-priority (cancel, plus draws started by distance to the viewport). \
      A turn over 16.7 ms is a dropped frame; a frame more than 25 ms after the previous one is late; a stale frame shows a visible cell with another row's content \
      or none; settle is the time from the end of a fling until every visible cell shows its final content; \
      wasted CPU is draw CPU spent on content never shown.
      """
  )

  @Option(help: "Comma-separated modes to run.")
  var modes = ScrollMode.allCases.map(\.rawValue).joined(separator: ",")

  /// The feed lays out every row's text up front (two measurements per row).
  static let rowRange = 20...10_000
  /// Images are generated as 750×375 px PNG files in a temporary directory before the run.
  static let imageRange = 1...1_000

  @Option(parsing: .unconditional, help: "Rows in the feed, 20–10000.")
  var rows = 1000

  @Option(
    parsing: .unconditional,
    help: "Images in the generated local set, 1–1000 (every fifth row has one; rows share them round-robin).")
  var images = 200

  @Option(parsing: .unconditional, help: "Device pixels per point of the cells, 0.1–4 (3 as on a 3× phone).")
  var scale: Double = 3

  @Option(
    parsing: .unconditional,
    help:
      "Points above and below the viewport whose rows get cells and draws ahead of time (a list's prefetch range), 0–10000."
  )
  var prefetch: Double = 0

  @Option(
    parsing: .unconditional,
    help: "Busy threads competing for the CPU during each mode, 0–64 (other work on the device: decoding, parsing).")
  var backgroundLoad = 0

  @Option(help: "Write one JSON object per mode to this file.")
  var json: String?

  @Option(help: "Draw loop turn times over the run, per mode, into this image (.png, .jpg).")
  var chart: String?

  func validate() throws {
    try Bounds.check(rows, "--rows", Self.rowRange)
    try Bounds.check(images, "--images", Self.imageRange)
    try Bounds.check(scale, "--scale", 0.1...4, "pixels per point")
    try Bounds.check(backgroundLoad, "--background-load", 0...64, "threads")
    try Bounds.check(prefetch, "--prefetch", 0...10_000, "points")
    try checkReportOutputs(json: json, chart: chart)
    let names = modeNames
    let choices = ScrollMode.allCases.map(\.rawValue).joined(separator: ", ")
    guard !names.allSatisfy(\.isEmpty) else {
      throw ValidationErrorMessage("--modes is empty: give one or more of \(choices), separated by commas")
    }
    var seen = Set<String>()
    for name in names {
      guard !name.isEmpty else {
        throw ValidationErrorMessage("--modes '\(modes)' has an empty name between commas; choose from \(choices)")
      }
      guard ScrollMode(rawValue: name) != nil else {
        throw ValidationErrorMessage("--modes: unknown mode '\(name)'; choose from \(choices)")
      }
      guard seen.insert(name).inserted else { throw ValidationErrorMessage("--modes names '\(name)' twice") }
    }
  }

  /// The names in --modes, trimmed, empty ones kept (validate() refuses them).
  private var modeNames: [String] {
    modes.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
  }

  func run() throws {
    let selected = modeNames.compactMap { ScrollMode(rawValue: $0) }
    let feed = try Feed(rowCount: rows, imageCount: images)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("layerbench-images-\(getpid())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let imagePaths = try Feed.writeImages(count: images, to: directory)
    var script = FlingScript.standard
    script.prepare(maximumOffset: feed.contentHeight - ScrollSimulation.viewportHeight)

    var results: [ScrollSimulation.Result] = []
    for (index, mode) in selected.enumerated() {
      Terminal.progress(index, of: selected.count, label: "scroll modes")
      results.append(try runMode(mode, feed: feed, script: script, imagePaths: imagePaths))
    }
    Terminal.progress(selected.count, of: selected.count, label: "scroll modes")

    print(
      "\(rows) rows, viewport \(Int(ScrollSimulation.viewportHeight)) pt at scale \(scale), prefetch \(Int(prefetch)) pt, "
        + "\(backgroundLoad) background threads, "
        + "\(script.flings.count) flings, \(QueuePool.shared.queueCount) draw queues, 60 Hz loop\n")
    var table = TextTable(headers: [
      "mode", "frames", "dropped", "late", "p50 ms", "p99 ms", "max ms", "stale", "settle ms", "wasted CPU %",
    ])
    for r in results {
      table.add([
        r.mode, "\(r.frames)", "\(r.droppedFrames)", "\(r.lateFrames)", f(r.p50Ms, 2), f(r.p99Ms, 2), f(r.maxMs, 1),
        "\(r.staleFrames)",
        f(r.settleMs, 1), f(r.wastedCpuPercent, 1),
      ])
    }
    print(table.render())
    print()
    var draws = TextTable(headers: [
      "mode", "requested", "coalesced", "cancelled before start", "cancelled mid-draw", "discarded at commit",
      "committed", "CPU ms committed", "CPU ms cancelled", "CPU ms discarded", "image loads", "loads shed",
    ])
    for r in results {
      draws.add([
        r.mode, "\(r.requested)", "\(r.coalesced)", "\(r.cancelledBeforeStart)", "\(r.cancelledMidDraw)",
        "\(r.discardedAtCommit)", "\(r.committed)", f(r.cpuCommittedMs, 1), f(r.cpuCancelledMidDrawMs, 1),
        f(r.cpuDiscardedMs, 1), "\(r.imageLoads)", "\(r.imageLoadsShed)",
      ])
    }
    print(draws.render())
    if let json { try writeJSON(results, to: json) }
    if let chart {
      try LineChart(
        title: "Frame intervals over the run (ms)", xLabels: nil,
        series: results.map { ($0.mode, $0.frameTimesMs) }, threshold: ("16.7 ms", 1000 / 60.0)
      ).render().write(to: chart)
      print("\nwrote \(chart)")
    }
  }

  private func f(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }

  private func runMode(_ mode: ScrollMode, feed: Feed, script: FlingScript, imagePaths: [String]) throws
    -> ScrollSimulation.Result
  {
    let load = BackgroundLoad(threads: backgroundLoad)
    defer { load.stop() }
    let outcome = Mutex<ScrollSimulation.Result?>(nil)
    let failure = Mutex<String?>(nil)
    let done = DispatchSemaphore(value: 0)
    let recorder = LoopTurnRecorder()
    let loop = MainLoop.startOnNewThread(name: "layerbench.scroll") { loop in
      recorder.attach(to: loop)
      let simulation = ScrollSimulation(
        loop: loop, feed: feed, script: script, mode: mode, imagePaths: imagePaths, scale: scale,
        prefetch: prefetch, recorder: recorder
      ) { result in
        outcome.withLock { $0 = result }
        done.signal()
      }
      do {
        try simulation.start(on: loop)
        SimulationKeeper.keep(simulation, on: loop)
      } catch {
        failure.withLock { $0 = "\(error)" }
        done.signal()
      }
    }
    done.wait()
    loop.stop()
    if let message = failure.withLock({ $0 }) { throw ValidationErrorMessage(message) }
    return outcome.withLock { $0! }
  }
}

/// Holds each simulation for the life of the process: the loop's observers hold it only weakly,
/// and the command runs a handful of them.
enum SimulationKeeper {
  private static let kept = Mutex<[ObjectIdentifier: LoopBound<ScrollSimulation>]>([:])

  static func keep(_ simulation: ScrollSimulation, on loop: MainLoop) {
    kept.withLock { $0[ObjectIdentifier(simulation)] = LoopBound(simulation, loop: loop) }
  }
}

/// Threads that spin until stopped, so that the loop and the draw queues compete for the CPU.
final class BackgroundLoad: Sendable {
  private let running = Atomic<Bool>(true)
  private let stopped = DispatchSemaphore(value: 0)
  private let threads: Int

  init(threads: Int) {
    self.threads = threads
    for index in 0..<threads {
      let thread = Thread { [self] in
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        while running.load(ordering: .relaxed) {
          for _ in 0..<10_000 { x = x &* 6_364_136_223_846_793_005 &+ 1 }
        }
        if x == 42 { print("") }  // keeps the arithmetic from being optimised away
        stopped.signal()
      }
      thread.name = "layerbench.load.\(index)"
      thread.start()
    }
  }

  func stop() {
    guard running.exchange(false, ordering: .relaxed) else { return }
    for _ in 0..<threads { stopped.wait() }
  }
}
