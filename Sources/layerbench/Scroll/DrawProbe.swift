import AsyncLayer

/// Timestamps of one cell draw, written by the draw thread and read on the loop: when the draw was
/// handed to the pool, when it started and when it finished. Tells a draw queued behind others
/// from one that is slow.
final class DrawProbe: Sendable {
  /// Where the draw stands when the loop looks.
  enum Stage: Sendable, Equatable {
    case queued
    case drawing
    case finished
  }

  struct Times: Sendable {
    let enqueued: ContinuousClock.Instant
    var started: ContinuousClock.Instant?
    var finished: ContinuousClock.Instant?
  }

  private let times: Mutex<Times>

  init(enqueued: ContinuousClock.Instant = .now) { times = Mutex(Times(enqueued: enqueued)) }

  func markStarted() { times.withLock { $0.started = .now } }
  func markFinished() { times.withLock { $0.finished = .now } }

  var snapshot: Times { times.withLock { $0 } }

  var stage: Stage {
    let times = snapshot
    return times.finished != nil ? .finished : times.started != nil ? .drawing : .queued
  }
}
