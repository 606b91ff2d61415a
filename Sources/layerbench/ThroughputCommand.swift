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

  @Option(help: "The C reference binary.")
  var cReference = "bench/out/pango_reference"

  @Option(
    parsing: .unconditional,
    help: "Seconds one run of the C reference may take before it is killed, 0.1–86400.")
  var cReferenceTimeout: Double = 600

  @Flag(help: "Run a sweep estimated at more than an hour (the run count and estimate are printed first).")
  var yes = false

  @OptionGroup var measurement: MeasurementOptions<ThroughputCommand>

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
    try Bounds.check(mixedTiles, "--mixed-tiles", 1...Self.maximumMixedTiles)
    try Bounds.check(cReferenceTimeout, "--c-reference-timeout", 0.1...86_400, "seconds")
    if text.allSatisfy(\.isWhitespace) {
      throw ValidationErrorMessage("--text is empty or only spaces: there is nothing to render")
    }
  }

  func run() throws {
    var tile = options.tile(.plain(text))
    tile.glyphCompositing = glyphs
    _ = try tile.render()  // fail early on bad input
    let source: TileSource = workload == .single ? .single(tile) : .mixed(glyphs: glyphs, distinct: mixedTiles)
    if sweep {
      try ThroughputSweep(command: self, tile: tile, source: source).run()
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
    if let json = measurement.json {
      try writeJSON(result, to: json)
      print("wrote \(json)")
    }
    if let chart = measurement.chart {
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
  func measure(_ source: TileSource, workers: Int, png: PNGMode) -> Double {
    timedRun(source, workers: workers, png: png).seconds
  }

  /// A timed run: its wall seconds, and how often the font-cache lock was taken while it ran
  /// (warm-up excluded).
  func timedRun(_ source: TileSource, workers: Int, png: PNGMode) -> (seconds: Double, locks: Int) {
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
}

extension ThroughputCommand: MeasuringCommand {
  static let jsonHelp = "Write the result as JSON to this file."
  static let chartHelp = "Draw tiles per second per worker count into this image (.png, .jpg)."
  static let repeats: RepeatsOption? = RepeatsOption(
    name: "repeat", defaultValue: 5, help: "Runs per configuration in a sweep, 1–100; the median is reported.")
}
