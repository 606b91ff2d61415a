import Synchronization

/// One draw on the pool — a layer's contents or a root's composite of its tree — with everything
/// it needs, captured on the loop, and the generation it draws for.
///
/// A draw passes through these types, in this order:
///
/// 1. ``DrawOperation`` (public): the layer's drawing, captured on the loop by
///    `makeDrawOperation()` — copies of the text, colours and sizes, never the layer.
/// 2. `DrawJob` (this type): what is drawn (``Drawing``: the operation over the layer's
///    background, or a ``LayerTreeSnapshot``), into which ``ImageRenderer``, over which spare
///    pixels, for which generation. It checks the generation before it starts (a stale job does
///    not draw), at each cancellation check, and once more when rendered (a stale image is dropped
///    on the draw thread, not freed on the loop).
/// 3. ``PoolTicket`` (public): the loop's handle on the queued job. The state machine keeps it as
///    the draw in flight; cancelling it takes a job that has not started off its queue in O(1).
/// 4. `PoolWorkItem`: the queue's entry behind the ticket — the job's closure and its atomic
///    state (queued → running → finished, or queued → cancelled), which a worker claims.
/// 5. ``DrawOutcome``: how the job ended and with what (image, error, CPU time). It reaches the
///    loop exactly once — drawn, stale, cancelled, failed, or refused by a pool that was shut down.
/// 6. ``DisplayStateMachine``: `drawEnded(generation:outcome:)` re-checks the generation on the
///    loop and answers commit, discard, cancelled or fail. Its `Outcome` and `EndAction` are the
///    machine's own words for the same end, so that its tests need no image.
/// 7. `DrawOutcome.apply(_:to:lastError:recorder:recycler:)` does what the machine answered to the
///    owner's contents and counters; the `Bool` it returns is what `didDisplay(finished:)` and
///    `onDidComposite` report.
struct DrawJob: Sendable {
  /// What a job draws.
  enum Drawing: Sendable {
    /// A layer's contents: its background, then its operation (nil: the background only).
    case layer(DrawOperation?, isOpaque: Bool, backgroundColor: Color?)
    /// A root's composite of its tree, snapshotted on the loop.
    case tree(LayerTreeSnapshot)
  }

  // MARK: What it draws

  let renderer: ImageRenderer
  let drawing: Drawing
  /// The layer's spare buffer, which the draw writes over when it has the right size.
  var recycler: PixelRecycler? = nil
  /// The contents shown when the draw was asked for: a banded draw copies them and redraws what
  /// changed when the spare cannot serve.
  var shown: ShownContents? = nil

  // MARK: The generation it draws for

  /// The generation the job draws for.
  let generation: UInt64
  /// The owner's published draw status.
  let counter: GenerationCounter
  /// False for a draw that must run to its end whatever the generation (`.neverCancel`).
  let isCancellable: Bool
  /// Where the job's outcome and CPU time are counted.
  let recorder: StatisticsRecorder
  /// Called on the draw thread at each cancellation check (tests hold draws here).
  var pollHook: (@Sendable () -> Void)? = nil
  /// Called on the draw thread after a successful render, before the end is handed to the loop.
  var renderedHook: (@Sendable () -> Void)? = nil

  /// The shown contents, handed to the draw once: the draw lets go of them when it ends, not when
  /// the pool lets go of the job. Otherwise a finished job could still share them after they became
  /// the spare, and the next draw would copy the spare (copy on write) instead of writing over it.
  final class ShownContents: Sendable {
    private let image: Mutex<RenderedImage?>

    init(_ image: RenderedImage?) { self.image = Mutex(image) }

    func take() -> RenderedImage? { image.withLock { $0.take() } }
  }

  // MARK: Running

  /// Enqueues the job on `pool`. `end` receives the outcome once, on the draw thread, or on the
  /// calling thread when the pool refuses the job; it hops to the loop itself.
  func enqueue(on pool: QueuePool, end: @escaping @Sendable (DrawOutcome) -> Void) -> PoolTicket {
    pool.enqueue(
      { end(run()) },
      refused: { end(.failed(QueuePoolError.shutDown, cpuTime: .zero)) })
  }

  /// Draws with the generation checks.
  private func run() -> DrawOutcome {
    let generation = generation
    let counter = counter
    let isCancellable = isCancellable
    guard !isCancellable || counter.current == generation else {
      recorder.record(.cancelledBeforeStart)
      return .cancelled
    }
    let pollHook = pollHook
    let isCancelled: () -> Bool = {
      pollHook?()
      return isCancellable && counter.current != generation
    }
    let start = ThreadCPUClock.now()
    do {
      let image = try render(isCancelled: isCancelled)
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

  /// Draws on the calling thread, polling `isCancelled`, without the generation checks (`run()`
  /// makes them; a synchronous display calls this directly).
  func render(isCancelled: @escaping () -> Bool) throws -> RenderedImage {
    switch drawing {
    case .layer(let operation, let isOpaque, let backgroundColor):
      try renderLayer(operation, isOpaque: isOpaque, backgroundColor: backgroundColor, isCancelled: isCancelled)
    case .tree(let snapshot):
      try snapshot.render(renderer, isCancelled: isCancelled)
    }
  }
}
