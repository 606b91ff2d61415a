// Requesting, starting, cancelling and committing displays: the layer's side of its
// `DisplayStateMachine` — each method feeds the machine one event and does what it answers.
extension AsyncLayer {
  /// Marks the layer for display at the end of this turn and cancels the draw in flight.
  ///
  /// The generation moves on at once, so a running draw stops at its next cancellation check and a
  /// queued one leaves its queue (O(1)). Further calls before the display only count as coalesced.
  /// Under ``RedisplayPolicy/finishRunningDraw`` a running draw goes on and shows first.
  public func setNeedsDisplay() {
    loop.preconditionInLoop()
    recorder.record(.requested)
    switch displayState.requestDisplay(policy: machinePolicy) {
    case .coalesced:
      recorder.record(.coalesced)
    case .schedule(let ticket):
      generationCounter.publish(displayState.generation)
      cancelIfQueued(ticket)
      if !loop.collector.add(self, action: .display, { $0.displayIfNeeded() }) {
        recorder.record(.coalesced)
      }
      displayStateDidChange()
    }
  }

  /// Displays now if the layer is marked for display.
  public func displayIfNeeded() {
    loop.preconditionInLoop()
    if displayState.needsDisplay { display() }
  }

  /// Cancels the draw in flight without starting another; the contents stay as they are.
  public func cancelDisplay() {
    loop.preconditionInLoop()
    let ticket = displayState.cancel()
    generationCounter.publish(displayState.generation)
    cancelIfQueued(ticket)
    displayStateDidChange()
  }

  /// Starts a display now: captures the drawing state, then draws on the pool (or in place when
  /// ``displaysAsynchronously`` is false). Cancels any draw in flight — or, under
  /// ``RedisplayPolicy/finishRunningDraw``, starts when the running draw ends.
  public func display() {
    loop.preconditionInLoop()
    switch displayState.startDisplay(policy: machinePolicy) {
    case .wait(let ticket):
      cancelIfQueued(ticket)
    case .start(let generation, let ticket):
      generationCounter.publish(generation)
      cancelIfQueued(ticket)
      recorder.record(.displays)
      willDisplay()
      startDraw(generation: generation)
    }
    displayStateDidChange()
  }

  /// The policy as the machine knows it.
  private var machinePolicy: DisplayStateMachine<PoolTicket>.Policy {
    guard cancelsInFlightDraws else { return .neverCancel }
    switch redisplayPolicy {
    case .cancelRunningDraw: return .cancelRunning
    case .finishRunningDraw: return .finishRunning
    }
  }

  private func startDraw(generation: UInt64) {
    guard !size.isEmpty else {
      // Nothing to draw into: empty contents are the result, committed at once.
      return endDisplay(.rendered(nil, cpuTime: .zero), as: .commit)
    }
    let job: DrawJob
    do {
      job = DrawJob(
        renderer: try ImageRenderer(size: size, scale: contentsScale),
        drawing: .layer(makeDrawOperation(), isOpaque: isOpaque, backgroundColor: backgroundColor),
        recycler: pixelRecycler, shown: DrawJob.ShownContents(contents), generation: generation,
        counter: generationCounter, isCancellable: cancelsInFlightDraws, recorder: recorder,
        pollHook: cancellationPollHook)
    } catch {
      return endDisplay(.failed(error, cpuTime: .zero), as: .fail(isCurrent: true))
    }
    guard displaysAsynchronously else {
      // In place on the loop: nothing can change meanwhile, so the result is current.
      let start = ThreadCPUClock.now()
      do {
        let image = try job.render(isCancelled: { false })
        endDisplay(.rendered(image, cpuTime: ThreadCPUClock.now() - start), as: .commit)
      } catch {
        endDisplay(.failed(error, cpuTime: ThreadCPUClock.now() - start), as: .fail(isCurrent: true))
      }
      return
    }
    let replaced = contents
    switch staleContentsPolicy {
    case .keep: break
    case .clear: contents = nil
    case .placeholder(let color): contents = RenderedImage(solid: color, renderer: job.renderer)
    }
    if case .keep = staleContentsPolicy {} else { RenderedImage.releaseOffLoop(pixelRecycler.keep(consume replaced)) }
    let owner = LoopBound(WeakLayer(self), loop: loop)
    let loop = loop
    let ticket = job.enqueue(on: pool) { outcome in
      loop.perform { owner.value.layer?.drawEnded(generation: generation, outcome: outcome) }
    }
    displayState.drawEnqueued(generation: generation, ticket: ticket)
  }

  /// Takes a draw that has not started off its queue; it then ends at once, as cancelled.
  private func cancelIfQueued(_ ticket: PoolTicket?) {
    // A running draw stops by itself at its next check and reports on the loop.
    guard let ticket, let generation = displayState.inFlight?.generation, ticket.cancel() else { return }
    recorder.record(.cancelledBeforeStart)
    drawEnded(generation: generation, outcome: .cancelled)
  }

  /// The end of a draw, on the loop: the machine re-checks the generation before the commit.
  func drawEnded(generation: UInt64, outcome: DrawOutcome) {
    loop.preconditionInLoop()
    let action = displayState.drawEnded(generation: generation, outcome: outcome.kind)
    endDisplay(outcome, as: action.result)
    if action.startsWaitingDisplay { display() }
  }

  /// Does what the machine answered (`result`; a display that ends at once is current), updates
  /// the results and calls ``didDisplay(finished:)`` — once per display.
  private func endDisplay(_ outcome: DrawOutcome, as result: DisplayStateMachine<PoolTicket>.EndAction.Result) {
    let finished = outcome.apply(
      result, to: &contents, lastError: &lastError, recorder: recorder, recycler: pixelRecycler)
    displayStateDidChange()
    didDisplay(finished: finished)
  }
}
