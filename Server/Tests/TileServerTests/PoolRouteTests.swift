import AsyncLayer
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TileServer

/// Overload and deadlines, with the pool's one queue held by a gate: what waits behind it stays
/// queued until the test opens the gate, so the outcomes do not depend on timing.
@Suite struct PoolRouteTests {
  @Test func fullPoolGets503WithRetryAfter() async throws {
    let setup = TestServer(queues: 1, pendingLimit: 1)
    let gate = Gate()
    _ = setup.pool.enqueue { gate.hold() }
    await gate.waitUntilHeld()
    defer { gate.open() }
    try await setup.test { client in
      let response = try await client.execute(uri: "/tile.png?text=busy", method: .get)
      #expect(response.status == .serviceUnavailable)
      #expect(response.headers[.retryAfter] == "1")
      #expect(response.errorBody.error.contains("1"), "\(response.errorBody.error)")
      let metrics = try await client.execute(uri: "/metrics", method: .get)
      #expect(String(buffer: metrics.body).contains("asynclayer_overloaded_total 1"))
    }
  }

  /// A request past its deadline gets 504 and its queued draw leaves the queue at once.
  @Test func deadlineCancelsAQueuedDraw() async throws {
    let setup = TestServer(queues: 1)
    let gate = Gate()
    _ = setup.pool.enqueue { gate.hold() }
    await gate.waitUntilHeld()
    defer { gate.open() }
    try await setup.test { client in
      // The deadline (0.5 s) is long enough for the draw to be queued first, so that it is the
      // queued draw the deadline takes off; the test waits for that, not for a time.
      let request = Task { try await client.execute(uri: "/tile.png?text=late&timeout=500", method: .get) }
      // `enqueued` only grows: a poll cannot miss it, as it could miss the half second in which
      // `pendingCount` is 2 (a hang in CI on 2026-11-26, with the machine busy elsewhere).
      try await eventually("the draw queued behind the gate") { setup.pool.statistics[0].enqueued == 2 }
      let response = try await request.value
      #expect(response.status == .gatewayTimeout)
      #expect(response.errorBody.error.contains("deadline"))
      // Only the gate's item is left: the draw was taken off the queue, not left to run later.
      #expect(setup.pool.pendingCount == 1)
      // The 504 goes out as soon as the deadline flips the request's switch; the pool counts the
      // cancelled run just after, on the thread that cancelled it: wait for the count, then read
      // the metrics as a client does.
      let cancelled = #"asynclayer_draws_cancelled_total{stage="queued"} 1"#
      try await eventually("the queued cancel in the metrics") { setup.metrics.text.contains(cancelled) }
      let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
      #expect(metrics.contains(cancelled), "\(metrics)")
      #expect(metrics.contains("asynclayer_deadline_exceeded_total 1"))
      #expect(metrics.contains("asynclayer_queue_depth 1"))
    }
  }

  /// The same request without cancellation (`--no-cancel`) waits for its draw, which runs once the
  /// gate opens; the image is thrown away after the deadline and its CPU counted as undelivered.
  @Test func withoutCancellationTheDrawRunsAnyway() async throws {
    let setup = TestServer(queues: 1, cancellation: false)
    let gate = Gate()
    _ = setup.pool.enqueue { gate.hold() }
    await gate.waitUntilHeld()
    try await setup.test { client in
      async let response = client.execute(uri: "/tile.png?text=late&timeout=1", method: .get)
      // The request's draw is queued behind the gate (two pending) before the gate opens.
      try await eventually("the draw queued behind the gate") { setup.pool.pendingCount == 2 }
      gate.open()
      #expect(try await response.status == .gatewayTimeout)
      let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
      #expect(metrics.contains(#"asynclayer_draws_cancelled_total{stage="queued"} 0"#), "\(metrics)")
      // The gate's item went in with `enqueue`, not `run`: only the request's draw is a run.
      #expect(metrics.contains("asynclayer_draws_completed_total 1"), "\(metrics)")
      #expect(!metrics.contains("asynclayer_undelivered_draw_cpu_seconds_total 0.0\n"), "\(metrics)")
    }
  }

  @Test func metricsAndHealth() async throws {
    try await TestServer().test { client in
      #expect(try await client.execute(uri: "/tile.png?text=one", method: .get).status == .ok)
      #expect(try await client.execute(uri: "/tile.png?width=nan&text=x", method: .get).status == .badRequest)
      let health = try await client.execute(uri: "/health", method: .get)
      #expect(health.status == .ok)
      #expect(String(buffer: health.body).contains(#""status":"ok""#))
      let response = try await client.execute(uri: "/metrics", method: .get)
      #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
      let text = String(buffer: response.body)
      for line in [
        "asynclayer_draws_completed_total 1", #"asynclayer_draws_cancelled_total{stage="running"} 0"#,
        #"asynclayer_draws_cancelled_total{stage="queued"} 0"#,
        #"asynclayer_draw_cpu_seconds_total{outcome="cancelled"} 0"#,
        "asynclayer_queue_depth 0",
        #"asynclayer_http_requests_total{route="/tile.png",method="GET",status="200"} 1"#,
        #"asynclayer_http_requests_total{route="/tile.png",method="GET",status="400"} 1"#,
        #"asynclayer_http_request_duration_seconds_bucket{route="/tile.png",le="+Inf"} 2"#,
      ] {
        #expect(text.contains(line), "\(line) missing in:\n\(text)")
      }
      #expect(text.contains(#"asynclayer_draw_cpu_seconds_total{outcome="completed"}"#))
    }
  }
}
