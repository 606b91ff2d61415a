import DequeModule
import Foundation
import HeapModule

// The turn itself: what the loop does between two sleeps.
extension MainLoop {
  /// Runs turns until `condition` holds after one; false when the safety timeout ran out first.
  func runLoop(mode: LoopMode, blocking: Bool, safetyTimeout: Duration?, _ condition: () -> Bool) -> Bool {
    enter(mode)
    defer { leave() }
    let safetyDeadline = safetyTimeout.map { DispatchTime.now() + .nanoseconds(Int(clamping: $0.nanoseconds)) }
    while true {
      turn(in: mode)
      if condition() { return true }
      if !blocking { return false }
      if !hasPendingWork(in: mode) {
        let woken = waker.sleep(until: sleepDeadline(in: mode, safetyDeadline: safetyDeadline))
        if !woken, let safetyDeadline, DispatchTime.now() >= safetyDeadline { return false }
      }
      notify(.afterWaiting, in: mode)
    }
  }

  func enter(_ mode: LoopMode) {
    confined.modeStack.append(mode)
    notify(.entry, in: mode)
  }

  func leave() {
    let mode = confined.modeStack.last!
    notify(.exit, in: mode)
    confined.modeStack.removeLast()
  }

  /// beforeTimers, due timers, beforeSources, performed blocks, signalled sources, beforeWaiting.
  func turn(in mode: LoopMode) {
    notify(.beforeTimers, in: mode)
    fireDueTimers(in: mode)
    notify(.beforeSources, in: mode)
    runPerformedBlocks()
    runSignalledSources(in: mode)
    notify(.beforeWaiting, in: mode)
  }

  /// Calls the observers of `activity` registered for `mode`, in ascending order.
  func notify(_ activity: LoopActivity, in mode: LoopMode) {
    // A snapshot: callbacks may add or remove observers.
    let observers = confined.observers
    for observer in observers
    where observer.isValid && observer.activities.contains(activity) && observer.modes.contains(mode) {
      if !observer.repeats { removeObserver(id: observer.id) }
      observer.callback(activity)
    }
  }

  private func runPerformedBlocks() {
    // Only the blocks present now: a block that performs another leaves it for the next turn.
    let blocks = performQueue.withLock { queue in
      let taken = queue
      queue.removeAll(keepingCapacity: true)
      return taken
    }
    for block in blocks { block() }
  }

  private func runSignalledSources(in mode: LoopMode) {
    let sources = confined.sources
    for source in sources where source.isValid && source.modes.contains(mode) && source.signal.take() {
      source.handler()
    }
  }

  private func hasPendingWork(in mode: LoopMode) -> Bool {
    if !performQueue.withLock({ $0.isEmpty }) { return true }
    // Pairs added while the collector flushed (a synchronous layer's onDidDisplay requesting
    // another display) run at the next beforeWaiting: nothing else would wake the loop for them.
    if let collector = confined.collector, collector.pendingCount > 0 { return true }
    if confined.sources.contains(where: { $0.isValid && $0.modes.contains(mode) && $0.signal.isSet }) { return true }
    if clock == .realTime, let deadline = nextTimerDeadline(in: mode), deadline <= now { return true }
    return false
  }

  private func sleepDeadline(in mode: LoopMode, safetyDeadline: DispatchTime?) -> DispatchTime? {
    var deadline = safetyDeadline
    if clock == .realTime, let next = latestTimerWake(in: mode) {
      let wait = max(.zero, next - now)
      let timerDeadline = DispatchTime.now() + .nanoseconds(Int(clamping: wait.nanoseconds))
      deadline = deadline.map { min($0, timerDeadline) } ?? timerDeadline
    }
    return deadline
  }

  // MARK: Timers

  private func fireDueTimers(in mode: LoopMode) {
    let now = self.now
    var skipped: [TimerKey] = []
    while let top = confined.timerQueue.min, top.deadline <= now {
      let key = confined.timerQueue.removeMin()
      // A key whose sequence is stale belongs to an invalidated or rescheduled timer.
      guard let timer = confined.timers[key.id], timer.sequence == key.sequence else { continue }
      guard timer.modes.contains(mode) else {
        skipped.append(key)
        continue
      }
      if let interval = timer.interval {
        // A repeating timer that fell behind skips the missed firings rather than catching up.
        var next = key.deadline + interval
        if next <= now { next = now + interval }
        schedule(timer, at: next)
      } else {
        confined.timers[key.id] = nil
      }
      timer.fireCount += 1
      timer.action(now)
    }
    for key in skipped { confined.timerQueue.insert(key) }
  }

  func schedule(_ timer: TimerEntry, at deadline: Duration) {
    timer.sequence = confined.makeID()
    confined.timerQueue.insert(TimerKey(deadline: deadline, sequence: timer.sequence, id: timer.id))
  }

  /// When the loop must wake for its timers at the latest: the earliest `deadline + tolerance`.
  /// Timers whose deadlines have passed by then fire in the same turn, so a tolerance lets the
  /// loop coalesce wake-ups (as `CFRunLoopTimerSetTolerance` does).
  func latestTimerWake(in mode: LoopMode) -> Duration? {
    confined.timerQueue.unordered.compactMap { key -> Duration? in
      guard let timer = confined.timers[key.id], timer.sequence == key.sequence, timer.modes.contains(mode) else {
        return nil
      }
      return key.deadline + timer.tolerance
    }.min()
  }

  /// The earliest deadline of a live timer that runs in `mode`.
  func nextTimerDeadline(in mode: LoopMode) -> Duration? {
    func isLive(_ key: TimerKey) -> Bool {
      guard let timer = confined.timers[key.id] else { return false }
      return timer.sequence == key.sequence && timer.modes.contains(mode)
    }
    if let top = confined.timerQueue.min, isLive(top) { return top.deadline }
    return confined.timerQueue.unordered.filter(isLive).map(\.deadline).min()
  }
}
