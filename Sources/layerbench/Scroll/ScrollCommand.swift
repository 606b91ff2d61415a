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
      "A fixed prefetch instead of the adaptive ranges: points above and below the viewport whose rows get cells and draws ahead of time, 0–10000 (0: none)."
  )
  var prefetch: Double?

  @Option(
    parsing: .unconditional,
    help:
      "Adaptive ranges: screens drawn ahead of the viewport in the scroll direction at least, 0–20 (cells and images are bound twice as far)."
  )
  var displayAhead: Double = 1

  @Option(
    parsing: .unconditional,
    help: "Adaptive ranges: seconds of travel at the current speed drawn ahead when that reaches further, 0–5.")
  var lookahead: Double = 0.2

  @Option(parsing: .unconditional, help: "Multiplies every fling's velocity, 0.1–10.")
  var speed: Double = 1

  @Option(
    parsing: .unconditional,
    help: "Multiplies every row's body length (words, so lines), 0.1–10: the cost of a cell's text.")
  var bodyLength: Double = 1

  @Option(parsing: .unconditional, help: "An image on every Nth row, 1–1000.")
  var imageEvery = 5

  @Option(
    parsing: .unconditional,
    help: "Busy threads competing for the CPU during each mode, 0–64 (other work on the device: decoding, parsing).")
  var backgroundLoad = 0

  @Flag(
    help:
      "Run the grid --sweep-prefetch × --sweep-speeds × --sweep-costs × --sweep-loads for every mode, --repeats times per point; --chart names one chart per metric (NAME-dropped.png, -stale, -wasted, -settle)."
  )
  var sweep = false

  @Flag(help: "Run a sweep estimated at more than an hour (the run count and estimate are printed first).")
  var yes = false

  @Option(help: "Sweep: comma-separated prefetch settings, 'adaptive' or points (fixed), e.g. 0,600,adaptive.")
  var sweepPrefetch = "adaptive"

  @Option(help: "Sweep: comma-separated fling speed factors, 0.1–10 each.")
  var sweepSpeeds = "0.5,1,2,4"

  @Option(
    help:
      "Sweep: comma-separated cell costs: light (body ×0.5, scale 2, image every 10th row), standard (×1, 3, 5th), heavy (×2, 3, 2nd), huge (×4, 4, every row)."
  )
  var sweepCosts = "light,standard,heavy"

  @Option(help: "Sweep: comma-separated background loads (busy threads), 0–64 each.")
  var sweepLoads = "0,2"

  @OptionGroup var measurement: MeasurementOptions<ScrollCommand>

  func validate() throws {
    try Bounds.check(rows, "--rows", Self.rowRange)
    try Bounds.check(images, "--images", Self.imageRange)
    try Bounds.check(scale, "--scale", 0.1...4, "pixels per point")
    try Bounds.check(backgroundLoad, "--background-load", 0...64, "threads")
    if let prefetch { try Bounds.check(prefetch, "--prefetch", 0...10_000, "points") }
    try Bounds.check(displayAhead, "--display-ahead", 0...20, "screens")
    try Bounds.check(lookahead, "--lookahead", 0...5, "seconds")
    try Bounds.check(speed, "--speed", 0.1...10, "times")
    try Bounds.check(bodyLength, "--body-length", 0.1...10, "times")
    try Bounds.check(imageEvery, "--image-every", 1...1000, "rows")
    _ = try NameList.parse(modes, option: "--modes", as: ScrollMode.self)
    if sweep {
      _ = try sweepGrid()
    } else if measurement.repeats != 1 {
      throw ValidationErrorMessage("--repeats applies to --sweep only (got \(measurement.repeats) without it)")
    }
  }

  private func sweepGrid() throws -> ScrollSweep {
    try ScrollSweep(
      prefetch: sweepPrefetch, speeds: sweepSpeeds, costs: sweepCosts, loads: sweepLoads, repeats: measurement.repeats)
  }

  func run() throws {
    let selected = try NameList.parse(modes, option: "--modes", as: ScrollMode.self)
    if sweep { return try runSweep(selected) }
    let feed = try Feed(rowCount: rows, imageCount: images, bodyLength: bodyLength, imageEvery: imageEvery)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("layerbench-images-\(getpid())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let imagePaths = try Feed.writeImages(count: images, to: directory)
    var script = FlingScript.standard.scaled(by: speed)
    script.prepare(maximumOffset: feed.contentHeight - ScrollSimulation.viewportHeight)

    var results: [ScrollSimulation.Result] = []
    for (index, mode) in selected.enumerated() {
      Terminal.progress(index, of: selected.count, label: "scroll modes")
      results.append(
        try runMode(
          mode, feed: feed, script: script, imagePaths: imagePaths, scale: scale, policy: policy(for: mode),
          backgroundLoad: backgroundLoad))
    }
    Terminal.progress(selected.count, of: selected.count, label: "scroll modes")

    print(
      "\(rows) rows, viewport \(Int(ScrollSimulation.viewportHeight)) pt at scale \(scale), "
        + "fling speed ×\(speed), body length ×\(bodyLength), an image every \(imageEvery) rows, "
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
    print("\nranges: \(policy(for: .async).description) (sync: \(policy(for: .sync).description))\n")
    printDiagnosis(results)
    if let json = measurement.json { try writeJSON(results, to: json) }
    if let chart = measurement.chart {
      try LineChart(
        title: "Frame intervals over the run (ms)", xLabels: nil,
        series: results.map { ($0.mode, $0.frameTimesMs) }, threshold: ("16.7 ms", 1000 / 60.0)
      ).render().write(to: chart)
      print("\nwrote \(chart)")
    }
  }

  private func f(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }

  /// The working ranges a mode uses: `--prefetch` when given; otherwise the adaptive ranges for
  /// the pool's modes, and none for `sync` (it draws each row in the turn it becomes visible, so
  /// drawing ahead would only add work to the loop's turns).
  func policy(for mode: ScrollMode) -> PrefetchPolicy {
    if let prefetch { return .fixed(points: prefetch) }
    return mode == .sync ? .none : .adaptive(displayAhead: displayAhead, lookahead: lookahead)
  }

  /// Prints the sweep's run count and estimated time; refuses one past an hour without `--yes`.
  /// Each run plays its fling script in real time and then waits 400 ms for the feed to settle, so
  /// the script's length (unclamped by the feed's end) times the runs is what the sweep takes.
  private func announce(_ grid: ScrollSweep, modes: Int) throws {
    var perSpeedSeconds = 0.0
    for speed in grid.speeds {
      var script = FlingScript.standard.scaled(by: speed)
      script.prepare(maximumOffset: .greatestFiniteMagnitude)
      perSpeedSeconds +=
        Double(script.duration.components.seconds) + 0.4
        + Double(script.duration.components.attoseconds) / 1e18
    }
    let others = grid.prefetches.count * grid.costs.count * grid.loads.count * grid.repeats * modes
    let seconds = perSpeedSeconds * Double(others)
    try SweepEstimate.announce(
      "scroll sweep", runs: grid.runCount * modes, seconds: seconds,
      basis:
        "each run plays a fling script of about \(SweepEstimate.duration(perSpeedSeconds / Double(max(grid.speeds.count, 1)))) in real time",
      confirmed: yes)
  }

  /// The sweep: every grid point per mode, repeated; a table, JSON and one chart per metric.
  private func runSweep(_ selected: [ScrollMode]) throws {
    let grid = try sweepGrid()
    try announce(grid, modes: selected.count)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("layerbench-images-\(getpid())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let imagePaths = try Feed.writeImages(count: images, to: directory)
    var points: [ScrollSweep.Point] = []
    let total = grid.runCount * selected.count
    var done = 0
    for load in grid.loads {
      for prefetch in grid.prefetches {
        for cost in grid.costs {
          let feed = try Feed(
            rowCount: rows, imageCount: images, bodyLength: cost.bodyLength, imageEvery: cost.imageEvery)
          for speed in grid.speeds {
            var script = FlingScript.standard.scaled(by: speed)
            script.prepare(maximumOffset: feed.contentHeight - ScrollSimulation.viewportHeight)
            for mode in selected {
              var runs: [ScrollSimulation.Result] = []
              for _ in 0..<grid.repeats {
                Terminal.progress(done, of: total, label: "sweep runs")
                let policy: PrefetchPolicy
                switch prefetch {
                case .fixed(let points): policy = .fixed(points: points)
                case .adaptive: policy = self.policy(for: mode)
                }
                runs.append(
                  try runMode(
                    mode, feed: feed, script: script, imagePaths: imagePaths, scale: cost.scale, policy: policy,
                    backgroundLoad: load))
                done += 1
              }
              points.append(ScrollSweep.point(runs, prefetch: prefetch, speed: speed, cost: cost, load: load))
            }
          }
        }
      }
    }
    Terminal.progress(total, of: total, label: "sweep runs")
    print(
      "\(rows) rows, viewport \(Int(ScrollSimulation.viewportHeight)) pt, \(QueuePool.shared.queueCount) draw queues, "
        + "60 Hz loop; median of \(grid.repeats) runs per point (min–max in parentheses)\n")
    var table = TextTable(headers: [
      "prefetch", "speed", "cost", "load", "mode", "frames", "dropped", "stale %", "wasted CPU %", "settle ms",
      "never shown CPU %",
    ])
    for p in points {
      table.add([
        p.prefetch, "×\(Bounds.format(p.speed))", p.cost, "\(p.backgroundLoad)", p.mode, "\(p.frames)", p.dropped.text,
        p.stalePercent.text, p.wastedPercent.text, p.settleMs.text, p.neverShownPercent.text,
      ])
    }
    print(table.render())
    if let json = measurement.json { try writeJSON(points, to: json) }
    if let chart = measurement.chart {
      for (metric, lineChart) in grid.charts(points) {
        let path = ScrollSweep.chartPath(chart, metric: metric)
        try lineChart.render().write(to: path)
        print("wrote \(path)")
      }
    }
  }

  /// Why visible cells were stale, and how long committed draws waited, drew and took to commit.
  private func printDiagnosis(_ results: [ScrollSimulation.Result]) {
    var table = TextTable(headers: [
      "mode", "stale cells", "bound this frame", "held", "queued", "drawing", "awaiting commit", "no draw",
      "queue p50/p95 ms", "draw p50/p95 ms", "commit hop p50/p95 ms", "never shown CPU %",
    ])
    for r in results {
      let c = r.staleCauses
      let t = r.drawTimings
      table.add([
        r.mode, "\(c.total)", "\(c.boundThisFrame)", "\(c.held)", "\(c.queued)", "\(c.drawing)",
        "\(c.awaitingCommit)", "\(c.noDraw)", "\(f(t.queueWaitP50Ms, 1))/\(f(t.queueWaitP95Ms, 1))",
        "\(f(t.drawP50Ms, 1))/\(f(t.drawP95Ms, 1))", "\(f(t.commitHopP50Ms, 1))/\(f(t.commitHopP95Ms, 1))",
        f(r.neverShownPercent, 1),
      ])
    }
    print(table.render())
  }

  private func runMode(
    _ mode: ScrollMode, feed: Feed, script: FlingScript, imagePaths: [String], scale: Double, policy: PrefetchPolicy,
    backgroundLoad: Int
  ) throws -> ScrollSimulation.Result {
    try LoopRun.run(name: "layerbench.scroll", backgroundLoad: backgroundLoad) { loop, finish in
      let recorder = LoopTurnRecorder()
      recorder.attach(to: loop)
      let simulation = ScrollSimulation(
        loop: loop, feed: feed, script: script, mode: mode, imagePaths: imagePaths, scale: scale,
        prefetch: policy, recorder: recorder, finish: finish)
      try simulation.start(on: loop)
      return simulation
    }
  }
}

extension ScrollCommand: MeasuringCommand {
  static let jsonHelp = "Write one JSON object per mode to this file."
  static let chartHelp = "Draw loop turn times over the run, per mode, into this image (.png, .jpg)."
  static let repeats: RepeatsOption? = RepeatsOption(
    help: "Sweep: runs per point (the median and the spread are reported), 1–100.")
}
