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

  var manifestName: String { shard?.manifestName ?? "manifest.jsonl" }
  /// Names this run's temporary files apart from other shards' writing into the same directory.
  /// The tar files' names before `-000000.tar`: `tiles`, or for a shard `tiles-3-of-16`.
  var tarPrefix: String { shard.map { "tiles-\($0.index)-of-\($0.count)" } ?? "tiles" }
  var temporaryTag: String { shard.map { "s\($0.index)of\($0.count)" } ?? "all" }
}
