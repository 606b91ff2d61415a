public import AsyncLayer
import CoreMetrics
import Foundation
public import Prometheus
import Synchronization

/// The server's metrics, in a registry of its own (no global `MetricsSystem.bootstrap`, so that tests
/// can run several servers in one process), emitted in Prometheus text format at `GET /metrics`.
///
/// The draw counters come from the pool's observer (``record(_:)``), one call per run's end.
public final class ServerMetrics: Sendable {
  /// The registry `GET /metrics` emits.
  public let registry: PrometheusCollectorRegistry
  let factory: PrometheusMetricsFactory

  let drawsCompleted: CoreMetrics.Counter
  let drawsFailed: CoreMetrics.Counter
  let drawsCancelledQueued: CoreMetrics.Counter
  let drawsCancelledRunning: CoreMetrics.Counter
  let cpuCompleted: FloatingPointCounter
  let cpuCancelled: FloatingPointCounter
  let cpuUndelivered: FloatingPointCounter
  let queueDepth: CoreMetrics.Gauge
  let overloaded: CoreMetrics.Counter
  let deadlines: CoreMetrics.Counter
  let hangUps: CoreMetrics.Counter

  private struct RequestKey: Hashable {
    var route: String
    var method: String
    var status: Int
  }

  /// The request counter and latency timer of each route, method and status seen: made once, not per
  /// request (making one through the factory builds its label list and takes the registry's lock).
  private let requestMetrics = Mutex<[RequestKey: (CoreMetrics.Counter, CoreMetrics.Timer)]>([:])

  /// Metrics in a new registry.
  public init() {
    registry = PrometheusCollectorRegistry()
    var factory = PrometheusMetricsFactory(registry: registry)
    // Tiles take milliseconds, reports up to seconds.
    factory.defaultDurationHistogramBuckets = [
      .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
      .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2_500), .seconds(5),
      .seconds(10),
    ]
    self.factory = factory
    drawsCompleted = Counter(label: "asynclayer_draws_completed_total", factory: factory)
    drawsFailed = Counter(label: "asynclayer_draws_failed_total", factory: factory)
    drawsCancelledQueued = Counter(
      label: "asynclayer_draws_cancelled_total", dimensions: [("stage", "queued")], factory: factory)
    drawsCancelledRunning = Counter(
      label: "asynclayer_draws_cancelled_total", dimensions: [("stage", "running")], factory: factory)
    cpuCompleted = FloatingPointCounter(
      label: "asynclayer_draw_cpu_seconds_total", dimensions: [("outcome", "completed")], factory: factory)
    cpuCancelled = FloatingPointCounter(
      label: "asynclayer_draw_cpu_seconds_total", dimensions: [("outcome", "cancelled")], factory: factory)
    cpuUndelivered = FloatingPointCounter(label: "asynclayer_undelivered_draw_cpu_seconds_total", factory: factory)
    queueDepth = CoreMetrics.Gauge(label: "asynclayer_queue_depth", factory: factory)
    overloaded = Counter(label: "asynclayer_overloaded_total", factory: factory)
    deadlines = Counter(label: "asynclayer_deadline_exceeded_total", factory: factory)
    hangUps = Counter(label: "asynclayer_client_hangups_total", factory: factory)
    // Present from the first scrape, at zero, so that rates and dashboards need no special case.
    for counter in [
      drawsCompleted, drawsFailed, drawsCancelledQueued, drawsCancelledRunning, overloaded, deadlines, hangUps,
    ] {
      counter.increment(by: 0)
    }
    for counter in [cpuCompleted, cpuCancelled, cpuUndelivered] { counter.increment(by: 0) }
    queueDepth.record(0)
  }

  /// Counts one run of the draw pool (its `onRunEnded` observer). The CPU of a run that was
  /// cancelled or failed is undelivered too: nobody got its image.
  public func record(_ run: PoolRunRecord) {
    let seconds = Double(run.cpuTime.components.seconds) + Double(run.cpuTime.components.attoseconds) * 1e-18
    switch run.outcome {
    case .completed:
      drawsCompleted.increment()
      cpuCompleted.increment(by: seconds)
    case .cancelledWhileQueued:
      drawsCancelledQueued.increment()
      cpuCancelled.increment(by: seconds)
      recordUndelivered(cpuSeconds: seconds)
    case .cancelledWhileRunning:
      drawsCancelledRunning.increment()
      cpuCancelled.increment(by: seconds)
      recordUndelivered(cpuSeconds: seconds)
    case .failed:
      drawsFailed.increment()
      cpuCompleted.increment(by: seconds)
      recordUndelivered(cpuSeconds: seconds)
    }
  }

  /// CPU a draw spent for a request that got no image: cancelled or failed (from ``record(_:)``),
  /// or, without cancellation, finished after its deadline (from ``DrawRunner``).
  func recordUndelivered(cpuSeconds: Double) {
    if cpuSeconds > 0 { cpuUndelivered.increment(by: cpuSeconds) }
  }

  /// A counter and a latency histogram for one route and status.
  func recordRequest(route: String, method: String, status: Int, duration: Duration) {
    let key = RequestKey(route: route, method: method, status: status)
    let (counter, timer) = requestMetrics.withLock { cache in
      if let known = cache[key] { return known }
      let made = (
        CoreMetrics.Counter(
          label: "asynclayer_http_requests_total",
          dimensions: [("route", route), ("method", method), ("status", String(status))], factory: factory),
        CoreMetrics.Timer(
          label: "asynclayer_http_request_duration_seconds", dimensions: [("route", route)], factory: factory)
      )
      cache[key] = made
      return made
    }
    counter.increment()
    timer.recordNanoseconds(duration.wholeNanoseconds)
  }

  /// The registry as Prometheus text, with the queue depth read now.
  func exposition(pendingCount: Int) -> [UInt8] {
    queueDepth.record(pendingCount)
    var buffer: [UInt8] = []
    buffer.reserveCapacity(4096)
    registry.emit(into: &buffer)
    return buffer
  }
}

extension Duration {
  /// Whole nanoseconds, saturating.
  var wholeNanoseconds: Int64 {
    let (seconds, attoseconds) = components
    let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    return overflow ? (seconds < 0 ? .min : .max) : product + attoseconds / 1_000_000_000
  }
}
