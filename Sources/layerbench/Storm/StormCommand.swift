import ArgumentParser
import AsyncLayer
import Foundation

/// `layerbench storm`: content that changes faster than it can be drawn — a live resize of a chat
/// column and typing into a long multilingual paragraph — per drawing mode.
struct StormCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "storm",
    abstract: "Redraw storms (live resize, typing) on a 60 Hz loop: what cancelling stale draws saves.",
    discussion: """
      resize: --layers text layers (a chat column) get a new width every frame for the storm's length, \
      then stop. typing: one long multilingual paragraph gains a character per keystroke at \
      --keys-per-second. For each mode: dropped frames from the storm's start to the final pixels, the time \
      from the last change to the final pixels committed (settle), draw CPU against the minimum (one draw \
      of each layer's final state), wasted CPU (cancelled and discarded draws), the pool's peak backlog, \
      and whether every layer's final pixels equal a synchronous render of its final state.
      """
  )

  @Option(help: "Comma-separated scenarios: resize, typing.")
  var scenarios = StormScenario.allCases.map(\.rawValue).joined(separator: ",")

  @Option(help: "Comma-separated modes: sync, async-nocancel, async, async-finish.")
  var modes = StormMode.allCases.map(\.rawValue).joined(separator: ",")

  @Option(
    help:
      "Comma-separated storm lengths in seconds, 0.1–30 each (default: 2 for resize, 5 for typing); several show the backlog growing."
  )
  var lengths: String?

  @Option(parsing: .unconditional, help: "Layers in the resized column, 1–500.")
  var layers = 60

  @Option(parsing: .unconditional, help: "Keystrokes per second while typing, 1–60.")
  var keysPerSecond: Double = 20

  @Option(parsing: .unconditional, help: "Words in the typed-into paragraph, 10–20000.")
  var paragraphWords = 6000

  @Option(parsing: .unconditional, help: "Device pixels per point of the resized layers, 0.1–4 (typing draws at 2).")
  var scale: Double = 3

  @Option(parsing: .unconditional, help: "Busy threads competing for the CPU, 0–64.")
  var backgroundLoad = 0

  @Option(parsing: .unconditional, help: "Seconds to wait for the final pixels after a storm, 1–600.")
  var settleLimit: Double = 60

  @OptionGroup var measurement: MeasurementOptions<StormCommand>

  func validate() throws {
    try Bounds.check(layers, "--layers", 1...500)
    try Bounds.check(keysPerSecond, "--keys-per-second", 1...60, "keys per second")
    try Bounds.check(paragraphWords, "--paragraph-words", 10...20_000)
    try Bounds.check(scale, "--scale", 0.1...4, "pixels per point")
    try Bounds.check(backgroundLoad, "--background-load", 0...64, "threads")
    try Bounds.check(settleLimit, "--settle-limit", 1...600, "seconds")
    _ = try NameList.parse(scenarios, option: "--scenarios", as: StormScenario.self, noun: "scenario")
    _ = try NameList.parse(modes, option: "--modes", as: StormMode.self)
    _ = try parsedLengths()
  }

  /// The storm lengths given, each checked.
  private func parsedLengths() throws -> [Double]? {
    guard let lengths else { return nil }
    let values = lengths.split(separator: ",", omittingEmptySubsequences: false).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    return try values.map { text in
      guard let value = Double(text) else {
        throw ValidationErrorMessage("--lengths: '\(text)' is not a number of seconds")
      }
      try Bounds.check(value, "--lengths", 0.1...30, "seconds")
      return value
    }
  }

  func run() throws {
    let scenarioList = try NameList.parse(scenarios, option: "--scenarios", as: StormScenario.self, noun: "scenario")
    let modeList = try NameList.parse(modes, option: "--modes", as: StormMode.self)
    let given = try parsedLengths()
    var plan: [StormSimulation.Setup] = []
    for scenario in scenarioList {
      for length in given ?? [scenario == .resize ? 2 : 5] {
        for mode in modeList {
          plan.append(
            StormSimulation.Setup(
              scenario: scenario, mode: mode, length: .milliseconds(Int64((length * 1000).rounded())),
              layerCount: layers, keysPerSecond: keysPerSecond, scale: scale, paragraphWords: paragraphWords,
              settleLimit: .milliseconds(Int64((settleLimit * 1000).rounded()))))
        }
      }
    }
    var groups: [[StormSimulation.Result]] = []
    let repeats = measurement.repeats
    for (index, setup) in plan.enumerated() {
      var runs: [StormSimulation.Result] = []
      for run in 0..<repeats {
        Terminal.progress(index * repeats + run, of: plan.count * repeats, label: "storms")
        runs.append(
          try LoopRun.run(name: "layerbench.storm", backgroundLoad: backgroundLoad) { loop, finish in
            let simulation = StormSimulation(loop: loop, setup: setup, finish: finish)
            try simulation.start(on: loop)
            return simulation
          })
      }
      groups.append(runs)
    }
    Terminal.progress(plan.count * repeats, of: plan.count * repeats, label: "storms")
    print(
      "resize: \(layers) layers at scale \(scale); typing: \(paragraphWords) words at "
        + "\(Bounds.format(keysPerSecond)) keys/s, scale \(StormSimulation.typingScale); \(backgroundLoad) background threads, \(QueuePool.shared.queueCount) draw queues, 60 Hz loop; "
        + "median of \(repeats) runs (min–max in parentheses)\n")
    print(Self.table(groups).render())
    for runs in groups {
      let drawn = runs.compactMap(\.medianLinesDrawn), lines = runs.compactMap(\.lineCount)
      guard let first = runs.first, !drawn.isEmpty, !lines.isEmpty else { continue }
      print(
        "\(first.scenario) \(first.mode) \(Bounds.format(first.lengthSeconds)) s: a finished draw drew "
          + "\(Bounds.format(median(drawn))) of \(Bounds.format(median(lines.map(Double.init)))) lines (medians)")
    }
    if let json = measurement.json { try writeJSON(groups.flatMap { $0 }, to: json) }
    if measurement.chart != nil,
      Self.chart(groups, metric: .settle).series.isEmpty || Set(groups.joined().map(\.lengthSeconds)).count < 2
    {
      print("\nno chart: it shows storms over their lengths; pass --lengths with two or more")
    } else if let chart = measurement.chart {
      try Self.chart(groups, metric: .settle).render().write(to: chart)
      let backlog = ScrollSweep.chartPath(chart, metric: "backlog")
      try Self.chart(groups, metric: .backlog).render().write(to: backlog)
      print("\nwrote \(chart)\nwrote \(backlog)")
    }
  }

  /// One row per storm: medians over its runs, with the spread.
  static func table(_ groups: [[StormSimulation.Result]]) -> TextTable {
    var table = TextTable(headers: [
      "scenario", "mode", "length s", "changes", "dropped", "settle ms", "settle frames", "CPU ms", "minimum CPU ms",
      "CPU × minimum", "wasted %", "peak backlog", "final = sync",
    ])
    for runs in groups {
      guard let first = runs.first else { continue }
      let settled = runs.compactMap(\.summary.settleMs)
      let settledRuns = runs.filter { $0.summary.settleMs != nil && $0.summary.minimumCpuMs > 0 }
      let unsettled = runs.count - settled.count
      func spread(_ value: (StormSimulation.Result) -> Double) -> String { Spread(runs.map(value)).text }
      table.add([
        first.scenario, first.mode, Bounds.format(first.lengthSeconds), spread { Double($0.changes) },
        spread { Double($0.summary.droppedFrames) },
        (settled.isEmpty ? "" : Spread(settled).text) + (unsettled > 0 ? " (\(unsettled) not settled)" : ""),
        settled.isEmpty ? "-" : Spread(runs.compactMap(\.summary.settleFrames)).text,
        spread(\.summary.cpuMs),
        // The minimum (each layer's final draw) and the final pixels exist only for settled runs.
        settledRuns.isEmpty ? "-" : Spread(settledRuns.map(\.summary.minimumCpuMs)).text,
        settledRuns.isEmpty ? "-" : Spread(settledRuns.map { $0.summary.cpuMs / $0.summary.minimumCpuMs }).text,
        spread(\.summary.wastedPercent), spread { Double($0.peakBacklog) },
        settledRuns.isEmpty
          ? "-" : settledRuns.map { "\($0.layersMatchingSync)/\($0.layers)" }.joined(separator: " "),
      ])
    }
    return table
  }

  /// What a storm chart shows over the storm's length.
  enum ChartMetric {
    /// From the last change to the final pixels.
    case settle
    /// The most draws queued or running on the pool.
    case backlog
  }

  /// A median over storm length, one line per scenario and mode.
  static func chart(_ groups: [[StormSimulation.Result]], metric: ChartMetric) -> LineChart {
    let results = groups.flatMap { $0 }
    let lengths = Array(Set(results.map(\.lengthSeconds))).sorted()
    var series: [(name: String, values: [Double])] = []
    for scenario in StormScenario.allCases {
      for mode in StormMode.allCases {
        let runs = results.filter { $0.scenario == scenario.rawValue && $0.mode == mode.rawValue }
        // A line over lengths this storm was not run at would fall to zero there.
        guard lengths.allSatisfy({ length in runs.contains { $0.lengthSeconds == length } }) else { continue }
        series.append(
          (
            "\(scenario.rawValue) \(mode.rawValue)",
            lengths.map { length in
              let same = runs.filter { $0.lengthSeconds == length }
              switch metric {
              case .settle: return median(same.compactMap(\.summary.settleMs))
              case .backlog: return median(same.map { Double($0.peakBacklog) })
              }
            }
          ))
      }
    }
    let title =
      metric == .settle
      ? "Time from the last change to the final pixels (ms, median) by storm length (s)"
      : "Peak draws queued or running on the pool (median) by storm length (s)"
    return LineChart(
      title: title,
      xLabels: lengths.map { Bounds.format($0) }, series: series)
  }
}

extension StormCommand: MeasuringCommand {
  static let jsonHelp = "Write one JSON object per run to this file."
  static let chartHelp = "Chart settle time per storm length and mode into this image (.png, .jpg)."
  static let repeats: RepeatsOption? = RepeatsOption(
    help: "Runs per storm (the median and the spread are reported), 1–100.")
}
