import AsyncLayer
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TileServer

@Suite struct ReportRouteTests {
  static let spec = #"""
    {"title": "Server report", "page": {"width": 300, "height": 200}, "margins": 20,
     "content": [{"heading": "Hello"}, {"paragraph": "A paragraph drawn by the server."},
                 {"pageBreak": true}, {"markup": "<b>Page two</b>"}]}
    """#

  @Test func pdfHasEveryPage() async throws {
    try await TestServer().test { client in
      let response = try await client.execute(uri: "/report?format=pdf", method: .post, body: ByteBuffer(Self.spec))
      #expect(response.status == .ok)
      #expect(response.headers[.contentType] == "application/pdf")
      let pdf = String(decoding: response.bytes, as: UTF8.self)
      #expect(pdf.hasPrefix("%PDF-"))
      #expect(pdf.contains("/Count 2"))
    }
  }

  @Test func pngIsTheAskedPage() async throws {
    try await TestServer().test { client in
      let first = try await client.execute(uri: "/report?format=png", method: .post, body: ByteBuffer(Self.spec))
      #expect(first.status == .ok)
      let image = try RenderedImage(pngData: first.bytes)
      #expect(image.pixelWidth == 300)
      #expect(image.pixelHeight == 200)
      let second = try await client.execute(
        uri: "/report?format=png&page=2&scale=2", method: .post, body: ByteBuffer(Self.spec))
      let page2 = try RenderedImage(pngData: second.bytes)
      #expect(page2.pixelWidth == 600)
      #expect(page2.pixels != image.pixels)
      let third = try await client.execute(uri: "/report?format=png&page=3", method: .post, body: ByteBuffer(Self.spec))
      #expect(third.status == .badRequest)
      #expect(third.errorBody.field == "page")
    }
  }

  @Test func svgStacksThePages() async throws {
    try await TestServer().test { client in
      let response = try await client.execute(uri: "/report?format=svg", method: .post, body: ByteBuffer(Self.spec))
      #expect(response.status == .ok)
      #expect(response.headers[.contentType] == "image/svg+xml")
      #expect(String(decoding: response.bytes, as: UTF8.self).contains("<svg"))
    }
  }

  @Test(arguments: [
    ("format=doc", "format"), ("format=pdf&page=2", "page"), ("format=png&scale=inf", "scale"),
    ("format=png&page=0", "page"), ("pages=2", "pages"),
  ])
  func badQueryGets400(query: String, field: String) async throws {
    try await TestServer().test { client in
      let response = try await client.execute(uri: "/report?\(query)", method: .post, body: ByteBuffer(Self.spec))
      #expect(response.status == .badRequest, "\(query)")
      #expect(response.errorBody.field == field, "\(query): \(response.errorBody.error)")
    }
  }

  @Test(arguments: [
    (#"{"content": [{"paragraph": 3}]}"#, "spec.content[0].paragraph"),
    (#"{"content": [{"markup": "<b>x"}]}"#, "spec.content[0].markup"),
    (#"{"content": [{"image": "/etc/hostname"}]}"#, "spec.content[0].image"),
    (#"{"fonts": ["/usr/share/fonts"], "content": []}"#, "spec.fonts[0]"),
    (#"{"content": [{"image": "data:image/png;base64,!!!"}]}"#, "spec.content[0].image"),
    (#"{"page": {"width": 1e9, "height": 10}, "content": [{"paragraph": "x"}]}"#, "spec.page.width"),
  ])
  func badSpecGets400(spec: String, field: String) async throws {
    try await TestServer().test { client in
      let response = try await client.execute(uri: "/report?format=pdf", method: .post, body: ByteBuffer(spec))
      #expect(response.status == .badRequest, "\(spec)")
      #expect(response.errorBody.field?.hasPrefix(field) == true, "\(spec): \(String(describing: response.errorBody))")
    }
  }

  /// Paths resolve under the files root only, `..` and symbolic links included.
  @Test func pathsStayUnderTheFilesRoot() async throws {
    try await withTemporaryDirectory { directory in
      let root = directory.appendingPathComponent("root")
      try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
      let image = try await ImageRenderer(size: Size(width: 20, height: 10)).render { $0.clear(to: .black) }
      try image.writePNG(to: root.appendingPathComponent("inside.png").path)
      try image.writePNG(to: directory.appendingPathComponent("outside.png").path)
      try FileManager.default.createSymbolicLink(
        atPath: root.appendingPathComponent("link.png").path,
        withDestinationPath: directory.appendingPathComponent("outside.png").path)
      try await TestServer(filesRoot: root.path).test { client in
        for (path, status) in [("inside.png", 200), ("../outside.png", 400), ("link.png", 400), ("/etc/hostname", 400)]
        {
          let spec = #"{"content": [{"image": "\#(path)"}]}"#
          let response = try await client.execute(uri: "/report?format=png", method: .post, body: ByteBuffer(spec))
          #expect(response.status.code == status, "\(path): \(response.errorBody.error)")
        }
      }
    }
  }

  @Test func inlineImagesNeedNoRoot() async throws {
    let image = try await ImageRenderer(size: Size(width: 40, height: 20)).render { $0.clear(to: .black) }
    let base64 = try PNGEncoder().encode(image).base64EncodedString()
    let spec =
      #"{"page": {"width": 100, "height": 100}, "margins": 10, "content": [{"image": "data:image/png;base64,\#(base64)"}]}"#
    try await TestServer().test { client in
      let response = try await client.execute(uri: "/report?format=png", method: .post, body: ByteBuffer(spec))
      #expect(response.status == .ok, "\(response.errorBody.error)")
      let page = try RenderedImage(pngData: response.bytes)
      // The black image is on the white page, centred at the top of the content (x 30–70, y 10–30).
      #expect(page.pixels[20 * page.pixelWidth + 50] == 0xff00_0000)
      #expect(page.pixels[15 * page.pixelWidth + 15] == 0xffff_ffff)
      #expect(page.pixels[50 * page.pixelWidth + 50] == 0xffff_ffff)
    }
  }

  @Test func pagesOverTheLimitGet400() async throws {
    var limits = ServerLimits()
    limits.maximumPages = 1
    try await TestServer(limits: limits).test { client in
      let response = try await client.execute(uri: "/report?format=pdf", method: .post, body: ByteBuffer(Self.spec))
      #expect(response.status == .badRequest)
      #expect(response.errorBody.field == "spec")
    }
  }
}
