import ArgumentParser
import AsyncLayer
import Foundation

/// `layerbench batch`: tiles from a file of any size to PNGs and a manifest.
struct BatchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "batch",
    abstract:
      "Render a file of tiles (JSON Lines or plain lines) to PNGs and a manifest: streaming, resumable, sharded.",
    subcommands: [BatchRunCommand.self, BatchMergeCommand.self],
    defaultSubcommand: BatchRunCommand.self
  )
}

struct BatchRunCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Render every tile of --input (or --file) into --out-dir.",
    discussion: """
      --input: one JSON object per line, {"id": "a1", "text": "…"} or {"id": "a1", "markup": "…"}, with optional \
      fields font, width, height, scale, padding, align, wrap, ellipsize, maxLines, lineSpacing, fg, bg, language, \
      orientation, stroke, strokeColor, strokeFill (true/false), rotate, skew, scaleX, scaleY over the command-line \
      defaults. --file: one plain-text tile per non-blank line, id = line number. Writes \
      <out-dir>/<id>.png and <out-dir>/manifest.jsonl (one record per tile, in input order). Re-running the same \
      command resumes: tiles whose PNG and record match are kept. --shard INDEX/COUNT (or SLURM_ARRAY_TASK_ID/\
      SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX with --shard-count) renders the lines n with \
      (n-1) % COUNT == INDEX into manifest.INDEX-of-COUNT.jsonl; `layerbench batch merge DIR` joins the parts.

      Datasets (docs/batch.md#datasets): every record carries the tile's text (markup removed); --labels NAME \
      writes <out-dir>/NAME, one `<file>TAB<text>` line per tile, in input order (format tsv: SynthTIGER gt.txt, \
      PaddleOCR and deep-text-recognition-benchmark recognition labels). So that each tile is one line, backslash, \
      tab, newline and carriage return in the text are written as in a JSON string (backslash-backslash, \
      backslash-t, backslash-n, backslash-r), and other control characters, U+2028 and U+2029 as backslash-uXXXX. \
      --boxes writes <id>.json beside each PNG: glyph-cluster, word and line boxes in the PNG's pixels. --seed \
      with --sample-font, --sample-size, --sample-fg, --sample-bg, --sample-letter-spacing draws each line's style \
      from its own random stream (seed and id): the same on any number of workers or shards; the record's \
      `sample` says what was drawn.

      Layout (docs/datasets.md#vertical-stroked-and-transformed-text): --orientation vertical lays lines out as \
      columns (CJK upright, Latin turned; --width is then the column length, the image's height); --stroke-width \
      outlines the glyphs (the tile grows by half of it on each side); --rotate, --skew, --scale-x, --scale-y \
      transform the drawing (cairo draws it: sharp), the image growing to the transformed tile's bound; \
      --sample-rotate, --sample-skew, --sample-stroke-width draw them per line. A tile so drawn has a `layout` \
      object in its record, and its boxes carry `quad`/`inkQuad`: the four corners, clockwise.

      Output (docs/batch.md#shards-and-formats): --output webdataset writes tar files of --tiles-per-tar tiles \
      (tiles-000000.tar, …; a shard: tiles-I-of-N-000000.tar), members <id>.png (or .jpg), <id>.txt (the label) \
      and with --boxes <id>.json; each record names its tar and the image's offset in it; ids must have no '.'. \
      --image-format png|jpeg and --mode rgba|gray|bilevel: png with any mode; jpeg with rgba or gray (over white; \
      JPEG has no alpha) and --jpeg-quality 1…100 (90); bilevel is 1-bit PNG, grey level >= --threshold (128) white.
      """
  )

  @Option(help: "JSON Lines input: one tile per line.")
  var input: String?

  @Option(help: "Plain-text input: one tile per non-blank line (id = line number).")
  var file: String?

  @Option(help: "How input lines are read: jsonl, plain or markup (default: jsonl for --input, plain for --file).")
  var format: BatchInputFormat?

  @Option(help: "Output directory for the PNGs and the manifest.")
  var outDir = "out"

  @Option(help: "Worker threads (default: active cores).")
  var workers = ProcessInfo.processInfo.activeProcessorCount

  @Option(
    help: ArgumentHelp(
      "Write the tiles and the manifest on a thread of their own: auto (when --workers leaves a core free), on or off.",
      valueName: "auto|on|off"))
  var writeThread: WriteThreadOption = .auto

  @Option(help: "Tiles in flight at most (default: 4 × workers, at least 32).")
  var window: Int?

  @Flag(help: "Stop at the first failed tile (--max-failures 1).")
  var failFast = false

  @Option(
    help: ArgumentHelp(
      "Stop reading once this many lines failed: a count, 'none', or 'auto' (1,000 failures that are also 10% of "
        + "the lines so far).", valueName: "auto|none|N"))
  var maxFailures: FailureLimit = .automatic

  @Flag(inversion: .prefixedNo, help: "Keep tiles a previous run of the same command finished.")
  var resume = true

  @Option(help: "This process's part of the input: INDEX/COUNT, INDEX from 0.")
  var shard: String?

  @Option(help: "Shard count for a Kubernetes Indexed Job (the index comes from JOB_COMPLETION_INDEX).")
  var shardCount: Int?

  @Option(
    help: ArgumentHelp(
      "Longest input line, in bytes, 1–268435456; a longer line fails, and one with no newline within 64 MiB more "
        + "ends the run."))
  var maxLineBytes = 1 << 20

  @Option(help: "Seconds between progress lines when stderr is not a terminal (0: none).")
  var progressInterval: Double = 10

  @Option(help: .hidden)
  var killAfter: Int?

  /// Debug: prints who prepared the lines and wrote the tiles (`HandOffCounts`).
  @Flag(help: .hidden)
  var handOffCounts = false

  @Option(
    help: ArgumentHelp(
      "Write a labels file of this name in --out-dir: one `<file>TAB<text>` line per tile written (shards: "
        + "NAME.I-of-N.ext; merge writes NAME).", valueName: "NAME"))
  var labels: String?

  @Option(
    help: ArgumentHelp("Labels file format: tsv (SynthTIGER gt.txt, PaddleOCR, deep-text-recognition-benchmark)."))
  var labelsFormat: String = BatchLabels.Format.tsv.rawValue

  @Flag(help: "Write <id>.json beside each PNG: glyph-cluster, word and line boxes in the PNG's pixels.")
  var boxes = false

  @Flag(help: "Tight crop: each tile only as wide as its text plus the padding (--width stays the wrapping width).")
  var fitWidth = false

  @Option(
    help: ArgumentHelp(
      "files: one <id>.png per tile; webdataset: tar files of --tiles-per-tar tiles (<id>.png, <id>.txt, <id>.json).",
      valueName: "files|webdataset"))
  var output: BatchOutputKind = .files

  @Option(help: ArgumentHelp("Tiles per tar file with --output webdataset, 1…1000000 (default 1000).", valueName: "N"))
  var tilesPerTar: Int?

  @Option(help: ArgumentHelp("Tile image format: png, or jpeg (no alpha: over white).", valueName: "png|jpeg"))
  var imageFormat: TileImageEncoder.Format = .png

  @Option(
    help: ArgumentHelp(
      "rgba: as drawn (the PNG encoder picks the smallest exact colour type); gray: 8-bit grey over white; "
        + "bilevel: 1-bit PNG (not with jpeg).", valueName: "rgba|gray|bilevel"))
  var mode: TileImageEncoder.Mode = .rgba

  @Option(help: ArgumentHelp("JPEG quality, 1…100 (default 90; --image-format jpeg only).", valueName: "Q"))
  var jpegQuality: Int?

  @Option(
    help: ArgumentHelp(
      "Bilevel threshold, 0…256: a grey level at or above it is white (default 128; --mode bilevel only).",
      valueName: "LEVEL"))
  var threshold: Int?

  @OptionGroup(title: "Seeded sampling") var sampling: SamplingOptions

  @OptionGroup(title: "Layout") var layout: LayoutOptions

  @OptionGroup var options: TextOptions

  func validate() throws {
    guard (input == nil) != (file == nil) else { throw ValidationError("give exactly one of --input or --file") }
    guard (1...256).contains(workers) else { throw ValidationError("--workers must be 1…256 (got \(workers))") }
    if let window, !(1...65536).contains(window) {
      throw ValidationError("--window must be 1…65536 (got \(window))")
    }
    guard (1...(1 << 28)).contains(maxLineBytes) else {
      throw ValidationError("--max-line-bytes must be 1…\(1 << 28) (got \(maxLineBytes))")
    }
    guard progressInterval.isFinite, progressInterval >= 0 else {
      throw ValidationError("--progress-interval must be ≥ 0 (got \(progressInterval))")
    }
    if let labels, let problem = BatchLabels.problem(withName: labels) { throw ValidationError(problem) }
    guard BatchLabels.Format(rawValue: labelsFormat) != nil else {
      throw ValidationError(
        "--labels-format must be one of \(BatchLabels.Format.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    if let problem = TileImageEncoder.problem(
      format: imageFormat, mode: mode, quality: jpegQuality, threshold: threshold)
    {
      throw ValidationError(problem)
    }
    if let tilesPerTar {
      guard output == .webdataset else { throw ValidationError("--tiles-per-tar is for --output webdataset") }
      guard BatchOutputKind.tilesPerTarRange.contains(tilesPerTar) else {
        throw ValidationError("--tiles-per-tar must be 1…1000000 (got \(tilesPerTar))")
      }
    }
    _ = try sampling.sampler()
  }

  func run() throws {
    let resolved: Shard?
    do {
      resolved = try Shard.resolve(
        option: shard, shardCount: shardCount, environment: ProcessInfo.processInfo.environment)
    } catch {
      throw ValidationError("\(error)")
    }
    let format = self.format ?? (input != nil ? .jsonl : .plain)
    var configuration = BatchConfiguration(
      input: input ?? file ?? "", outDir: outDir,
      parser: TileParser(format: format, defaults: options, layout: try layout.settings()),
      workers: workers, window: window ?? BatchConfiguration.defaultWindow(workers: workers), shard: resolved)
    // The same rule for tar files as for files: a writer thread when the workers leave a core free.
    // It takes the checksums, the boxes sidecar's JSON and the commit step off the worker. Woken
    // per tile it gave no gain (0.976 of the rate, ~13% more CPU: bench/results/webdataset-writer-ab-2026-11-26-1555.txt);
    // woken per batch of tiles, one worker ran at 1.19x (plain) and 1.12x (`--boxes --labels`) of
    // the rate without it (bench/results/webdataset-writer-auto-ab-2026-11-26-1850.txt).
    configuration.writeThread = writeThread.isUsed(workers: workers)
    configuration.output = output
    configuration.tilesPerTar = tilesPerTar ?? 1000
    configuration.encoder = TileImageEncoder(
      format: imageFormat, mode: mode, quality: jpegQuality ?? 90, threshold: threshold ?? 128)
    configuration.maxFailures = failFast ? .count(1) : maxFailures
    configuration.resume = resume
    configuration.maxLineBytes = maxLineBytes
    configuration.killAfter = killAfter
    configuration.printsHandOffCounts = handOffCounts
    configuration.progressInterval = progressInterval
    configuration.boxes = boxes
    configuration.fitsWidth = fitWidth
    configuration.sampler = try sampling.sampler()
    configuration.sampler?.strokeColor = (try? Color(parsing: layout.strokeColor)) ?? .black
    configuration.labels = labels
    var writer: LabelsWriter?
    if let labels {
      let name = BatchLabels.fileName(labels, shard: resolved)
      let labelsWriter = LabelsWriter(path: (outDir as NSString).appendingPathComponent(name))
      configuration.onCommit = { labelsWriter.append($0) }
      writer = labelsWriter
    }
    try BatchRunner.run(configuration) { try writer?.finish() }
  }
}

/// Runs a batch, prints the summary and turns the outcome into an exit status.
enum BatchRunner {
  /// `afterRun` runs once the engine has finished (before the exit status is decided): the labels
  /// file's last write.
  static func run(_ configuration: BatchConfiguration, afterRun: () throws -> Void = {}) throws {
    let summary: BatchSummary
    do {
      summary = try BatchEngine(configuration: configuration).run()
      try afterRun()
    } catch {
      FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      throw ExitCode(2)
    }
    if summary.staleTemporaryFiles > 0 {
      let files = summary.staleTemporaryFiles == 1 ? "file" : "files"
      FileHandle.standardError.write(
        Data("batch: removed \(summary.staleTemporaryFiles) temporary \(files) a killed run left\n".utf8))
    }
    let rate = Double(summary.rendered + summary.reused) / max(summary.seconds, 1e-9)
    let shard = configuration.shard.map { " (shard \($0))" } ?? ""
    // The rate once every worker had finished its first tile (which loads the fonts): what
    // `layerbench throughput`, which starts its clock after a warm-up tile, would print.
    var steady = ""
    if let tiles = summary.steadyTiles, let seconds = summary.steadySeconds, tiles > 0, seconds > 0 {
      steady = " (\(String(format: "%.0f", Double(tiles) / seconds)) tiles/s after each worker's first tile)"
    }
    let line =
      "batch\(shard): \(summary.records) tiles (\(summary.rendered) rendered, \(summary.reused) kept from the last run), "
      + "\(summary.failures) failed, \(String(format: "%.0f", rate)) tiles/s\(steady), "
      + "\(String(format: "%.1f", Double(summary.bytesWritten) / 1e6)) MB written in \(String(format: "%.1f", summary.seconds)) s; "
      + "manifest \(summary.manifestPath)\n"
    FileHandle.standardError.write(Data(line.utf8))
    if configuration.printsHandOffCounts {
      FileHandle.standardError.write(Data((summary.handOffs.description + "\n").utf8))
    }
    if summary.interrupted {
      FileHandle.standardError.write(
        Data("interrupted: the manifest holds every finished tile; run the same command again to resume\n".utf8))
      throw ExitCode(130)
    }
    if summary.records == 0, configuration.shard == nil {
      FileHandle.standardError.write(Data("error: \(configuration.input) has no tiles (no non-blank lines)\n".utf8))
      throw ExitCode(1)
    }
    if summary.failures > 0 {
      let first = summary.firstError.map { " (first: \($0))" } ?? ""
      let stopped: String
      switch configuration.maxFailures {
      case _ where !summary.stoppedByFailure: stopped = ""
      case .automatic:
        stopped =
          "; stopped: \(FailureLimit.automaticCount) or more failures, at least 10% of the lines read (--max-failures auto)"
      case .count(1): stopped = "; stopped at the first failure (--fail-fast or --max-failures 1)"
      case .count(let count): stopped = "; stopped at \(count) failures (--max-failures)"
      case .none: stopped = ""
      }
      FileHandle.standardError.write(
        Data("error: \(summary.failures) of \(summary.records) tiles failed\(first)\(stopped); see the manifest\n".utf8)
      )
      throw ExitCode(1)
    }
  }
}
