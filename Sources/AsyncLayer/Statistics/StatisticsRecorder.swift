import Synchronization

/// The outcomes a display can be counted under.
enum DisplayEvent: Int, CaseIterable {
  case requested, coalesced, displays, cancelledBeforeStart, cancelledMidDraw, discardedAtCommit, committed, failed
}

/// Lock-free counters behind ``DisplayStatistics``: the loop counts requests, the draw threads
/// count their outcomes.
final class StatisticsRecorder: Sendable {
  private let parent: StatisticsRecorder?
  private let counters: [Counter]
  private let cpuNanoseconds: [Counter]

  /// An atomic cell that can live in an array.
  private final class Counter: Sendable {
    let value = Atomic<Int>(0)
  }

  /// A recorder that also counts into `parent` (a loop's recorder of all its layers), if any.
  init(parent: StatisticsRecorder?) {
    self.parent = parent
    counters = DisplayEvent.allCases.map { _ in Counter() }
    cpuNanoseconds = DisplayEvent.allCases.map { _ in Counter() }
  }

  /// Counts `event`, with the CPU time it cost, here and in the parent recorder.
  func record(_ event: DisplayEvent, cpuTime: Duration = .zero) {
    counters[event.rawValue].value.add(1, ordering: .relaxed)
    if cpuTime > .zero { cpuNanoseconds[event.rawValue].value.add(Int(cpuTime.nanoseconds), ordering: .relaxed) }
    parent?.record(event, cpuTime: cpuTime)
  }

  var snapshot: DisplayStatistics {
    func count(_ event: DisplayEvent) -> Int { counters[event.rawValue].value.load(ordering: .relaxed) }
    func cpu(_ event: DisplayEvent) -> Duration {
      .nanoseconds(cpuNanoseconds[event.rawValue].value.load(ordering: .relaxed))
    }
    var stats = DisplayStatistics()
    stats.requested = count(.requested)
    stats.coalesced = count(.coalesced)
    stats.displays = count(.displays)
    stats.cancelledBeforeStart = count(.cancelledBeforeStart)
    stats.cancelledMidDraw = count(.cancelledMidDraw)
    stats.discardedAtCommit = count(.discardedAtCommit)
    stats.committed = count(.committed)
    stats.failed = count(.failed)
    stats.cpuTimeCancelledMidDraw = cpu(.cancelledMidDraw)
    stats.cpuTimeDiscarded = cpu(.discardedAtCommit)
    stats.cpuTimeCommitted = cpu(.committed)
    stats.cpuTimeFailed = cpu(.failed)
    return stats
  }

  func reset() {
    for counter in counters + cpuNanoseconds { counter.value.store(0, ordering: .relaxed) }
  }
}
