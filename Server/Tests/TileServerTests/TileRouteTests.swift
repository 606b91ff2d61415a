import AsyncLayer
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TileServer

@Suite struct TileRouteTests {
  @Test func getReturnsAPNGOfTheAskedSize() async throws {
    try await TestServer().test { client in
      let response = try await client.execute(
        uri: "/tile.png?text=\(q("Hello, 世界"))&width=200&height=50&scale=2&bg=white&fg=%23336699", method: .get)
      #expect(response.status == .ok)
      #expect(response.headers[.contentType] == "image/png")
      let image = try RenderedImage(pngData: response.bytes)
      #expect(image.pixelWidth == 400)
      #expect(image.pixelHeight == 100)
      // Text was drawn: some pixel is not the white background.
      #expect(image.pixels.contains { $0 != 0xffff_ffff })
    }
  }

  @Test func postTakesABatchLine() async throws {
    try await TestServer().test { client in
      let line =
        #"{"id": "t1", "markup": "<b>Hi</b> there", "width": 120, "height": 30, "scale": 1, "align": "center"}"#
      let response = try await client.execute(uri: "/tile.png", method: .post, body: ByteBuffer(line))
      #expect(response.status == .ok)
      let image = try RenderedImage(pngData: response.bytes)
      #expect(image.pixelWidth == 120)
      #expect(image.pixelHeight == 30)
    }
  }

  @Test func fittedHeightFollowsTheText() async throws {
    try await TestServer().test { client in
      let one = try await client.execute(uri: "/tile.png?text=one&width=100&scale=1", method: .get)
      let three = try await client.execute(
        uri: "/tile.png?text=\(q("one\ntwo\nthree"))&width=100&scale=1", method: .get)
      let a = try RenderedImage(pngData: one.bytes)
      let b = try RenderedImage(pngData: three.bytes)
      #expect(a.pixelWidth == 100)
      // Three lines and the same 8-point padding above and below (16 px at scale 1).
      #expect(b.pixelHeight - 16 > 2 * (a.pixelHeight - 16))
    }
  }

  /// Each bad query item gets 400 naming the field.
  @Test(arguments: [
    ("width=nan", "width"), ("width=inf", "width"), ("width=1e400", "width"), ("width=abc", "width"),
    ("width=-5", "width"), ("width=0x10", "width"), ("height=0", "height"), ("scale=0", "scale"),
    ("scale=NaN", "scale"), ("scale=100", "scale"), ("padding=-1", "padding"), ("padding=200", "padding"),
    ("maxLines=1.5", "maxLines"), ("max-lines=-1", "maxLines"), ("lineSpacing=-100", "lineSpacing"),
    ("fg=notacolour", "fg"), ("bg=%23ggg", "bg"), ("align=diagonal", "align"), ("wrap=x", "wrap"),
    ("timeout=0", "timeout"), ("timeout=1e9", "timeout"), ("frobnicate=1", "frobnicate"),
    ("font-file=/etc/passwd", "font-file"), ("width=10000&height=10000", "height"),
  ])
  func badQueryItemsGet400(item: String, field: String) async throws {
    try await TestServer().test { client in
      let response = try await client.execute(uri: "/tile.png?text=x&\(item)", method: .get)
      #expect(response.status == .badRequest, "\(item)")
      #expect(response.headers[.contentType] == "application/json")
      #expect(response.errorBody.field == field, "\(item): \(response.errorBody.error)")
    }
  }

  @Test(arguments: [
    ("markup=\(q("<b>unclosed"))", "markup"), ("markup=\(q("<blink>x</blink>"))", "markup"),
    ("text=%20%20", "text"), ("font=\(q("Sans 5000"))", "font"),
  ])
  func badTextGets400(item: String, field: String) async throws {
    try await TestServer().test { client in
      let response = try await client.execute(
        uri: "/tile.png?\(item)\(item.hasPrefix("font") ? "&text=x" : "")", method: .get)
      #expect(response.status == .badRequest, "\(item)")
      #expect(response.errorBody.field == field, "\(item): \(response.errorBody.error)")
    }
  }

  @Test(arguments: [
    (#"{"text": "x", "width": "wide"}"#, "width"), (#"{"text": "x", "width": true}"#, "width"),
    (#"{"text": "x", "colour": "red"}"#, "colour"),
    (#"{"text": "x", "markup": "y"}"#, "markup"), (#"{"width": 10}"#, "text"), (#"[1, 2]"#, "body"),
    (#"{"text": "x", "id": true}"#, "id"), (#"{"markup": "<i>x"}"#, "markup"), ("not json", "body"),
  ])
  func badJSONGets400(body: String, field: String) async throws {
    try await TestServer().test { client in
      let response = try await client.execute(uri: "/tile.png", method: .post, body: ByteBuffer(body))
      #expect(response.status == .badRequest, "\(body)")
      #expect(response.errorBody.field == field, "\(body): \(response.errorBody.error)")
    }
  }

  @Test func textOverTheLimitGets400() async throws {
    var limits = ServerLimits()
    limits.maximumTextBytes = 100
    try await TestServer(limits: limits).test { client in
      let response = try await client.execute(
        uri: "/tile.png?text=\(String(repeating: "a", count: 101))", method: .get)
      #expect(response.status == .badRequest)
      #expect(response.errorBody.field == "text")
    }
  }

  @Test func bodyOverTheLimitGets413() async throws {
    var limits = ServerLimits()
    limits.maximumBodyBytes = 1_000
    try await TestServer(limits: limits).test { client in
      let big = #"{"text": "\#(String(repeating: "a", count: 2_000))"}"#
      let response = try await client.execute(uri: "/tile.png", method: .post, body: ByteBuffer(big))
      #expect(response.status == .contentTooLarge)
      #expect(response.errorBody.field == "body")
      let report = try await client.execute(uri: "/report", method: .post, body: ByteBuffer(big))
      #expect(report.status == .contentTooLarge)
    }
  }

  /// A fitted height over the pixel cap is refused by the library before it allocates.
  @Test func fittedTileOverThePixelCapGets400() async throws {
    var limits = ServerLimits()
    limits.maximumPixels = 100 * 100
    try await TestServer(limits: limits).test { client in
      let text = q(String(repeating: "line\n", count: 40))
      let response = try await client.execute(uri: "/tile.png?text=\(text)&width=100&scale=1", method: .get)
      #expect(response.status == .badRequest)
      #expect(response.errorBody.error.contains("memory cap"), "\(response.errorBody.error)")
    }
  }
}
