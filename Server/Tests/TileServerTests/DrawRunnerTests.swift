import AsyncLayer
import Foundation
import Synchronization
import Testing

@testable import TileServer

/// The tile route's cancellation path (``DrawRunner``): the deadline timer and the connection's
/// hang-up each stop a draw that is already running, through one ``PoolCancellation`` per request.
/// The draws here wait for `isCancelled()` at a gate-like loop: they end when, and only when, the
/// cancel reaches them (the 60-second bound is a safety net against a bug, not a wait).
@Suite struct DrawRunnerTests {
  /// A draw that tells `started` it runs, then polls `isCancelled` until it is true; returns
  /// whether it saw the cancel.
  static func drawUntilCancelled(_ started: Gate) -> @Sendable (@escaping @Sendable () -> Bool) throws -> Bool {
    { isCancelled in
      started.markHeld()
      let bound = ContinuousClock.now + .seconds(60)
      while !isCancelled() && ContinuousClock.now < bound {}
      return isCancelled()
    }
  }

  @Test func deadlineStopsARunningDraw() async throws {
    let setup = TestServer(queues: 1)
    let started = Gate()
    await #expect(throws: DeadlineExceeded.self) {
      try await setup.server.runner.draw(deadline: .milliseconds(100), Self.drawUntilCancelled(started))
    }
    #expect(setup.pool.pendingCount == 0)
    let metrics = setup.metrics.text
    #expect(metrics.contains(#"asynclayer_draws_cancelled_total{stage="running"} 1"#), "\(metrics)")
    #expect(!metrics.contains("asynclayer_undelivered_draw_cpu_seconds_total 0.0\n"), "\(metrics)")
  }

  @Test func hangUpStopsARunningDraw() async throws {
    let setup = TestServer(queues: 1)
    let started = Gate()
    let hangUp = ConnectionHangUp()
    let server = setup.server
    let drawn = Task {
      try await server.runner.draw(deadline: .seconds(60), hangUp: hangUp, Self.drawUntilCancelled(started))
    }
    await started.waitUntilHeld()
    #expect(hangUp.watchCount == 1)
    hangUp.fire()
    await #expect(throws: CancellationError.self) { try await drawn.value }
    #expect(hangUp.watchCount == 0)
    let metrics = setup.metrics.text
    #expect(metrics.contains(#"asynclayer_draws_cancelled_total{stage="running"} 1"#), "\(metrics)")
  }

  @Test func aConnectionThatHungUpAlreadyGetsNoDraw() async throws {
    let setup = TestServer(queues: 1)
    let hangUp = ConnectionHangUp()
    hangUp.fire()
    let ran = Atomic<Bool>(false)
    await #expect(throws: CancellationError.self) {
      try await setup.server.runner.draw(deadline: .seconds(60), hangUp: hangUp) { _ in
        ran.store(true, ordering: .relaxed)
      }
    }
    let didRun = ran.load(ordering: .relaxed)
    #expect(!didRun)
    #expect(setup.pool.statistics[0].enqueued == 0)
  }

  @Test func aDrawInTimeIsDeliveredAndLeavesNoWatchBehind() async throws {
    let setup = TestServer(queues: 1)
    let hangUp = ConnectionHangUp()
    let value = try await setup.server.runner.draw(deadline: .seconds(60), hangUp: hangUp) { isCancelled in
      isCancelled() ? 0 : 7
    }
    #expect(value == 7)
    #expect(hangUp.watchCount == 0)
    // A hang-up after the request ended cancels nothing (the connection's next request is not drawing).
    hangUp.fire()
    let metrics = setup.metrics.text
    #expect(metrics.contains("asynclayer_draws_completed_total 1"), "\(metrics)")
    let undelivered = metrics.split(separator: "\n").first {
      $0.hasPrefix("asynclayer_undelivered_draw_cpu_seconds_total ")
    }
    #expect(undelivered.flatMap { Double($0.split(separator: " ")[1]) } == 0, "\(metrics)")
  }
}
