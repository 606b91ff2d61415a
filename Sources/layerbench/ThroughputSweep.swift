@_spi(Benchmarks) import AsyncLayer
import AsyncLayerTestSupport
import Foundation

/// `layerbench throughput --sweep`: 1…`--max-workers` workers, render-only through both glyph paths
/// and render+PNG, each the median of `--repeat` runs with configurations interleaved within each
/// round; the C reference beside them, and cairo's PNG writer against AsyncLayer's encoder.
struct ThroughputSweep {
  /// The command's options (tiles per worker, workers, repeats, outputs, the C reference).
  var command: ThroughputCommand
  /// The single tile (the C reference's, and the one whose PNG both encoders write).
  var tile: TextTile
  var source: ThroughputCommand.TileSource

  private var tiles: Int { command.tiles }
  private var maxWorkers: Int { command.maxWorkers }
  private var repetitions: Int { command.measurement.repeats }
  private var workload: ThroughputCommand.Workload { command.workload }
  private var cReference: String { command.cReference }

  /// One worker count's medians, as --json writes them.
  struct Row: Codable {
    var workers: Int
    var renderTilesPerSecond: Double
    var renderScaling: Double
    var cairoGlyphsTilesPerSecond: Double
    var cairoGlyphsScaling: Double
    var renderPNGTilesPerSecond: Double
    var renderPNGScaling: Double
    var cTilesPerSecond: Double?
    var cScaling: Double?
  }

  /// Prints the sweep's run count and estimated time (from three timed tiles: render and PNG);
  /// refuses one past an hour without `--yes`.
  private func announce(steps: Int) throws {
    let start = ContinuousClock.now
    for index in 0..<3 {
      let image = try source.tile(0, index).render().image
      _ = try PNGEncoder().encode(image)
    }
    let elapsed = ContinuousClock.now - start
    let perTile =
      (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) / 3
    let cores = Double(max(ProcessInfo.processInfo.activeProcessorCount, 1))
    // Tiles one after the other on one core: each worker count's three runs, the two PNG runs, and
    // the C reference (about one more run per worker count).
    var tileTimes = 0.0
    for count in 1...maxWorkers {
      tileTimes += 4 * Double(tiles * count) / min(Double(count), cores)
    }
    let seconds = (Double(repetitions) * (tileTimes * 3 / 4 + 2 * Double(tiles)) + tileTimes / 4) * perTile
    try SweepEstimate.announce(
      "throughput sweep", runs: steps, seconds: seconds,
      basis: String(format: "%.2f ms per tile here, %d core(s)", perTile * 1000, Int(cores)), confirmed: command.yes)
  }

  func run() throws {
    let cairoGlyphs = source.with(glyphs: .cairo)
    let steps = repetitions * (maxWorkers * 3 + 2) + maxWorkers
    try announce(steps: steps)
    var step = 0
    func progress() {
      step += 1
      Terminal.progress(step, of: steps, label: "throughput")
    }
    // Each round measures every configuration once, so a slow spell of the machine lands on all.
    var render = [[Double]](repeating: [], count: maxWorkers + 1)
    var viaCairo = render, withPNG = render
    var cairoPNGMs: [Double] = [], fastPNGMs: [Double] = []
    var lockTaken = 0, lockTiles = 0  // over the timed render runs (the library's glyph path)
    for _ in 0..<repetitions {
      for count in 1...maxWorkers {
        let run = command.timedRun(source, workers: count, png: .none)
        render[count].append(Double(tiles * count) / run.seconds)
        lockTaken += run.locks
        lockTiles += tiles * count
        progress()
        viaCairo[count].append(Double(tiles * count) / command.measure(cairoGlyphs, workers: count, png: .none))
        progress()
        withPNG[count].append(Double(tiles * count) / command.measure(source, workers: count, png: .fast))
        progress()
      }
      // Render + PNG, one worker: cairo's writer against AsyncLayer's encoder, same tiles.
      cairoPNGMs.append(command.measure(source, workers: 1, png: .cairo) * 1000 / Double(tiles))
      progress()
      fastPNGMs.append(command.measure(source, workers: 1, png: .fast) * 1000 / Double(tiles))
      progress()
    }
    var rows: [Row] = []
    for count in 1...maxWorkers {
      // The C reference draws the single tile only.
      let c = workload == .single ? try cReferenceTilesPerSecond(threads: count) : nil
      progress()
      let first = rows.first
      let renderMedian = median(render[count]), cairoMedian = median(viaCairo[count])
      let pngMedian = median(withPNG[count])
      rows.append(
        Row(
          workers: count, renderTilesPerSecond: renderMedian,
          renderScaling: renderMedian / (first?.renderTilesPerSecond ?? renderMedian),
          cairoGlyphsTilesPerSecond: cairoMedian,
          cairoGlyphsScaling: cairoMedian / (first?.cairoGlyphsTilesPerSecond ?? cairoMedian),
          renderPNGTilesPerSecond: pngMedian,
          renderPNGScaling: pngMedian / (first?.renderPNGTilesPerSecond ?? pngMedian), cTilesPerSecond: c,
          cScaling: c.map { $0 / (first?.cTilesPerSecond ?? $0) }))
    }
    let cairo = median(cairoPNGMs)
    let fast = median(fastPNGMs)
    let image = try tile.render().image
    let identical =
      try RenderedImage(pngData: PNGEncoder().encode(image)).pixels
      == RenderedImage(pngData: image.cairoPNGData()).pixels

    switch workload {
    case .single:
      print(
        "Tile: \(image.pixelWidth)×\(image.pixelHeight) px, \(tiles) tiles per worker, median of \(repetitions) runs\n")
    case .mixed:
      let verified = try verifyMixedPixels(workers: maxWorkers)
      print(
        "Mixed workload: \(command.mixedTiles) distinct tiles (9 families, weights 100–900, italic, sizes 9–36, "
          + "scales 1–3, 9 scripts), \(tiles) tiles per worker, median of \(repetitions) runs; pixels on "
          + "\(maxWorkers) workers equal to one thread alone: \(verified)\n")
    }
    print(
      "Font-cache lock (cache misses; cairo's own glyph path): taken \(lockTaken) times in the \(lockTiles) "
        + String(
          format: "timed render tiles (after each worker's warm-up): %.2f per 1,000 tiles\n",
          Double(lockTaken) * 1000 / Double(max(1, lockTiles))))
    var table = TextTable(headers: [
      "workers", "render tiles/s", "× 1 worker", "cairo glyphs tiles/s", "× 1 worker", "render+PNG tiles/s",
      "× 1 worker", "C tiles/s", "× 1 thread",
    ])
    for row in rows {
      table.add([
        "\(row.workers)", String(format: "%.0f", row.renderTilesPerSecond), String(format: "%.2f", row.renderScaling),
        String(format: "%.0f", row.cairoGlyphsTilesPerSecond), String(format: "%.2f", row.cairoGlyphsScaling),
        String(format: "%.0f", row.renderPNGTilesPerSecond), String(format: "%.2f", row.renderPNGScaling),
        row.cTilesPerSecond.map { String(format: "%.0f", $0) } ?? "n/a",
        row.cScaling.map { String(format: "%.2f", $0) } ?? "n/a",
      ])
    }
    print(table.render())
    print(
      String(
        format:
          "\nrender+PNG per tile, 1 worker: cairo_surface_write_to_png %.3f ms, AsyncLayer PNGEncoder %.3f ms: %.1f× faster; decoded pixels identical: %@",
        cairo, fast, cairo / fast, identical ? "yes" : "NO"))
    if rows.first?.cTilesPerSecond == nil {
      print("(C reference not found at \(cReference): `make bench-c` builds it)")
    }
    if let json = command.measurement.json {
      try writeJSON(rows, to: json)
      print("wrote \(json)")
    }
    if let chart = command.measurement.chart {
      var series: [(name: String, values: [Double])] = [
        ("render", rows.map(\.renderTilesPerSecond)), ("render, cairo glyphs", rows.map(\.cairoGlyphsTilesPerSecond)),
        ("render+PNG", rows.map(\.renderPNGTilesPerSecond)),
      ]
      if rows.allSatisfy({ $0.cTilesPerSecond != nil }) {
        series.append(("C reference", rows.map { $0.cTilesPerSecond! }))
      }
      try BarChart(
        title: "Tiles per second by worker count", categories: rows.map { "\($0.workers) worker(s)" },
        series: series
      ).render().write(to: chart)
      print("wrote \(chart)")
    }
  }

  /// Renders every mixed tile alone, then all of them on `workers` threads at once (each in its own
  /// order, both glyph paths), and counts the tiles whose pixels differ from the lone render.
  private func verifyMixedPixels(workers: Int) throws -> String {
    let count = command.mixedTiles
    let reference = try (0..<count).map { try MixedTextWorkload.tile($0).render().image }
    let mismatches = ThreadSanitizedMutex(0)
    let done = DispatchSemaphore(value: 0)
    for worker in 0..<workers {
      Thread {
        for step in 0..<count {
          let index = (step * 7 + worker * 31) % count
          for glyphs in GlyphCompositing.allCases {
            var tile = MixedTextWorkload.tile(index)
            tile.glyphCompositing = glyphs
            if (try? tile.render().image) != reference[index] { mismatches.withLock { $0 += 1 } }
          }
        }
        done.signal()
      }.start()
    }
    for _ in 0..<workers { done.wait() }
    let differing = mismatches.withLock { $0 }
    let rendered = count * workers * GlyphCompositing.allCases.count
    return differing == 0 ? "yes (\(rendered) tiles)" : "NO: \(differing) of \(rendered) tiles differ"
  }

  /// Median tiles per second of the C reference at `threads` threads, or nil when it is not built.
  /// Each run is killed after `--c-reference-timeout` seconds; its output is kept to an excerpt.
  private func cReferenceTilesPerSecond(threads: Int) throws -> Double? {
    guard FileManager.default.isExecutableFile(atPath: cReference) else { return nil }
    let runs = try (0..<repetitions).map { _ -> Double in
      let arguments = ["--tiles", "\(tiles)", "--threads", "\(threads)", "--text", command.text]
      let outcome: ChildProcess.Outcome
      do {
        outcome = try ChildProcess.run(cReference, arguments: arguments, timeout: command.cReferenceTimeout)
      } catch {
        throw ValidationErrorMessage("C reference \(cReference): \(error)")
      }
      if outcome.timedOut {
        throw ValidationErrorMessage(
          "C reference \(cReference) did not finish in \(Bounds.format(command.cReferenceTimeout)) s "
            + "(--c-reference-timeout) and was killed; its output: \(outcome.excerpt)")
      }
      guard outcome.status == 0 else {
        throw ValidationErrorMessage("C reference \(cReference) \(outcome.ending); its output: \(outcome.excerpt)")
      }
      // "... : 0.123 s, 4567 tiles/s, 219.0 us/tile"
      let output = String(decoding: outcome.stdout, as: UTF8.self)
      guard let range = output.range(of: #"[0-9.]+ tiles/s"#, options: .regularExpression),
        let value = Double(output[range].split(separator: " ")[0])
      else { throw ValidationErrorMessage("unexpected output from \(cReference): \(outcome.excerpt)") }
      return value
    }
    return median(runs)
  }
}
