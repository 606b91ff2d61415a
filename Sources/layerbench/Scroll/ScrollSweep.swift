import Foundation

/// The grid `layerbench scroll --sweep` runs: prefetch × fling speed × cell cost × background load
/// × mode, each point repeated, summarised by the median with its run-to-run spread.
struct ScrollSweep: Sendable {
  /// How much a cell costs to draw, set by its content: body length, pixels per point and images.
  struct Cost: Sendable, Codable, Equatable {
    var name: String
    var bodyLength: Double
    var scale: Double
    var imageEvery: Int

    /// The presets `--sweep-costs` names, lightest first.
    static let presets = [
      Cost(name: "light", bodyLength: 0.5, scale: 2, imageEvery: 10),
      Cost(name: "standard", bodyLength: 1, scale: 3, imageEvery: 5),
      Cost(name: "heavy", bodyLength: 2, scale: 3, imageEvery: 2),
      Cost(name: "huge", bodyLength: 4, scale: 4, imageEvery: 1),
    ]
  }

  /// A prefetch setting: the adaptive ranges, or a fixed distance in points.
  enum Prefetch: Sendable, Equatable, CustomStringConvertible {
    case adaptive
    case fixed(Double)

    init(parsing text: String) throws {
      if text == "adaptive" {
        self = .adaptive
      } else if let points = Double(text) {
        try Bounds.check(points, "--sweep-prefetch", 0...10_000, "points")
        self = .fixed(points)
      } else {
        throw ValidationErrorMessage("--sweep-prefetch: '\(text)' is neither 'adaptive' nor a number of points")
      }
    }

    var description: String {
      switch self {
      case .adaptive: "adaptive"
      case .fixed(let points): "\(Bounds.format(points)) pt"
      }
    }
  }

  /// One point of the grid, summarised over its repeats.
  struct Point: Sendable, Codable {
    var mode: String
    var prefetch: String
    var speed: Double
    var cost: String
    var backgroundLoad: Int
    var runs: Int
    var frames: Int
    var dropped: Spread
    var stalePercent: Spread
    var wastedPercent: Spread
    var settleMs: Spread
    var neverShownPercent: Spread
  }

  var prefetches: [Prefetch]
  var speeds: [Double]
  var costs: [Cost]
  var loads: [Int]
  var repeats: Int

  /// Parses the comma-separated axis options, each value checked.
  init(prefetch: String, speeds: String, costs: String, loads: String, repeats: Int) throws {
    func items(_ text: String) -> [String] {
      text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }
    prefetches = try items(prefetch).map(Prefetch.init(parsing:))
    self.speeds = try items(speeds).map { text in
      guard let value = Double(text) else { throw ValidationErrorMessage("--sweep-speeds: '\(text)' is not a number") }
      try Bounds.check(value, "--sweep-speeds", 0.1...10, "times")
      return value
    }
    self.costs = try items(costs).map { name in
      guard let cost = Cost.presets.first(where: { $0.name == name }) else {
        throw ValidationErrorMessage(
          "--sweep-costs: unknown cost '\(name)'; choose from \(Cost.presets.map(\.name).joined(separator: ", "))")
      }
      return cost
    }
    self.loads = try items(loads).map { text in
      guard let value = Int(text) else {
        throw ValidationErrorMessage("--sweep-loads: '\(text)' is not a whole number of threads")
      }
      try Bounds.check(value, "--sweep-loads", 0...64, "threads")
      return value
    }
    try Bounds.check(repeats, "--repeats", 1...100)
    self.repeats = repeats
  }

  /// Runs of the whole grid (every point × mode × repeat).
  var runCount: Int { prefetches.count * speeds.count * costs.count * loads.count * repeats }

  /// Summarises the repeats of one point.
  static func point(
    _ results: [ScrollSimulation.Result], prefetch: Prefetch, speed: Double, cost: Cost, load: Int
  ) -> Point {
    let first = results.first
    return Point(
      mode: first?.mode ?? "", prefetch: prefetch.description, speed: speed, cost: cost.name, backgroundLoad: load,
      runs: results.count, frames: first?.frames ?? 0,
      dropped: Spread(results.map { Double($0.droppedFrames) }),
      stalePercent: Spread(results.map { $0.frames > 0 ? 100 * Double($0.staleFrames) / Double($0.frames) : 0 }),
      wastedPercent: Spread(results.map(\.wastedCpuPercent)), settleMs: Spread(results.map(\.settleMs)),
      neverShownPercent: Spread(results.map(\.neverShownPercent)))
  }

  /// The label of a point on the charts' x axis: the axes that vary.
  func label(_ point: Point) -> String {
    var parts: [String] = []
    if prefetches.count > 1 { parts.append(point.prefetch) }
    if speeds.count > 1 { parts.append("×\(Bounds.format(point.speed))") }
    if costs.count > 1 { parts.append(point.cost) }
    return parts.isEmpty ? "default" : parts.joined(separator: " ")
  }

  /// One chart per metric: a line per mode (and background load when several), over the grid points.
  func charts(_ points: [Point]) -> [(metric: String, chart: LineChart)] {
    let metrics: [(String, String, (Point) -> Double)] = [
      ("dropped", "Dropped frames (median of \(repeats))", { $0.dropped.median }),
      ("stale", "Stale frames % (median of \(repeats))", { $0.stalePercent.median }),
      ("wasted", "Wasted draw CPU % (median of \(repeats))", { $0.wastedPercent.median }),
      ("settle", "Settle ms after a fling (median of \(repeats))", { $0.settleMs.median }),
    ]
    var lines: [(key: String, points: [Point])] = []
    for point in points {
      let key = loads.count > 1 ? "\(point.mode) load \(point.backgroundLoad)" : point.mode
      if let index = lines.firstIndex(where: { $0.key == key }) {
        lines[index].points.append(point)
      } else {
        lines.append((key, [point]))
      }
    }
    let xLabels = lines.first.map { $0.points.map(label) } ?? []
    return metrics.map { metric, title, value in
      (
        metric,
        LineChart(
          title: title, xLabels: xLabels, series: lines.map { ($0.key, $0.points.map(value)) })
      )
    }
  }

  /// `sweep.png` → `sweep-stale.png`.
  static func chartPath(_ path: String, metric: String) -> String {
    let url = URL(fileURLWithPath: path)
    let name = url.deletingPathExtension().lastPathComponent + "-\(metric)." + url.pathExtension
    let directory = (path as NSString).deletingLastPathComponent
    return directory.isEmpty ? name : "\(directory)/\(name)"
  }
}
