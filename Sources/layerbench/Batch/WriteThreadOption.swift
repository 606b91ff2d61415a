import ArgumentParser
import Foundation

/// Whether a batch writes its tiles (files, or with `--output webdataset` tar files) and manifest on a
/// thread of its own (`--write-thread`).
///
/// Writing a tile (temporary file, rename, checksum, manifest line) is about a fifth of its CPU; into a
/// tar file (checksums, the boxes sidecar's JSON, copy, the commit step) less, but the workers hand
/// tiles over in batches (one wake-up per batch), so that share moves off them for little.
/// When the workers leave a core free, a writer thread moves that share off them, so that one
/// worker renders as fast as `layerbench throughput` does; when they use every core, it would only
/// add a hand-off per tile, so each worker writes its own.
enum WriteThreadOption: String, ExpressibleByArgument, CaseIterable, Sendable {
  /// A writer thread when `workers` is below the active core count.
  case auto
  case on
  case off

  /// Whether a run with `workers` workers on `cores` active cores uses a writer thread.
  func isUsed(workers: Int, cores: Int = ProcessInfo.processInfo.activeProcessorCount) -> Bool {
    switch self {
    case .auto: workers < cores
    case .on: true
    case .off: false
    }
  }
}
