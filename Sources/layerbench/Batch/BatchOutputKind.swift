import ArgumentParser

/// Where `batch` puts the tiles (`--output`): one file per tile, or WebDataset tar files.
enum BatchOutputKind: String, CaseIterable, Sendable, ExpressibleByArgument {
  /// `<out-dir>/<id>.png` per tile, each written atomically (temporary file, rename).
  case files
  /// `<out-dir>/tiles-000000.tar`, … of `--tiles-per-tar` tiles each, `<id>.png`, `<id>.txt` and
  /// (`--boxes`) `<id>.json` members per tile: the layout WebDataset and similar loaders read.
  case webdataset

  static let tilesPerTarRange = 1...1_000_000
}
