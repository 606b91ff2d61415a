import AsyncLayer
import Foundation
import HummingbirdTesting
import Testing
import TileServer

/// Hang-up detection that keeps connections alive: requests on one connection are answered without
/// `Connection: close`, and a client that closes its connection while its draw waits cancels it.
@Suite struct KeepAliveTests {
  @Test func twoRequestsOnOneConnectionThenAHangUpCancelsTheThird() async throws {
    let setup = TestServer(queues: 1)
    try await setup.test { client in
      let port = try #require(client.port)
      let connection = try RawHTTPConnection(port: port)
      for text in ["one", "two"] {
        try await connection.send(get: "/tile.png?text=\(text)")
        let reply = try await connection.receive()
        #expect(reply.status == 200)
        #expect(reply.headers["connection"] != "close", "\(reply.headers)")
        #expect(reply.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
      }
      // The third request's draw waits behind the gate; the client hangs up meanwhile.
      let gate = Gate()
      _ = setup.pool.enqueue { gate.hold() }
      await gate.waitUntilHeld()
      defer { gate.open() }
      try await connection.send(get: "/tile.png?text=three&timeout=60000")
      // Behind the gate the draw stays queued until the hang-up: two pending holds until then.
      try await eventually("the third draw queued behind the gate") { setup.pool.pendingCount == 2 }
      connection.hangUp()
      // The draw leaves its queue at once (only the gate's item is left), before the gate opens.
      try await eventually("the hung-up draw off its queue") { setup.pool.pendingCount == 1 }
      // The pool counts the cancelled run just after its pending count drops, and the route counts
      // the hang-up (a 499 nobody reads) once the handler returns.
      let expected = [
        #"asynclayer_draws_cancelled_total{stage="queued"} 1"#, "asynclayer_client_hangups_total 1",
        "asynclayer_draws_completed_total 2",
      ]
      try await eventually("the metrics counting the hang-up") {
        let metrics = setup.metrics.text
        return expected.allSatisfy { metrics.contains($0) }
      }
      let metrics = setup.metrics.text
      for line in expected { #expect(metrics.contains(line), "\(line) missing in:\n\(metrics)") }
    }
  }

  /// A client that closes its connection part-way through a body is a hang-up (499), not a server
  /// error (500): the metrics must not blame the server for it.
  @Test func aHangUpInTheMiddleOfABodyIsCountedAsAHangUp() async throws {
    let setup = TestServer(queues: 1)
    try await setup.test { client in
      let connection = try RawHTTPConnection(port: try #require(client.port))
      let head =
        "POST /tile.png HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Content-Length: 81000\r\n\r\n"
      try await connection.send(raw: Array((head + #"{"text": ""# + String(repeating: "a", count: 1000)).utf8))
      connection.hangUp()
      let expected = #"asynclayer_http_requests_total{route="/tile.png",method="POST",status="499"} 1"#
      try await eventually("a 499 in the metrics") { setup.metrics.text.contains(expected) }
      let metrics = setup.metrics.text
      #expect(metrics.contains("asynclayer_client_hangups_total 1"), "\(metrics)")
      #expect(!metrics.contains(#"status="500""#), "\(metrics)")
    }
  }

  /// Without the hang-up, the same request on a kept-alive connection is drawn and answered.
  @Test func aRequestAfterOthersOnTheSameConnectionIsAnswered() async throws {
    let setup = TestServer(queues: 1)
    try await setup.test { client in
      let connection = try RawHTTPConnection(port: try #require(client.port))
      defer { connection.hangUp() }
      for index in 0..<5 {
        try await connection.send(get: "/tile.png?text=\(index)")
        #expect(try await connection.receive().status == 200)
      }
    }
  }
}
