/// A scheduled timer; ``invalidate()`` cancels it.
public final class LoopTimer: Sendable {
  let loop: MainLoop
  let id: Int
  /// The timer's record, kept past invalidation so its fire count stays readable; it is only
  /// touched on the loop's thread.
  private let bound: LoopBound<TimerEntry>
  private var entry: TimerEntry { bound.value }

  init(loop: MainLoop, id: Int, entry: TimerEntry) {
    self.loop = loop
    self.id = id
    self.bound = LoopBound(entry, loop: loop)
  }

  /// True until the timer has fired (one-shot) or been invalidated. Call on the loop's thread.
  public var isValid: Bool {
    loop.preconditionInLoop()
    return loop.confined.timers[id] != nil
  }

  /// How many times the timer has fired. Call on the loop's thread.
  public var fireCount: Int {
    loop.preconditionInLoop()
    return entry.fireCount
  }

  /// How late the loop may fire the timer to coalesce wake-ups.
  public var tolerance: Duration { entry.tolerance }

  /// Cancels the timer; its stale heap entry is skipped when it reaches the top.
  public func invalidate() {
    loop.preconditionInLoop()
    loop.confined.timers[id] = nil
  }
}
