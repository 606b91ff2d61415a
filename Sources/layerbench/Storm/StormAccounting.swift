/// The books of one redraw storm: loop turns, content changes and commits, turned into the storm's
/// figures (dropped frames, time from the last change to the final pixels, CPU against the minimum).
/// Pure bookkeeping on times the caller supplies, so it is unit-tested without a clock.
///
/// ```swift
/// var books = StormAccounting(layerCount: 1)
/// books.recordChange(at: .milliseconds(100))
/// books.recordCommit(layer: 0, at: .milliseconds(130), cpu: .milliseconds(20))
/// books.settle  // 30 ms: the final pixels came 30 ms after the last change
/// ```
struct StormAccounting: Sendable {
  /// What the books say at the end.
  struct Summary: Codable, Sendable, Equatable {
    /// Turns over one frame period from the start up to the final commit.
    var droppedFrames: Int
    /// Frames the loop ran over the same span.
    var frames: Int
    /// From the last change to the commit of the last layer's final contents; nil when some layer
    /// never committed its final state.
    var settleMs: Double?
    var settleFrames: Double?
    /// Draw CPU of every kind (committed, cancelled, discarded).
    var cpuMs: Double
    /// One draw of the final state per layer: the CPU of each layer's final commit.
    var minimumCpuMs: Double
    /// Cancelled and discarded draw CPU against all draw CPU.
    var wastedPercent: Double
  }

  /// One frame period at 60 Hz.
  static let framePeriod = Duration.microseconds(16_667)

  let layerCount: Int
  private(set) var lastChange: Duration?
  /// Each layer's latest commit.
  private(set) var lastCommits: [Int: (at: Duration, cpu: Duration)] = [:]
  private var turns: [(end: Duration, length: Duration)] = []

  init(layerCount: Int) { self.layerCount = max(layerCount, 0) }

  /// The content of one or more layers changed at `time` (all layers' contents are now stale).
  mutating func recordChange(at time: Duration) { lastChange = time }

  /// A layer committed contents of its current state at `time`, drawn in `cpu`.
  mutating func recordCommit(layer: Int, at time: Duration, cpu: Duration) { lastCommits[layer] = (time, cpu) }

  /// A loop turn that ended at `end` lasted `length`.
  mutating func recordTurn(end: Duration, length: Duration) { turns.append((end, length)) }

  /// True once every layer has committed after the last change: the final pixels are all there.
  var isSettled: Bool {
    guard let lastChange else { return lastCommits.count == layerCount }
    return (0..<layerCount).allSatisfy { layer in lastCommits[layer].map { $0.at >= lastChange } ?? false }
  }

  /// From the last change to the last final commit, once settled.
  var settle: Duration? {
    guard isSettled else { return nil }
    let last = lastCommits.values.map(\.at).max() ?? .zero
    return max(.zero, last - (lastChange ?? .zero))
  }

  /// The figures, given the draw CPU totals of the whole storm.
  func summary(cpuCommitted: Duration, cpuCancelled: Duration, cpuDiscarded: Duration) -> Summary {
    let settle = settle
    let horizon = settle.map { (lastChange ?? .zero) + $0 } ?? turns.last?.end ?? .zero
    let counted = turns.filter { $0.end <= horizon }
    let total = cpuCommitted + cpuCancelled + cpuDiscarded
    let minimum = isSettled ? lastCommits.values.reduce(Duration.zero) { $0 + $1.cpu } : .zero
    let settleMs = settle?.milliseconds
    return Summary(
      droppedFrames: counted.filter { $0.length > Self.framePeriod }.count, frames: counted.count,
      settleMs: settleMs, settleFrames: settleMs.map { ($0 / Self.framePeriod.milliseconds).rounded(.up) },
      cpuMs: total.milliseconds, minimumCpuMs: minimum.milliseconds,
      wastedPercent: total > .zero ? 100 * (cpuCancelled + cpuDiscarded).milliseconds / total.milliseconds : 0)
  }
}
