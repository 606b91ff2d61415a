import OrderedCollections

/// The pure state of an ``ImageLoader``: one flight per key, each with its waiters.
///
/// Transitions run under the loader's lock and return actions; the loader performs them (calls
/// deliveries, starts or cancels fetches and timeout timers) after the lock is released. Every waiter
/// leaves the machine exactly once — by completion, cancellation or timeout — so each is delivered
/// exactly once. A flight that ends, however it ends, hands back its timeout timer to cancel.
struct ImageLoaderStateMachine {
  typealias Delivery = @Sendable (Result<RenderedImage, ImageLoadError>) -> Void
  /// Stops a running piece of work (a fetch or a timeout timer).
  typealias Cancel = @Sendable () -> Void

  private struct Flight {
    let id: UInt64
    var waiters: OrderedDictionary<UInt64, Delivery> = [:]
    /// Set once the fetch is running; `nil` before, and for work that cannot be interrupted.
    var cancelFetch: Cancel?
    /// Set once the timeout timer is running.
    var cancelTimer: Cancel?
  }

  private var flights: [ImageCacheKey: Flight] = [:]
  private var keysByFlightID: [UInt64: ImageCacheKey] = [:]
  private var nextFlightID: UInt64 = 0

  /// Flights in progress.
  var flightCount: Int { flights.count }

  /// Waiters across all flights.
  var waiterCount: Int { flights.values.reduce(0) { $0 + $1.waiters.count } }

  enum AddWaiterAction {
    /// The key had no flight: the caller must start one with this id.
    case startFlight(id: UInt64)
    /// The waiter joined the flight already running for the key.
    case joined
  }

  mutating func addWaiter(id waiterID: UInt64, for key: ImageCacheKey, delivery: @escaping Delivery) -> AddWaiterAction
  {
    if flights[key] != nil {
      flights[key]!.waiters[waiterID] = delivery
      return .joined
    }
    nextFlightID += 1
    var flight = Flight(id: nextFlightID)
    flight.waiters[waiterID] = delivery
    flights[key] = flight
    keysByFlightID[flight.id] = key
    return .startFlight(id: flight.id)
  }

  enum CancelWaiterAction {
    /// The waiter had already been completed: nothing to do.
    case none
    /// Deliver `.cancelled` to the waiter; the flight continues for the others.
    case deliverCancelled(Delivery)
    /// The last waiter left: deliver `.cancelled` and stop the flight's work (its fetch, if it has
    /// started, and its timeout timer).
    case deliverCancelledAndStop(Delivery, [Cancel])
  }

  mutating func cancelWaiter(id waiterID: UInt64, for key: ImageCacheKey) -> CancelWaiterAction {
    guard var flight = flights[key], let delivery = flight.waiters.removeValue(forKey: waiterID) else { return .none }
    guard flight.waiters.isEmpty else {
      flights[key] = flight
      return .deliverCancelled(delivery)
    }
    flights[key] = nil
    keysByFlightID[flight.id] = nil
    return .deliverCancelledAndStop(delivery, [flight.cancelFetch, flight.cancelTimer].compactMap { $0 })
  }

  enum WorkStartedAction {
    case none
    /// The flight ended before the work was registered: stop the work now.
    case cancel(Cancel)
  }

  /// Registers the flight's running fetch, so that the last waiter leaving (or a timeout) stops it.
  mutating func fetchStarted(flightID: UInt64, cancel: @escaping Cancel) -> WorkStartedAction {
    guard let key = keysByFlightID[flightID] else { return .cancel(cancel) }
    flights[key]!.cancelFetch = cancel
    return .none
  }

  /// Registers the flight's timeout timer, so that a flight ending first stops it.
  mutating func timerStarted(flightID: UInt64, cancel: @escaping Cancel) -> WorkStartedAction {
    guard let key = keysByFlightID[flightID] else { return .cancel(cancel) }
    flights[key]!.cancelTimer = cancel
    return .none
  }

  /// Whether the flight still has waiters (work for a finished or abandoned flight can stop early).
  func isActive(flightID: UInt64) -> Bool { keysByFlightID[flightID] != nil }

  struct FinishAction {
    var deliveries: [Delivery] = []
    /// Work to stop: the timeout timer always, the fetch too when the flight ends before its fetch
    /// did (a timeout).
    var cancellations: [Cancel] = []
  }

  /// Ends the flight, handing back every waiter to deliver `result` to. No-op for an ended flight.
  mutating func finish(flightID: UInt64, stopFetch: Bool) -> FinishAction {
    guard let key = keysByFlightID.removeValue(forKey: flightID), let flight = flights.removeValue(forKey: key) else {
      return FinishAction()
    }
    return FinishAction(
      deliveries: Array(flight.waiters.values),
      cancellations: [stopFetch ? flight.cancelFetch : nil, flight.cancelTimer].compactMap { $0 })
  }
}
