/// A scripted scroll: flings that decelerate like a list view's (velocity × 0.997 per millisecond),
/// each followed by a rest, evaluated by time so a slow loop sees the same motion as a fast one.
struct FlingScript: Sendable {
  struct Fling: Sendable {
    /// Points per second; negative scrolls back up.
    let velocity: Double
    /// How long the list rests after the fling stops.
    let rest: Duration
  }

  /// Deceleration per millisecond (between UIScrollView's normal 0.998 and fast 0.99 rates).
  static let decelerationPerMillisecond = 0.997
  /// Below this speed (points per second) a fling has stopped.
  static let stopSpeed = 60.0

  /// Flings of 6 000 to 14 000 points per second, each followed by a short rest, and a burst of
  /// repeated flicks whose speed builds up (as a list view adds a new fling to the current one)
  /// to race through the feed at 30 000–45 000 points per second.
  static let standard = FlingScript(flings: [
    Fling(velocity: 8000, rest: .milliseconds(400)),
    Fling(velocity: 14000, rest: .milliseconds(400)),
    Fling(velocity: -6000, rest: .milliseconds(400)),
    Fling(velocity: 30000, rest: .milliseconds(150)),
    Fling(velocity: 45000, rest: .milliseconds(400)),
    Fling(velocity: -12000, rest: .milliseconds(400)),
  ])

  let flings: [Fling]

  /// The same flings and rests with every velocity multiplied by `factor`.
  func scaled(by factor: Double) -> FlingScript {
    FlingScript(flings: flings.map { Fling(velocity: $0.velocity * factor, rest: $0.rest) })
  }
  /// Scroll offset at each millisecond, and the millisecond at which each fling stops.
  private(set) var offsets: [Double] = []
  private(set) var stopTimes: [Int] = []

  init(flings: [Fling]) {
    self.flings = flings
  }

  /// Precomputes the offsets, clamped to `[0, maximumOffset]`.
  mutating func prepare(maximumOffset: Double) {
    var offset = 0.0
    offsets = [offset]
    stopTimes = []
    for fling in flings {
      var velocity = fling.velocity
      while abs(velocity) > Self.stopSpeed {
        offset = min(max(offset + velocity / 1000, 0), maximumOffset)
        velocity *= Self.decelerationPerMillisecond
        if offset == 0 || offset == maximumOffset { velocity = 0 }
        offsets.append(offset)
      }
      stopTimes.append(offsets.count - 1)
      let restMilliseconds = Int(
        fling.rest.components.seconds * 1000 + fling.rest.components.attoseconds / 1_000_000_000_000_000)
      offsets.append(contentsOf: repeatElement(offset, count: restMilliseconds))
    }
  }

  var duration: Duration { .milliseconds(offsets.count) }

  /// The offset at `time` since the start.
  func offset(at time: Duration) -> Double {
    let millisecond = Int(time.components.seconds * 1000 + time.components.attoseconds / 1_000_000_000_000_000)
    return offsets[min(max(millisecond, 0), offsets.count - 1)]
  }
}
