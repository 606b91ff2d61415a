import ArgumentParser
import AsyncLayer
import Foundation

/// `layerbench throughput`: renders one tile many times per worker, without writing files.
struct ThroughputCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "throughput",
    abstract: "Render the same tile N times per worker and print tiles per second.",
    discussion: """
      With --workers K: one run, K workers. With --sweep: 1…--max-workers workers, render-only (glyphs through \
      the per-thread cache and through cairo's locked one) and render+PNG, each the median of --repeat runs \
      (configurations interleaved within each round, so that drift in machine speed hits all of them alike), \
      with the scaling ratio against one worker, the plain C pangocairo reference beside it \
      (bench/out/pango_reference, `make bench-c`), and render+PNG with cairo's writer against AsyncLayer's encoder.
      """
  )

  static let defaultText =
    "The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."

  @Option(help: "Text of the tile.")
  var text = ThroughputCommand.defaultText

  @Option(help: "Tiles each worker renders per run.")
  var tiles = 200

  @Option(help: "Worker threads (single run).")
  var workers = 1

  @Option(help: "PNG encoding per tile in a single run: none, fast (AsyncLayer's encoder) or cairo.")
  var png: PNGMode = .none

  @Option(help: "Glyph compositing in a single run: thread-cache (default) or cairo.")
  var glyphs: GlyphCompositing = .threadCache

  @Flag(help: "Sweep 1…--max-workers workers and compare with the C reference.")
  var sweep = false

  @Option(help: "Largest worker count of the sweep (default: active cores).")
  var maxWorkers = ProcessInfo.processInfo.activeProcessorCount

  @Option(name: .customLong("repeat"), help: "Runs per configuration in a sweep; the median is reported.")
  var repetitions = 5

  @Option(help: "The C reference binary.")
  var cReference = "bench/out/pango_reference"

  @Option(help: "Write the sweep's rows as JSON to this file.")
  var json: String?

  @Option(help: "Draw tiles per second per worker count into this PNG.")
  var chart: String?

  @OptionGroup var options: TextOptions

  enum PNGMode: String, ExpressibleByArgument, CaseIterable, Codable {
    case none, fast, cairo
  }

  func validate() throws {
    guard tiles > 0 else { throw ValidationError("--tiles must be at least 1") }
    guard workers > 0 else { throw ValidationError("--workers must be at least 1") }
    guard maxWorkers > 0 else { throw ValidationError("--max-workers must be at least 1") }
    guard repetitions > 0 else { throw ValidationError("--repeat must be at least 1") }
  }

  func run() throws {
    var tile = options.tile(.plain(text))
    tile.glyphCompositing = glyphs
    _ = try tile.render()  // fail early on bad input
    if sweep {
      try runSweep(tile)
      return
    }
    let seconds = measure(tile, workers: workers, png: png)
    let total = tiles * workers
    print(
      String(
        format: "%d tiles on %d worker(s), png %@, glyphs %@, in %.3f s: %.1f tiles/s (%.3f ms per tile per worker)",
        total, workers, png.rawValue, glyphs.rawValue, seconds, Double(total) / seconds, seconds * 1000 / Double(tiles))
    )
  }

  /// Wall seconds for `workers` threads each rendering (and encoding) `tiles` tiles.
  private func measure(_ tile: TextTile, workers: Int, png: PNGMode) -> Double {
    let tilesPerWorker = tiles
    let encoder = PNGEncoder()
    let work: @Sendable (Int) -> Void = { _ in
      for _ in 0..<tilesPerWorker {
        guard let image = try? tile.render().image else { continue }
        switch png {
        case .none: break
        case .fast: _ = try? encoder.encode(image)
        case .cairo: _ = try? image.cairoPNGData()
        }
      }
    }
    // One thread per worker, as the C reference does (and no libdispatch pool: valgrind 3.19
    // cannot follow its worker start-up). Each warms its own font map first, then all start
    // together: the sweep measures steady state, not thread start-up.
    let ready = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    for index in 0..<workers {
      let thread = Thread {
        _ = try? tile.render()
        ready.signal()
        go.wait()
        work(index)
        done.signal()
      }
      thread.start()
    }
    for _ in 0..<workers { ready.wait() }
    let start = ContinuousClock.now
    for _ in 0..<workers { go.signal() }
    for _ in 0..<workers { done.wait() }
    return (ContinuousClock.now - start) / .seconds(1)
  }

  struct SweepRow: Codable {
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

  private func runSweep(_ tile: TextTile) throws {
    var cairoGlyphs = tile
    cairoGlyphs.glyphCompositing = .cairo
    let steps = repetitions * (maxWorkers * 3 + 2) + maxWorkers
    var step = 0
    func progress() {
      step += 1
      Terminal.progress(step, of: steps, label: "throughput")
    }
    // Each round measures every configuration once, so a slow spell of the machine lands on all.
    var render = [[Double]](repeating: [], count: maxWorkers + 1)
    var viaCairo = render, withPNG = render
    var cairoPNGMs: [Double] = [], fastPNGMs: [Double] = []
    for _ in 0..<repetitions {
      for count in 1...maxWorkers {
        render[count].append(Double(tiles * count) / measure(tile, workers: count, png: .none))
        progress()
        viaCairo[count].append(Double(tiles * count) / measure(cairoGlyphs, workers: count, png: .none))
        progress()
        withPNG[count].append(Double(tiles * count) / measure(tile, workers: count, png: .fast))
        progress()
      }
      // Render + PNG, one worker: cairo's writer against AsyncLayer's encoder, same tiles.
      cairoPNGMs.append(measure(tile, workers: 1, png: .cairo) * 1000 / Double(tiles))
      progress()
      fastPNGMs.append(measure(tile, workers: 1, png: .fast) * 1000 / Double(tiles))
      progress()
    }
    var rows: [SweepRow] = []
    for count in 1...maxWorkers {
      let c = try cReferenceTilesPerSecond(threads: count)
      progress()
      let first = rows.first
      let renderMedian = median(render[count]), cairoMedian = median(viaCairo[count])
      let pngMedian = median(withPNG[count])
      rows.append(
        SweepRow(
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

    print(
      "Tile: \(image.pixelWidth)×\(image.pixelHeight) px, \(tiles) tiles per worker, median of \(repetitions) runs\n")
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
    if let json { try writeJSON(rows, to: json) }
    if let chart {
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
      ).render().writePNG(to: chart)
      print("wrote \(chart)")
    }
  }

  /// Median tiles per second of the C reference at `threads` threads, or nil when it is not built.
  private func cReferenceTilesPerSecond(threads: Int) throws -> Double? {
    guard FileManager.default.isExecutableFile(atPath: cReference) else { return nil }
    let runs = try (0..<repetitions).map { _ -> Double in
      let process = Process()
      process.executableURL = URL(fileURLWithPath: cReference)
      process.arguments = ["--tiles", "\(tiles)", "--threads", "\(threads)", "--text", text]
      let pipe = Pipe()
      process.standardOutput = pipe
      try process.run()
      let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      // "... : 0.123 s, 4567 tiles/s, 219.0 us/tile"
      guard let range = output.range(of: #"[0-9.]+ tiles/s"#, options: .regularExpression),
        let value = Double(output[range].split(separator: " ")[0])
      else { throw ValidationErrorMessage("unexpected output from \(cReference): \(output)") }
      return value
    }
    return median(runs)
  }
}
