// Requesting, starting, cancelling and committing displays.
extension AsyncLayer {
  /// Marks the layer for display at the end of this turn and cancels the draw in flight.
  ///
  /// The generation moves on at once, so a running draw stops at its next cancellation check and a
  /// queued one leaves its queue (O(1)). Further calls before the display only count as coalesced.
  public func setNeedsDisplay() {
    loop.preconditionInLoop()
    recorder.record(.requested)
    if needsDisplay {
      recorder.record(.coalesced)
      return
    }
    needsDisplay = true
    generationCounter.advance()
    cancelQueuedDraw()
    if !loop.collector.add(self, action: .display, { $0.displayIfNeeded() }) {
      recorder.record(.coalesced)
    }
  }

  /// Displays now if the layer is marked for display.
  public func displayIfNeeded() {
    loop.preconditionInLoop()
    if needsDisplay { display() }
  }

  /// Cancels the draw in flight without starting another; the contents stay as they are.
  public func cancelDisplay() {
    loop.preconditionInLoop()
    generationCounter.advance()
    cancelQueuedDraw()
  }

  /// Starts a display now: captures the drawing state, then draws on the pool (or in place when
  /// ``displaysAsynchronously`` is false). Cancels any draw in flight.
  public func display() {
    loop.preconditionInLoop()
    needsDisplay = false
    let generation = generationCounter.advance()
    cancelQueuedDraw()
    recorder.record(.displays)
    willDisplay()

    guard !size.isEmpty else {
      // Nothing to draw into: empty contents are the result, committed at once.
      contents = nil
      lastError = nil
      recorder.record(.committed)
      didDisplay(finished: true)
      return
    }
    let job: DrawJob
    do {
      job = DrawJob(
        renderer: try ImageRenderer(size: size, scale: contentsScale), isOpaque: isOpaque,
        backgroundColor: backgroundColor, operation: makeDrawOperation())
    } catch {
      lastError = error
      recorder.record(.failed)
      didDisplay(finished: false)
      return
    }
    if displaysAsynchronously {
      startAsynchronousDraw(job, generation: generation)
    } else {
      drawSynchronously(job)
    }
  }

  private func drawSynchronously(_ job: DrawJob) {
    let start = ThreadCPUClock.now()
    do {
      let image = try job.render(isCancelled: { false })
      let cpuTime = ThreadCPUClock.now() - start
      contents = image
      lastError = nil
      recorder.record(.committed, cpuTime: cpuTime)
      didDisplay(finished: true)
    } catch {
      lastError = error
      recorder.record(.failed, cpuTime: ThreadCPUClock.now() - start)
      didDisplay(finished: false)
    }
  }

  private func startAsynchronousDraw(_ job: DrawJob, generation: UInt64) {
    switch staleContentsPolicy {
    case .keep: break
    case .clear: contents = nil
    case .placeholder(let color): contents = RenderedImage(solid: color, renderer: job.renderer)
    }
    let counter = generationCounter
    let recorder = recorder
    let pollHook = cancellationPollHook
    let loop = loop
    let owner = LoopBound(WeakLayer(self), loop: loop)
    let cancellable = cancelsInFlightDraws
    let ticket = pool.enqueue {
      guard !cancellable || counter.current == generation else {
        recorder.record(.cancelledBeforeStart)
        loop.perform { owner.value.layer?.endDraw(generation: generation, outcome: .cancelled) }
        return
      }
      let isCancelled: () -> Bool = {
        pollHook?()
        return cancellable && counter.current != generation
      }
      let start = ThreadCPUClock.now()
      let outcome: DrawOutcome
      do {
        outcome = .rendered(try job.render(isCancelled: isCancelled), cpuTime: ThreadCPUClock.now() - start)
      } catch {
        let cpuTime = ThreadCPUClock.now() - start
        if error is CancellationError || counter.current != generation {
          recorder.record(.cancelledMidDraw, cpuTime: cpuTime)
          outcome = .cancelled
        } else {
          outcome = .failed(error, cpuTime: cpuTime)
        }
      }
      loop.perform { owner.value.layer?.endDraw(generation: generation, outcome: outcome) }
    }
    inFlight = (generation, ticket)
  }

  /// Takes a draw that has not started off its queue, and reports it as cancelled.
  func cancelQueuedDraw() {
    guard cancelsInFlightDraws, let draw = inFlight else { return }
    // A running draw stops by itself at its next check and reports on the loop.
    guard draw.ticket.cancel() else { return }
    inFlight = nil
    recorder.record(.cancelledBeforeStart)
    didDisplay(finished: false)
  }

  /// The end of a draw, on the loop: the commit, re-checking the generation.
  func endDraw(generation: UInt64, outcome: DrawOutcome) {
    loop.preconditionInLoop()
    if inFlight?.generation == generation { inFlight = nil }
    let isCurrent = generationCounter.current == generation
    switch outcome {
    case .rendered(let image, let cpuTime):
      guard isCurrent else {
        recorder.record(.discardedAtCommit, cpuTime: cpuTime)
        return didDisplay(finished: false)
      }
      contents = image
      lastError = nil
      recorder.record(.committed, cpuTime: cpuTime)
      didDisplay(finished: true)
    case .cancelled:
      didDisplay(finished: false)
    case .failed(let error, let cpuTime):
      if isCurrent { lastError = error }
      recorder.record(.failed, cpuTime: cpuTime)
      didDisplay(finished: false)
    }
  }
}

/// How a draw on the pool ended.
enum DrawOutcome: Sendable {
  case rendered(RenderedImage, cpuTime: Duration)
  case cancelled
  case failed(any Error, cpuTime: Duration)
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
