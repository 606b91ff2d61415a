import Synchronization

/// A layer whose contents are drawn off the loop, on a ``QueuePool``, and committed on the loop.
///
/// Its draw status is a generation that only increases. ``setNeedsDisplay()`` moves it on, which
/// cancels the draw in flight, and asks the loop's ``Collector`` for a display at the end of the
/// turn (so many requests in one turn make one display). ``display()`` snapshots the drawing state
/// on the loop and starts a draw that remembers its generation; the draw's
/// ``DrawingContext/isCancelled`` is "the generation has moved on", so draw code can stop at any
/// point, and the result becomes ``contents`` on the loop only if the generation is still the one
/// the draw started with. Generations never repeat, so an old draw cannot pass for a new one.
/// The whole life of a display is one state machine (`docs/architecture.md`): every display ends
/// with exactly one ``didDisplay(finished:)``.
///
/// A layer belongs to its loop's thread: every API checks it. Other threads reach a layer through
/// ``MainLoop/perform(_:)`` and ``LoopBound``.
///
/// ```swift
/// let layer = AsyncLayer(loop: loop)
/// layer.size = Size(width: 100, height: 40)
/// layer.isOpaque = true
/// layer.drawHandler = { context in
///   context.fill(roundedRect: Rect(x: 4, y: 4, width: 92, height: 32), cornerRadius: 8, color: .blue)
/// }
/// layer.onDidDisplay = { layer, finished in print(finished ? "shown" : "cancelled") }
/// ```
///
/// Subclasses override ``makeDrawOperation()`` (``TextLayer``). Layers form trees
/// (``addSublayer(_:)``, ``frame``, ``zPosition``, ``opacity``, ``masksToBounds``): every layer draws
/// its own contents on the pool, and the root composites the tree into ``compositedContents``.
open class AsyncLayer {
  /// The loop the layer lives on.
  public let loop: MainLoop
  /// Where asynchronous draws run.
  public let pool: QueuePool

  /// The display's life; changed only through `AsyncLayer+Display.swift`.
  var displayState = DisplayStateMachine<PoolTicket>()
  /// ``displayState``'s generation, as the draws on the pool read it.
  let generationCounter = GenerationCounter()
  /// The contents the last commit replaced, kept (when large) for the next draw to write over.
  let pixelRecycler = PixelRecycler()
  let recorder: StatisticsRecorder
  /// Called on the draw thread each time draw code polls for cancellation (tests hold draws here).
  var cancellationPollHook: (@Sendable () -> Void)?
  /// The layer's place in a tree (AsyncLayer+Sublayers.swift).
  var tree = LayerTreeState()
  /// The composite of the tree this layer roots, made on first use (AsyncLayer+Compositing.swift).
  var compositorStorage: LayerCompositor?

  /// Creates an empty layer on `loop`'s thread.
  public init(loop: MainLoop, pool: QueuePool = .shared) {
    loop.preconditionInLoop()
    self.loop = loop
    self.pool = pool
    self.recorder = StatisticsRecorder(parent: loop.layerStatisticsRecorder)
  }

  deinit {
    // A layer that goes away takes its queued draw off the pool and stops a running one.
    let ticket = displayState.cancel()
    generationCounter.publish(displayState.generation)
    if let ticket, ticket.cancel() { recorder.record(.cancelledBeforeStart) }
  }

  // MARK: Drawing state (changing it marks the layer for display)

  /// The size in points. Zero in either direction means no contents and no draw.
  public var size = Size.zero {
    didSet { if size != oldValue { setNeedsDisplay() } }
  }

  /// Device pixels per point of the contents.
  public var contentsScale: Double = 1 {
    didSet { if contentsScale != oldValue { setNeedsDisplay() } }
  }

  /// An opaque layer fills every pixel: its background first, white where that is missing or
  /// translucent.
  public var isOpaque = false {
    didSet { if isOpaque != oldValue { setNeedsDisplay() } }
  }

  /// Filled before the draw operation runs.
  public var backgroundColor: Color? {
    didSet { if backgroundColor != oldValue { setNeedsDisplay() } }
  }

  /// The base layer's drawing, used by ``makeDrawOperation()`` (subclasses draw their own way).
  public var drawHandler: (@Sendable (DrawingContext) throws -> Void)? {
    didSet { setNeedsDisplay() }
  }

  // MARK: Behaviour

  /// Draw on the pool (true, the default) or in place on the loop inside ``display()``.
  public var displaysAsynchronously = true

  /// What ``contents`` shows while a new asynchronous draw is pending.
  public var staleContentsPolicy = StaleContentsPolicy.keep

  /// What a new display does with a draw of an older state still running: cancel it (the
  /// default) or let it finish and show first. See ``RedisplayPolicy``.
  public var redisplayPolicy = RedisplayPolicy.cancelRunningDraw

  /// False lets every started draw run to its end and only discards it at the commit — how layers
  /// without a cancellable draw status behave, kept to measure what cancellation saves
  /// (`layerbench scroll --modes async-nocancel`). Overrides ``redisplayPolicy``.
  package var cancelsInFlightDraws = true

  /// Called on the loop when a display starts, before the drawing state is captured.
  public var onWillDisplay: ((AsyncLayer) -> Void)?

  /// Called on the loop when a display ends: `true` when its result is now ``contents``, `false`
  /// when it was cancelled, discarded as stale, or failed.
  /// A draw replaced while it runs reports `false` when it stops, which can be after the next
  /// display has started; every display ends with exactly one call.
  public var onDidDisplay: ((AsyncLayer, _ finished: Bool) -> Void)?

  // MARK: Results

  /// The rendered image, or nil before the first commit and for a zero size.
  public internal(set) var contents: RenderedImage?

  /// The error of the last failed draw, cleared by the next commit.
  public internal(set) var lastError: (any Error)?

  /// True between ``setNeedsDisplay()`` and the display the collector runs for it.
  public var needsDisplay: Bool { displayState.needsDisplay }

  /// True while a display is requested, waiting for a running draw, or drawing and not yet ended.
  public var isDisplayPending: Bool {
    loop.preconditionInLoop()
    return displayState.isPending
  }

  /// The current draw generation: it grows with every request and display.
  public var generation: UInt64 { displayState.generation }

  /// This layer's counters.
  public var statistics: DisplayStatistics { recorder.snapshot }

  // MARK: Overridable points

  /// Captures the drawing state on the loop as a `Sendable` operation; nil draws only the
  /// background. The base class returns ``AsyncLayer/drawHandler``.
  open func makeDrawOperation() -> DrawOperation? {
    drawHandler.map(DrawOperation.init)
  }

  /// Called on the loop when a display starts. Calls ``onWillDisplay``.
  open func willDisplay() {
    onWillDisplay?(self)
  }

  /// Called on the loop when a display ends. Calls ``onDidDisplay``.
  open func didDisplay(finished: Bool) {
    onDidDisplay?(self, finished)
  }
}
