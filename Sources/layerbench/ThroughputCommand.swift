import ArgumentParser
@_spi(Benchmarks) import AsyncLayer
import AsyncLayerTestSupport
import Foundation

/// `layerbench throughput`: renders one tile many times per worker, without writing files.
struct ThroughputCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "throughput",
    abstract: "Render the same tile N times per worker and print tiles per second.",
    discussion: """
      With --workers K: one run, K workers (--json writes its result, --chart draws its tiles per second). \
      With --sweep: 1…--max-workers workers, render-only (glyphs through \
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

  @Option(
    help: ArgumentHelp(
      "single: one tile (--text, the style options) over and over; mixed: tiles rotating through 9 families, all weights, italic, sizes 9–36, scales 1–3 and 9 scripts.",
      valueName: "single|mixed"))
  var workload: Workload = .single

  /// Workers are OS threads, each with its own Pango font map and glyph cache: 64 is 32 times this
  /// project's 2 cores, far past any useful oversubscription, and the same bound on every machine
  /// (a command line that works on one works on all). 100 000 exhausted GLib's threads.
  static let maximumWorkers = 64
  /// A run's length grows with tiles × workers (× repetitions × 3 × workers in a sweep).
  static let maximumTiles = 100_000
  static let maximumRepetitions = 100
  /// The sweep's pixel check keeps one reference image per distinct tile (up to ~1 MB each).
  static let maximumMixedTiles = 500

  @Option(parsing: .unconditional, help: "Tiles each worker renders per run, 1–100000.")
  var tiles = 200

  @Option(parsing: .unconditional, help: "Worker threads (single run), 1–64.")
  var workers = 1

  @Option(help: "PNG encoding per tile in a single run: none, fast (AsyncLayer's encoder) or cairo.")
  var png: PNGMode = .none

  @Option(help: "Glyph compositing in a single run: thread-cache (default) or cairo.")
  var glyphs: GlyphCompositing = .threadCache

  @Flag(help: "Sweep 1…--max-workers workers and compare with the C reference.")
  var sweep = false

  @Option(parsing: .unconditional, help: "Largest worker count of the sweep, 1–64 (default: active cores).")
  var maxWorkers = min(ProcessInfo.processInfo.activeProcessorCount, ThroughputCommand.maximumWorkers)

  @Option(
    name: .customLong("repeat"), parsing: .unconditional,
    help: "Runs per configuration in a sweep, 1–100; the median is reported.")
  var repetitions = 5

  @Option(help: "The C reference binary.")
  var cReference = "bench/out/pango_reference"

  @Option(help: "Write the result as JSON to this file.")
  var json: String?

  @Option(help: "Draw tiles per second per worker count into this image (.png, .jpg).")
  var chart: String?

  @OptionGroup var options: TextOptions

  enum PNGMode: String, ExpressibleByArgument, CaseIterable, Codable {
    case none, fast, cairo
  }

  enum Workload: String, ExpressibleByArgument, CaseIterable, Codable {
    case single, mixed
  }

  @Option(
    parsing: .unconditional,
    help: "Distinct tiles the mixed workload rotates through (each a different font, size and scale), 1–500.")
  var mixedTiles = 240

  /// The tiles one run draws: `tile(worker, k)` is worker `worker`'s `k`-th tile.
  struct TileSource: Sendable {
    var tile: @Sendable (_ worker: Int, _ index: Int) -> TextTile
    /// Tiles a worker renders before the clock starts, so that runs measure warm caches.
    var warmUpCount: Int

    static func single(_ tile: TextTile) -> TileSource {
      TileSource(tile: { _, _ in tile }, warmUpCount: 1)
    }

    static func mixed(glyphs: GlyphCompositing, distinct: Int) -> TileSource {
      TileSource(
        tile: { worker, index in
          var tile = MixedTextWorkload.tile((index + worker * 97) % distinct)
          tile.glyphCompositing = glyphs
          return tile
        }, warmUpCount: distinct)
    }

    func with(glyphs: GlyphCompositing) -> TileSource {
      let base = tile
      return TileSource(
        tile: { worker, index in
          var tile = base(worker, index)
          tile.glyphCompositing = glyphs
          return tile
        }, warmUpCount: warmUpCount)
    }
  }

  func validate() throws {
    try Bounds.check(tiles, "--tiles", 1...Self.maximumTiles)
    try Bounds.check(workers, "--workers", 1...Self.maximumWorkers)
    try Bounds.check(maxWorkers, "--max-workers", 1...Self.maximumWorkers)
    try Bounds.check(repetitions, "--repeat", 1...Self.maximumRepetitions)
    try Bounds.check(mixedTiles, "--mixed-tiles", 1...Self.maximumMixedTiles)
    if text.allSatisfy(\.isWhitespace) {
      throw ValidationErrorMessage("--text is empty or only spaces: there is nothing to render")
    }
    try checkReportOutputs(json: json, chart: chart)
  }

  func run() throws {
    var tile = options.tile(.plain(text))
    tile.glyphCompositing = glyphs
    _ = try tile.render()  // fail early on bad input
    let source: TileSource = workload == .single ? .single(tile) : .mixed(glyphs: glyphs, distinct: mixedTiles)
    if sweep {
      try runSweep(tile, source: source)
      return
    }
    let seconds = measure(source, workers: workers, png: png)
    let total = tiles * workers
    let result = SingleRun(
      workload: workload, workers: workers, tilesPerWorker: tiles, png: png, glyphs: glyphs.rawValue,
      seconds: seconds, tilesPerSecond: Double(total) / seconds, msPerTilePerWorker: seconds * 1000 / Double(tiles))
    print(
      String(
        format:
          "%d tiles (%@) on %d worker(s), png %@, glyphs %@, in %.3f s: %.1f tiles/s (%.3f ms per tile per worker)",
        total, workload.rawValue, workers, png.rawValue, glyphs.rawValue, seconds, result.tilesPerSecond,
        result.msPerTilePerWorker)
    )
    if let json {
      try writeJSON(result, to: json)
      print("wrote \(json)")
    }
    if let chart {
      try BarChart(
        title: "Tiles per second (\(workload.rawValue), png \(png.rawValue), glyphs \(glyphs.rawValue))",
        categories: ["\(workers) worker(s)"],
        series: [(png == .none ? "render" : "render+PNG", [result.tilesPerSecond])]
      ).render().write(to: chart)
      print("wrote \(chart)")
    }
  }

  /// A single run's result, as --json writes it.
  struct SingleRun: Codable {
    var workload: Workload
    var workers: Int
    var tilesPerWorker: Int
    var png: PNGMode
    var glyphs: String
    var seconds: Double
    var tilesPerSecond: Double
    var msPerTilePerWorker: Double
  }

  /// Wall seconds for `workers` threads each rendering (and encoding) `tiles` tiles.
  private func measure(_ source: TileSource, workers: Int, png: PNGMode) -> Double {
    timedRun(source, workers: workers, png: png).seconds
  }

  /// A timed run: its wall seconds, and how often the font-cache lock was taken while it ran
  /// (warm-up excluded).
  private func timedRun(_ source: TileSource, workers: Int, png: PNGMode) -> (seconds: Double, locks: Int) {
    let tilesPerWorker = tiles
    let encoder = PNGEncoder()
    let work: @Sendable (Int) -> Void = { worker in
      for index in 0..<tilesPerWorker {
        guard let image = try? source.tile(worker, index).render().image else { continue }
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
        for warm in 0..<source.warmUpCount { _ = try? source.tile(index, warm).render() }
        ready.signal()
        go.wait()
        work(index)
        done.signal()
      }
      thread.start()
    }
    for _ in 0..<workers { ready.wait() }
    let locksBefore = FontCacheLock.acquisitions
    let start = ContinuousClock.now
    for _ in 0..<workers { go.signal() }
    for _ in 0..<workers { done.wait() }
    return ((ContinuousClock.now - start) / .seconds(1), FontCacheLock.acquisitions - locksBefore)
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

  private func runSweep(_ tile: TextTile, source: TileSource) throws {
    let cairoGlyphs = source.with(glyphs: .cairo)
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
    var lockTaken = 0, lockTiles = 0  // over the timed render runs (the library's glyph path)
    for _ in 0..<repetitions {
      for count in 1...maxWorkers {
        let run = timedRun(source, workers: count, png: .none)
        render[count].append(Double(tiles * count) / run.seconds)
        lockTaken += run.locks
        lockTiles += tiles * count
        progress()
        viaCairo[count].append(Double(tiles * count) / measure(cairoGlyphs, workers: count, png: .none))
        progress()
        withPNG[count].append(Double(tiles * count) / measure(source, workers: count, png: .fast))
        progress()
      }
      // Render + PNG, one worker: cairo's writer against AsyncLayer's encoder, same tiles.
      cairoPNGMs.append(measure(source, workers: 1, png: .cairo) * 1000 / Double(tiles))
      progress()
      fastPNGMs.append(measure(source, workers: 1, png: .fast) * 1000 / Double(tiles))
      progress()
    }
    var rows: [SweepRow] = []
    for count in 1...maxWorkers {
      // The C reference draws the single tile only.
      let c = workload == .single ? try cReferenceTilesPerSecond(threads: count) : nil
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

    switch workload {
    case .single:
      print(
        "Tile: \(image.pixelWidth)×\(image.pixelHeight) px, \(tiles) tiles per worker, median of \(repetitions) runs\n")
    case .mixed:
      let verified = try verifyMixedPixels(workers: maxWorkers)
      print(
        "Mixed workload: \(mixedTiles) distinct tiles (9 families, weights 100–900, italic, sizes 9–36, "
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
    if let json {
      try writeJSON(rows, to: json)
      print("wrote \(json)")
    }
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
      ).render().write(to: chart)
      print("wrote \(chart)")
    }
  }

  /// Renders every mixed tile alone, then all of them on `workers` threads at once (each in its own
  /// order, both glyph paths), and counts the tiles whose pixels differ from the lone render.
  private func verifyMixedPixels(workers: Int) throws -> String {
    let count = mixedTiles
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
