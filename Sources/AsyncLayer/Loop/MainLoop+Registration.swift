// Observers, timers and sources: registered on the loop's thread, run by its turns.
extension MainLoop {
  /// Calls `callback` on each of `activities` while the loop runs in one of `modes`.
  ///
  /// Observers of one activity run in ascending `order` (see ``LoopObserverOrder``), ties in
  /// registration order. A non-repeating observer is removed after its first call.
  @discardableResult
  public func addObserver(
    _ activities: LoopActivity, order: Int = 0, modes: LoopModes = .common, repeats: Bool = true,
    _ callback: @escaping (LoopActivity) -> Void
  ) -> LoopObserver {
    preconditionInLoop()
    let entry = ObserverEntry(
      id: confined.makeID(), activities: activities, order: order, modes: modes, repeats: repeats, callback: callback)
    let index = confined.observers.firstIndex { $0.order > order } ?? confined.observers.endIndex
    confined.observers.insert(entry, at: index)
    return LoopObserver(loop: self, id: entry.id)
  }

  func removeObserver(id: Int) {
    guard let index = confined.observers.firstIndex(where: { $0.id == id }) else { return }
    confined.observers[index].isValid = false
    confined.observers.remove(at: index)
  }

  /// Runs `action` once `delay` from now, and then every `interval` if one is given, while the
  /// loop runs in one of `modes`. A due timer waits while the loop runs in another mode: a
  /// default-mode timer does not fire while the loop is tracking, a common-mode one does.
  ///
  /// `tolerance` lets the loop fire the timer up to that much late so that it can wake once for
  /// several timers; it never fires early. A delay, interval or tolerance longer than
  /// ``MainLoop/maximumTimeInterval`` is clamped to it (the loop's deadlines are sums of these).
  @discardableResult
  public func scheduleTimer(
    after delay: Duration, repeating interval: Duration? = nil, modes: LoopModes = .default,
    tolerance: Duration = .zero, _ action: @escaping () -> Void
  ) throws(LoopError) -> LoopTimer {
    try addTimer(after: delay, repeating: interval, modes: modes, tolerance: tolerance) { _ in action() }
  }

  /// A repeating timer at `rate` per second (60 by default) that receives the loop time of each
  /// frame: the display link of the CLI and the benchmarks. Late frames are skipped, not queued.
  @discardableResult
  public func addFrameTimer(
    rate: Double = 60, modes: LoopModes = .common, _ action: @escaping (Duration) -> Void
  ) throws(LoopError) -> LoopTimer {
    let nanoseconds = (1e9 / rate).rounded()
    guard rate.isFinite, rate > 0, nanoseconds >= 1, nanoseconds < 1e15 else { throw .invalidInterval(.zero) }
    let interval = Duration.nanoseconds(Int64(nanoseconds))
    return try addTimer(after: interval, repeating: interval, modes: modes, action)
  }

  private func addTimer(
    after delay: Duration, repeating interval: Duration?, modes: LoopModes, tolerance: Duration = .zero,
    _ action: @escaping (Duration) -> Void
  ) throws(LoopError) -> LoopTimer {
    preconditionInLoop()
    if let interval, interval <= .zero { throw .invalidInterval(interval) }
    func clamp(_ duration: Duration) -> Duration { min(max(.zero, duration), Self.maximumTimeInterval) }
    let entry = TimerEntry(
      id: confined.makeID(), interval: interval.map(clamp), modes: modes, tolerance: clamp(tolerance), action: action)
    confined.timers[entry.id] = entry
    schedule(entry, at: now + clamp(delay))
    return LoopTimer(loop: self, id: entry.id, entry: entry)
  }

  /// Registers a source: any thread may ``LoopSource/signal()`` it, and the loop then calls
  /// `handler` once in its next turn that runs in one of `modes` (sources in ascending `order`).
  @discardableResult
  public func addSource(order: Int = 0, modes: LoopModes = .common, _ handler: @escaping () -> Void) -> LoopSource {
    preconditionInLoop()
    let signal = SourceSignal()
    let entry = SourceEntry(id: confined.makeID(), order: order, modes: modes, signal: signal, handler: handler)
    let index = confined.sources.firstIndex { $0.order > order } ?? confined.sources.endIndex
    confined.sources.insert(entry, at: index)
    return LoopSource(loop: self, id: entry.id, signal: signal)
  }
}
