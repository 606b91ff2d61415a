/// A scheduled timer as the loop keeps it: what to run, when to repeat, and its heap sequence.
final class TimerEntry {
  let id: Int
  let interval: Duration?
  let modes: LoopModes
  let tolerance: Duration
  let action: (Duration) -> Void
  var sequence = 0
  var fireCount = 0

  init(
    id: Int, interval: Duration?, modes: LoopModes, tolerance: Duration = .zero,
    action: @escaping (Duration) -> Void
  ) {
    self.id = id
    self.interval = interval
    self.modes = modes
    self.tolerance = tolerance
    self.action = action
  }
}
