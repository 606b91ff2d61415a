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
}
