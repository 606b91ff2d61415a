/// A timer's place in the loop's heap: ordered by deadline, then by scheduling order.
struct TimerKey: Comparable {
  var deadline: Duration
  var sequence: Int
  var id: Int

  static func < (lhs: TimerKey, rhs: TimerKey) -> Bool {
    (lhs.deadline, lhs.sequence) < (rhs.deadline, rhs.sequence)
  }
}
