import Foundation

/// CPU time of the whole process (all threads), for "CPU ms" columns.
func processCPUTime() -> Duration {
  var spec = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
  return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
}

extension Duration {
  /// Milliseconds as a Double.
  var milliseconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
  }
}
