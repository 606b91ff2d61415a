import Dispatch

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
      return endDisplay(.commit(nil), cpuTime: .zero)
    }
    let job: DrawJob
    do {
      job = DrawJob(
        renderer: try ImageRenderer(size: size, scale: contentsScale), isOpaque: isOpaque,
        backgroundColor: backgroundColor, operation: makeDrawOperation())
    } catch {
      return endDisplay(.fail(error, isCurrent: true), cpuTime: .zero)
    }
    guard displaysAsynchronously else {
      let start = ThreadCPUClock.now()
      do {
        let image = try job.render(isCancelled: { false })
        endDisplay(.commit(image), cpuTime: ThreadCPUClock.now() - start)
      } catch {
        endDisplay(.fail(error, isCurrent: true), cpuTime: ThreadCPUClock.now() - start)
      }
      return
    }
    let replaced = contents
    switch staleContentsPolicy {
    case .keep: break
    case .clear: contents = nil
    case .placeholder(let color): contents = RenderedImage(solid: color, renderer: job.renderer)
    }
    if case .keep = staleContentsPolicy {} else { RenderedImage.releaseOffLoop(consume replaced) }
    let owner = LoopBound(WeakLayer(self), loop: loop)
    let loop = loop
    let ticket = GenerationCheckedJob(
      generation: generation, counter: generationCounter, isCancellable: cancelsInFlightDraws,
      recorder: recorder, pollHook: cancellationPollHook, renderedHook: nil,
      render: { try job.render(isCancelled: $0) }
    ).enqueue(on: pool) { outcome in
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
    switch (action.result, outcome) {
    case (.commit, .rendered(let image, let cpuTime)): endDisplay(.commit(image), cpuTime: cpuTime)
    case (.discard, .rendered(_, let cpuTime)), (.discard, .stale(let cpuTime)): endDisplay(.discard, cpuTime: cpuTime)
    case (.fail(let isCurrent), .failed(let error, let cpuTime)):
      endDisplay(.fail(error, isCurrent: isCurrent), cpuTime: cpuTime)
    default: endDisplay(.cancelled, cpuTime: .zero)
    }
    if action.startsWaitingDisplay { display() }
  }

  /// How a display ended, with what the layer keeps.
  private enum DisplayEnd {
    case commit(RenderedImage?)
    case discard
    case cancelled
    case fail(any Error, isCurrent: Bool)
  }

  /// Counts the end, updates the results and calls ``didDisplay(finished:)`` — once per display.
  private func endDisplay(_ end: DisplayEnd, cpuTime: Duration) {
    switch end {
    case .commit(let image):
      let replaced = contents
      contents = image
      RenderedImage.releaseOffLoop(consume replaced)
      lastError = nil
      recorder.record(.committed, cpuTime: cpuTime)
    case .discard:
      recorder.record(.discardedAtCommit, cpuTime: cpuTime)
    case .cancelled:
      break
    case .fail(let error, let isCurrent):
      if isCurrent { lastError = error }
      recorder.record(.failed, cpuTime: cpuTime)
    }
    displayStateDidChange()
    if case .commit = end { didDisplay(finished: true) } else { didDisplay(finished: false) }
  }
}

/// Everything a draw needs, captured on the loop.
struct DrawJob: Sendable {
  let renderer: ImageRenderer
  let isOpaque: Bool
  let backgroundColor: Color?
  let operation: DrawOperation?

  func render(isCancelled: @escaping () -> Bool) throws -> RenderedImage {
    try renderer.render(isCancelled: isCancelled) { context in
      let bounds = Rect(origin: .zero, size: renderer.size)
      if isOpaque, !(backgroundColor?.isOpaque ?? false) { context.clear(to: .white) }
      if let backgroundColor { context.fill(bounds, color: backgroundColor) }
      try operation?.draw(context)
    }
  }
}

/// A weak reference, so that a queued draw does not keep its layer alive.
final class WeakLayer {
  weak var layer: AsyncLayer?
  init(_ layer: AsyncLayer) { self.layer = layer }
}

extension RenderedImage {
  /// Images at least this large are freed off the loop when replaced.
  static let offLoopReleaseBytes = 1 << 20

  /// Lets go of a replaced image on a background thread when it is large: freeing tens of
  /// megabytes (a long document at 2×) returns its pages to the kernel, which would take a frame's
  /// time on the loop. If someone else still holds the image, it is freed wherever they let go.
  /// Call with the last reference, moved in (`consume`), so that the background thread's is the
  /// last one.
  static func releaseOffLoop(_ image: consuming RenderedImage?) {
    guard let count = image?.pixels.count, count >= offLoopReleaseBytes / 4 else { return }
    let box = ReleaseBox(image)
    DispatchQueue.global(qos: .utility).async { box.image = nil }
  }

  /// Carries an image to the thread that frees it.
  // @unchecked: written on the loop before the dispatch and then only by the dispatched block,
  // which the dispatch orders after it.
  private final class ReleaseBox: @unchecked Sendable {
    var image: RenderedImage?
    init(_ image: consuming RenderedImage?) { self.image = image }
  }

  /// A solid image of `color` at the renderer's pixel size.
  init(solid color: Color, renderer: ImageRenderer) {
    // Clamped (NaN as 0) first: a channel outside 0…1 would not fit its byte.
    let color = color.clamped
    func channel(_ value: Double) -> UInt32 { UInt32((value * color.alpha * 255).rounded()) }
    let alpha = UInt32((color.alpha * 255).rounded())
    let pixel = alpha << 24 | channel(color.red) << 16 | channel(color.green) << 8 | channel(color.blue)
    self.init(
      pixelWidth: renderer.pixelWidth, pixelHeight: renderer.pixelHeight, scale: renderer.scale,
      pixels: [UInt32](repeating: pixel, count: renderer.pixelWidth * renderer.pixelHeight))
  }
}
