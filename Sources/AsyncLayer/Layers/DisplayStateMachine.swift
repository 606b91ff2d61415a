/// The life of a layer's displays — or of a root's composites — as pure state on the loop.
///
/// Each transition takes an event (a request, the collector's display, the end of a draw, a
/// cancellation) and returns what the layer must do; the layer does it outside, as
/// swift-async-algorithms' channel and merge state machines do. The machine holds no reference to
/// the layer, the pool or the draw threads, so a test can drive every transition by hand
/// (`DisplayStateMachineTests`, with plain numbers for tickets; layers use ``PoolTicket``).
///
/// The draw status is ``generation``: a number that only grows. A draw remembers the generation it
/// started with; it is cancelled when the generation moves on, and its result commits only if the
/// generation is still the same when it ends. The layer publishes the generation to its draws
/// through a ``GenerationCounter`` after each transition.
///
/// Every started display ends exactly once — with ``EndAction`` `commit`, `discard`, `cancelled` or
/// `fail` from ``drawEnded(generation:outcome:)``, or at once from ``startDisplay(policy:)`` for a
/// display that needs no draw — so the layer calls `didDisplay` exactly once per display.
///
/// | state (derived) | `requestDisplay` | `startDisplay` | `drawEnded` (current) | `cancel` |
/// |---|---|---|---|---|
/// | idle | → requested | start | — | idle |
/// | requested | coalesced | start | — | requested |
/// | drawing | → drawing + requested (cancels under `.cancelRunning`) | start, cancel the old (`.cancelRunning`, `.neverCancel`) or wait (`.finishRunning`) | → idle | cancels it |
/// | drawing + requested | coalesced | as drawing | → requested | cancels it |
/// | drawing, then redisplay (`.finishRunning`) | → + requested | wait | → start the waiting display | cancels it |
struct DisplayStateMachine<Ticket: Sendable>: Sendable {
  /// How a new display treats a draw of an older state that is still in flight.
  enum Policy: Sendable, Hashable {
    /// Cancel it: a queued draw leaves its queue, a running one stops at its next check.
    case cancelRunning
    /// Let a running draw finish and commit, then start the new display (a queued one is cancelled).
    case finishRunning
    /// Never cancel: every draw runs to its end and a stale result is discarded at the commit.
    case neverCancel
  }

  /// The draw of the current display, between its start and its end on the loop.
  struct InFlight: Sendable {
    let generation: UInt64
    let ticket: Ticket
  }

  /// How a draw ended, as far as the machine cares.
  enum Outcome: Sendable, Hashable {
    case rendered
    case cancelled
    case failed
  }

  /// The draw status: grows with every request that cancels and every display started.
  private(set) var generation: UInt64 = 0
  /// A display is requested and the collector has not run it yet.
  private(set) var needsDisplay = false
  /// The current display's draw, not yet ended.
  private(set) var inFlight: InFlight?
  /// `.finishRunning`: a display waits for the draw in flight to end.
  private(set) var displayWaitsForDraw = false

  /// True while a display is requested, waiting or drawing.
  var isPending: Bool { needsDisplay || inFlight != nil || displayWaitsForDraw }

  // MARK: Requests

  /// What ``requestDisplay(policy:)`` asks of the layer.
  enum RequestAction: Sendable {
    /// A display is already requested: only count the request.
    case coalesced
    /// Ask the collector for a display; try to take `cancel`'s draw off its queue.
    case schedule(cancel: Ticket?)
  }

  /// `setNeedsDisplay()`: marks the display as needed and, under `.cancelRunning`, cancels the draw
  /// in flight at once (its result could only be discarded).
  mutating func requestDisplay(policy: Policy) -> RequestAction {
    guard !needsDisplay else { return .coalesced }
    needsDisplay = true
    guard policy == .cancelRunning else { return .schedule(cancel: nil) }
    generation &+= 1
    return .schedule(cancel: inFlight?.ticket)
  }

  /// A request withdrawn without a display (a composite whose tree has not settled waits for the
  /// next request).
  mutating func withdrawRequest() {
    needsDisplay = false
  }

  // MARK: Starting

  /// What ``startDisplay(policy:)`` asks of the layer.
  enum StartAction: Sendable {
    /// Draw at `generation`; try to take `cancel`'s draw off its queue (nil: nothing to cancel, or
    /// `.neverCancel`).
    case start(generation: UInt64, cancel: Ticket?)
    /// `.finishRunning` with a draw in flight: try to take it off its queue (it then ends as
    /// cancelled); otherwise it runs on, and its end starts this display.
    case wait(cancelIfQueued: Ticket)
  }

  /// The collector's display (or an explicit `display()`): starts a display now or after the
  /// draw in flight.
  mutating func startDisplay(policy: Policy) -> StartAction {
    needsDisplay = false
    if policy == .finishRunning, let inFlight {
      displayWaitsForDraw = true
      return .wait(cancelIfQueued: inFlight.ticket)
    }
    displayWaitsForDraw = false
    generation &+= 1
    return .start(generation: generation, cancel: policy == .neverCancel ? nil : inFlight?.ticket)
  }

  /// The display started by `.start` draws on the pool with `ticket`.
  mutating func drawEnqueued(generation: UInt64, ticket: Ticket) {
    guard generation == self.generation else { return }
    inFlight = InFlight(generation: generation, ticket: ticket)
  }

  // MARK: Ending

  /// What ``drawEnded(generation:outcome:)`` asks of the layer.
  struct EndAction: Sendable, Hashable {
    enum Result: Sendable, Hashable {
      /// The result is current: it becomes the contents; `didDisplay(true)`.
      case commit
      /// A stale result: drop it; `didDisplay(false)`.
      case discard
      /// Cancelled before or while drawing: `didDisplay(false)`.
      case cancelled
      /// Failed: keep the error as the last error when `isCurrent`; `didDisplay(false)`.
      case fail(isCurrent: Bool)
    }
    var result: Result
    /// A display waited for this draw (`.finishRunning`): start it now.
    var startsWaitingDisplay: Bool
  }

  /// A draw of `generation` ended (on the loop), or was taken off its queue.
  mutating func drawEnded(generation: UInt64, outcome: Outcome) -> EndAction {
    if inFlight?.generation == generation { inFlight = nil }
    let isCurrent = generation == self.generation
    let result: EndAction.Result
    switch outcome {
    case .rendered: result = isCurrent ? .commit : .discard
    case .cancelled: result = .cancelled
    case .failed: result = .fail(isCurrent: isCurrent)
    }
    let startsWaitingDisplay = displayWaitsForDraw && inFlight == nil
    if startsWaitingDisplay { displayWaitsForDraw = false }
    return EndAction(result: result, startsWaitingDisplay: startsWaitingDisplay)
  }

  // MARK: Cancelling

  /// `cancelDisplay()`: the draw in flight goes stale (and a waiting display with it); the
  /// contents stay. Returns the ticket to take off its queue.
  mutating func cancel() -> Ticket? {
    generation &+= 1
    displayWaitsForDraw = false
    return inFlight?.ticket
  }
}
