import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TileServer

/// `--bench-skip-draw`: the first tile is drawn, later requests get its PNG without a draw
/// (`handler`) or after a pool run that draws nothing (`pool`).
@Suite struct SkipDrawTests {
  @Test(arguments: ServerConfiguration.SkipDraw.allCases)
  func laterTilesAnswerTheFirstPNG(_ skip: ServerConfiguration.SkipDraw) async throws {
    let setup = TestServer(queues: 1, skipDraw: skip)
    try await setup.test { client in
      let first = try await client.execute(uri: "/tile.png?text=first", method: .get)
      let second = try await client.execute(uri: "/tile.png?text=\(q("a different text"))&width=200", method: .get)
      #expect(first.status == .ok)
      #expect(second.status == .ok)
      #expect(second.headers[.contentType] == "image/png")
      #expect(second.bytes == first.bytes)
      // Parsing still runs: a bad value is refused as without the option.
      let bad = try await client.execute(uri: "/tile.png?text=x&width=nan", method: .get)
      #expect(bad.status == .badRequest)
      // One draw, plus one pool run that returned the PNG under `pool`.
      let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
      #expect(metrics.contains("asynclayer_draws_completed_total \(skip == .pool ? 2 : 1)"), "\(metrics)")
    }
  }

  @Test func withoutTheOptionEveryTileIsDrawn() async throws {
    let setup = TestServer(queues: 1)
    try await setup.test { client in
      let first = try await client.execute(uri: "/tile.png?text=first", method: .get)
      let second = try await client.execute(uri: "/tile.png?text=\(q("a different text"))", method: .get)
      #expect(first.status == .ok && second.status == .ok)
      #expect(second.bytes != first.bytes)
    }
  }
}
