import Foundation

/// The calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`): what a draw cost, whatever else
/// the machine was doing.
enum ThreadCPUClock {
  static func now() -> Duration {
    var time = timespec()
    guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return .zero }
    return .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
  }
}
