import AsyncLayer

/// What a batch run does.
struct BatchConfiguration: Sendable {
  var input: String
  var outDir: String
  var parser: TileParser
  var workers: Int
  /// Whether PNG files, their checksums and the manifest are written by a thread of their own
  /// (`--write-thread`, `WriteThreadOption`): the workers then only render and encode.
  var writeThread = false
  /// Tiles read but not yet in the manifest, at most (rendering, or waiting for an earlier line).
  var window: Int
  var shard: Shard?
  /// When failed lines stop the run (`--max-failures`; `--fail-fast` is a limit of one).
  var maxFailures = FailureLimit.automatic
  var resume = true
  var maxLineBytes = 1 << 20
  /// Debug: the process kills itself (SIGKILL) once this many records are in the manifest.
  var killAfter: Int?
  /// Debug: the closing lines add who prepared the lines and wrote the tiles (`--hand-off-counts`).
  var printsHandOffCounts = false
  /// Seconds between progress lines when standard error is not a terminal (0: none).
  var progressInterval: Double = 10
  /// Image format and mode (`--image-format`, `--mode`).
  var encoder = TileImageEncoder()
  /// One file per tile, or WebDataset tar files of `tilesPerTar` tiles (`--output`, `--tiles-per-tar`).
  var output = BatchOutputKind.files
  var tilesPerTar = 1000
  /// Whether the run keeps a manifest (and so can resume); `render --file` writes only the PNGs.
  var writesManifest = true
  /// Whether each tile gets a boxes sidecar, `<id>.json` (`--boxes`, `BatchBoxes`).
  var boxes = false
  /// Whether each tile is only as wide as its text (`--fit-width`, `TextTile.fitsWidth`).
  var fitsWidth = false
  /// The seeded sampling of fonts, sizes and colours (`--seed`, `--sample-*`), or nil.
  var sampler: Sampler?
  /// The labels file's name in the output folder as given (`--labels`), recorded in a shard's
  /// completion file for `batch merge`; the commit hook writes it.
  var labels: String?
  /// Called with each record in input order as it is committed (on a worker thread, one call at a time).
  var onCommit: (@Sendable (ManifestRecord) -> Void)?

  /// The window when `--window` is not given: 4 tiles a worker, at least 32. A worker that waits
  /// for a slot sleeps while its core could render: with 4 slots, one worker and the writer thread,
  /// the worker slept on the window 545 times in 3,000 tiles under load (the writer's file system
  /// work comes in bursts: a slow rename, the journal); with 32, once. With 2 workers and 8 slots,
  /// tar files, a worker slept 246 times in 5,000 tiles on slots held behind the other, preempted
  /// worker's tile (`perf record -e sched:sched_switch`, 2026-11-26 17:45 UTC, load ~8). A slot holds
  /// a line, a record and an encoded image (~10 KB for the usual tile).
  /// `workers` is 1…256 (`BatchRunCommand.validate`).
  static func defaultWindow(workers: Int) -> Int { max(4 * workers, 32) }

  var manifestName: String { shard?.manifestName ?? "manifest.jsonl" }
  /// Names this run's temporary files apart from other shards' writing into the same directory.
  /// The tar files' names before `-000000.tar`: `tiles`, or for a shard `tiles-3-of-16`.
  var tarPrefix: String { shard.map { "tiles-\($0.index)-of-\($0.count)" } ?? "tiles" }
  var temporaryTag: String { shard.map { "s\($0.index)of\($0.count)" } ?? "all" }
}
