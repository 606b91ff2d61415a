import AsyncLayer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The README's "On a server" handler, verbatim between the markers: it compiles, serves a tile, and
/// is what the README counts as the lines a handler needs.
@Suite struct ReadmeSnippetTests {
  static func router(pool: QueuePool) -> Router<BasicRequestContext> {
    let router = Router()
    // README snippet begins
    router.get("tile.png") { request, _ in
      try await request.body.consumeWithCancellationOnInboundClose { _ in  // a hang-up cancels the draw
        let text = request.uri.queryParameters["text"].map(String.init) ?? "Hello"
        let tile = TextTile(.plain(text), style: TextStyle(font: "Sans 14"), width: 375, scale: 2, background: .white)
        let image = try await tile.render(on: pool).image  // CancellationError, never a partial tile
        let png = try await pool.run { _ in try PNGEncoder().encode(image) }
        return Response(
          status: .ok, headers: [.contentType: "image/png"], body: .init(byteBuffer: ByteBuffer(bytes: png)))
      }
    }
    // README snippet ends
    return router
  }

  @Test func snippetServesATile() async throws {
    let pool = QueuePool(queueCount: 2, pendingLimit: 64)
    let app = Application(
      router: Self.router(pool: pool), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    try await app.test(.ahc(.http)) { client in
      let response = try await client.execute(uri: "/tile.png?text=Hi", method: .get)
      #expect(response.status == .ok)
      let image = try RenderedImage(pngData: Data(response.body.readableBytesView))
      #expect(image.pixelWidth == 750)
    }
  }
}
