import AsyncLayer
import Foundation
import Testing

@Suite("Bad input gets a clear error")
struct RenderErrorTests {
  @Test("invalid markup carries Pango's message")
  func invalidMarkup() throws {
    #expect {
      try TextTile(.markup("<b>unclosed"), width: 100).render()
    } throws: { error in
      guard case RenderError.invalidMarkup(let message) = error else { return false }
      return !message.isEmpty && "\(error)".hasPrefix("invalid markup:")
    }
    #expect(throws: RenderError.self) { try TextTile(.markup("<nosuchtag>x</nosuchtag>"), width: 100).render() }
  }

  @Test(
    "width, height and scale must be positive and finite",
    arguments: [0.0, -1.0, Double.nan, Double.infinity, -Double.infinity])
  func badDimensions(value: Double) throws {
    #expect(throws: RenderError.self) { try TextTile(.plain("x"), width: value).render() }
    #expect(throws: RenderError.self) { try TextTile(.plain("x"), width: 100, height: value).render() }
    #expect(throws: RenderError.self) { try TextTile(.plain("x"), width: 100, scale: value).render() }
    #expect(throws: RenderError.self) { try ImageRenderer(size: Size(width: value, height: 10)) }
    #expect(throws: RenderError.self) { try TextLayout(.plain("x"), style: TextStyle(), width: value) }
  }

  @Test("more than 32767 pixels per side is refused before allocating")
  func tooLarge() throws {
    #expect(throws: RenderError.surfaceTooLarge(pixelWidth: 40000, pixelHeight: 20, limit: 32767)) {
      try ImageRenderer(size: Size(width: 20000, height: 10), scale: 2)
    }
    #expect(throws: RenderError.self) { try TextTile(.plain("x"), width: 20000, scale: 2).render() }
  }

  @Test("the memory cap is enforced")
  func memoryCap() throws {
    #expect(throws: RenderError.memoryCapExceeded(bytes: 4_000_000, cap: 1_000_000)) {
      try ImageRenderer(size: Size(width: 1000, height: 1000), memoryCap: 1_000_000)
    }
  }

  @Test("an absurd font pixel size is refused")
  func hugeFont() throws {
    #expect(throws: RenderError.self) {
      try TextLayout(.plain("x"), style: TextStyle(fontSize: 3000), width: 100, scale: 2)
    }
  }

  @Test("unreadable and undecodable input files")
  func unreadableInput() throws {
    #expect(throws: RenderError.self) { try RenderedImage(contentsOfPNGFile: "/nonexistent/file.png") }
    #expect {
      try RenderedImage(pngData: Data("definitely not a png".utf8))
    } throws: { error in
      if case RenderError.undecodableImage = error { return true }
      return false
    }
    // A real PNG cut in half.
    let png = try TextTile(.plain("half"), width: 100, background: .white).render().image.pngData()
    #expect(throws: RenderError.self) { try RenderedImage(pngData: png.prefix(png.count / 2)) }
  }

  @Test("an unwritable output path")
  func unwritableOutput() throws {
    let image = try TextTile(.plain("x"), width: 10).render().image
    #expect {
      try image.writePNG(to: "/nonexistent-dir/out.png")
    } throws: { error in
      "\(error)".contains("does not exist")
    }
  }

  @Test("colour strings")
  func colours() throws {
    #expect(try Color(parsing: "#fff") == .white)
    #expect(try Color(parsing: "000000") == .black)
    #expect(try Color(parsing: "#ff000080").alpha == 128.0 / 255)
    #expect(try Color(parsing: "transparent") == .clear)
    #expect(throws: Color.ParseError.self) { try Color(parsing: "#12345") }
    #expect(throws: Color.ParseError.self) { try Color(parsing: "notacolour") }
  }
}
