import AsyncLayer
import Synchronization

/// Counters the workers bump and the progress line reads. (Locks below are `ThreadSanitizedMutex`: the
/// standard `Mutex` locks with a futex TSan cannot see, and `make test-tsan` runs the CLI tests.)
final class BatchCounters: Sendable {
  let records = Atomic<Int>(0)
  let rendered = Atomic<Int>(0)
  let reused = Atomic<Int>(0)
  let failures = Atomic<Int>(0)
  let bytesWritten = Atomic<Int>(0)
  let inputBytesRead = Atomic<Int>(0)
  /// Set by SIGINT, --max-failures (--fail-fast) or a write error: read no more lines.
  let stop = Atomic<Bool>(false)
  let interrupted = Atomic<Bool>(false)
  /// Set when the failures reached `--max-failures` (or `--fail-fast`'s one).
  let stoppedByFailures = Atomic<Bool>(false)
  /// Tiles the workers have rendered (or kept) so far, counted as each leaves `process`.
  let tilesProcessed = Atomic<Int>(0)
  /// Workers that have finished their first line: the one that makes it `workers` starts the steady clock.
  let warmWorkers = Atomic<Int>(0)
  /// When every worker had finished its first line (uptime nanoseconds; 0 until then), and
  /// `tilesProcessed` at that moment: the steady rate leaves out what came before, as `layerbench
  /// throughput` leaves out its warm-up tiles (font loading, ~30 ms for the first tile of a thread).
  let steadyStart = Atomic<UInt64>(0)
  let tilesBeforeSteady = Atomic<Int>(0)
  /// Who prepared the lines drawn and wrote the tiles encoded: each thread counts its own and adds
  /// them here when it ends (`--hand-off-counts`).
  let handOffs = ThreadSanitizedMutex(HandOffCounts())
}

/// Lines prepared and tiles written by the writer thread and by the workers (`--hand-off-counts`):
/// with a writer thread, the workers should only draw.
struct HandOffCounts: Sendable, Equatable {
  var preparedByWriter = 0
  var preparedByWorkers = 0
  var writtenByWriter = 0
  var writtenByWorkers = 0

  static func + (a: Self, b: Self) -> Self {
    HandOffCounts(
      preparedByWriter: a.preparedByWriter + b.preparedByWriter,
      preparedByWorkers: a.preparedByWorkers + b.preparedByWorkers,
      writtenByWriter: a.writtenByWriter + b.writtenByWriter, writtenByWorkers: a.writtenByWorkers + b.writtenByWorkers)
  }

  var description: String {
    "hand-offs: the writer thread prepared \(preparedByWriter) lines and wrote \(writtenByWriter) tiles; "
      + "the workers prepared \(preparedByWorkers) lines and wrote \(writtenByWorkers) tiles"
  }
}
