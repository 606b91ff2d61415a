/// One draw on the pool — a layer's contents or a root's composite — checked against the
/// generation it started with: before it starts (a stale job does not draw), at each of its
/// cancellation checks, and again on the loop before its result commits.
///
/// Drawing and compositing both use it, so the steps are written once. Its end reaches the loop
/// exactly once, through `end`, whatever happens: drawn, cancelled, failed, or refused by a pool
/// that was shut down.
struct GenerationCheckedJob: Sendable {
  /// The generation the job draws for.
  let generation: UInt64
  /// The owner's published draw status.
  let counter: GenerationCounter
  /// False for a draw that must run to its end whatever the generation (`.neverCancel`).
  let isCancellable: Bool
  /// Where the job's outcome and CPU time are counted.
  let recorder: StatisticsRecorder
  /// Called on the draw thread at each cancellation check (tests hold draws here).
  let pollHook: (@Sendable () -> Void)?
  /// Called on the draw thread after a successful render, before the end is handed to the loop.
  let renderedHook: (@Sendable () -> Void)?
  /// The drawing itself; it polls `isCancelled`.
  let render: @Sendable (_ isCancelled: @escaping () -> Bool) throws -> RenderedImage

  /// Enqueues the job on `pool`. `end` receives the outcome once, on the draw thread, or on the
  /// calling thread when the pool refuses the job; it hops to the loop itself.
  func enqueue(on pool: QueuePool, end: @escaping @Sendable (DrawOutcome) -> Void) -> PoolTicket {
    pool.enqueue(
      {
        guard let outcome = run() else { return end(.cancelled) }
        end(outcome)
      },
      refused: { end(.failed(QueuePoolError.shutDown, cpuTime: .zero)) })
  }

  /// Draws, or returns nil when the generation moved on before the draw started.
  private func run() -> DrawOutcome? {
    let generation = generation
    let counter = counter
    let isCancellable = isCancellable
    guard !isCancellable || counter.current == generation else {
      recorder.record(.cancelledBeforeStart)
      return nil
    }
    let pollHook = pollHook
    let isCancelled: () -> Bool = {
      pollHook?()
      return isCancellable && counter.current != generation
    }
    let start = ThreadCPUClock.now()
    do {
      let image = try render(isCancelled)
      renderedHook?()
      let cpuTime = ThreadCPUClock.now() - start
      // Generations only grow: a result stale now is stale at the commit. It is dropped here, on
      // the draw thread, so that the loop never frees a large image it will not show.
      guard counter.current == generation else { return .stale(cpuTime: cpuTime) }
      return .rendered(image, cpuTime: cpuTime)
    } catch {
      let cpuTime = ThreadCPUClock.now() - start
      if error is CancellationError || (isCancellable && counter.current != generation) {
        recorder.record(.cancelledMidDraw, cpuTime: cpuTime)
        return .cancelled
      }
      return .failed(error, cpuTime: cpuTime)
    }
  }
}

/// How a draw on the pool ended.
enum DrawOutcome: Sendable {
  case rendered(RenderedImage, cpuTime: Duration)
  /// Rendered, but the generation had moved on by the end: the image was dropped on the draw thread.
  case stale(cpuTime: Duration)
  case cancelled
  case failed(any Error, cpuTime: Duration)

  /// The outcome as the state machine sees it.
  var kind: DisplayStateMachine<PoolTicket>.Outcome {
    switch self {
    case .rendered, .stale: .rendered
    case .cancelled: .cancelled
    case .failed: .failed
    }
  }
}
