import AsyncLayer
import AsyncLayerTestSupport
import Foundation
import Testing

@Suite("Rendered images and the drawing context")
struct RenderedImageTests {
  @Test("fills land where they should, in points × scale")
  func fillsAndScale() throws {
    let image = try ImageRenderer(size: Size(width: 20, height: 10), scale: 2).render { context in
      context.fill(Rect(x: 0, y: 0, width: 10, height: 10), color: .red)
      context.fill(Rect(x: 10, y: 0, width: 10, height: 10), color: .blue.withAlpha(0.5))
    }
    #expect(image.pixelWidth == 40 && image.pixelHeight == 20)
    #expect(image.pixel(x: 5, y: 5) == 0xffff_0000)
    let translucent = image.color(x: 30, y: 5)
    #expect(translucent.isClose(to: Color(red: 0, green: 0, blue: 1, alpha: 0.5)))
    #expect(!image.isFullyOpaque)
  }

  @Test("clip, translate and rounded rectangles")
  func clipAndTransform() throws {
    let image = try ImageRenderer(size: Size(width: 40, height: 40)).render { context in
      context.withSavedState {
        context.clip(to: Rect(x: 0, y: 0, width: 20, height: 40))
        context.fill(Rect(x: 0, y: 0, width: 40, height: 40), color: .green)
      }
      context.translateBy(x: 20, y: 20)
      context.fill(roundedRect: Rect(x: 0, y: 0, width: 20, height: 20), cornerRadius: 10, color: .black)
    }
    #expect(image.color(x: 10, y: 10).isClose(to: .green))
    #expect(image.color(x: 30, y: 10) == .clear)  // clipped away
    #expect(image.color(x: 30, y: 30).isClose(to: .black))  // centre of the rounded rect
    #expect(image.color(x: 20, y: 20).alpha < 0.5)  // its rounded corner
  }

  @Test("an image drawn into another keeps its colours")
  func drawImage() throws {
    let source = try ImageRenderer(size: Size(width: 4, height: 4)).render { context in
      context.fill(Rect(x: 0, y: 0, width: 4, height: 4), color: .red)
    }
    let image = try ImageRenderer(size: Size(width: 20, height: 20)).render { context in
      context.clear(to: .white)
      context.draw(source, in: Rect(x: 5, y: 5, width: 10, height: 10))
    }
    #expect(image.color(x: 10, y: 10).isClose(to: .red))
    #expect(image.color(x: 2, y: 2) == .white)
  }

  @Test("PNG round trip keeps every pixel", arguments: [true, false])
  func pngRoundTrip(opaque: Bool) throws {
    var style = TextStyle()
    style.color = Color(red: 0.2, green: 0.4, blue: 0.6)
    let tile = TextTile(
      .plain("Round trip 往返 😀"), style: style, width: 200, scale: 2,
      background: opaque ? .white : nil)
    let image = try tile.render().image
    let decoded = try RenderedImage(pngData: image.pngData(), scale: 2)
    #expect(decoded.pixelWidth == image.pixelWidth)
    #expect(decoded.pixelHeight == image.pixelHeight)
    if opaque {
      #expect(decoded.pixels == image.pixels)
    } else {
      // Premultiplied translucent pixels may shift by one step per channel through straight-alpha PNG.
      for (a, b) in zip(decoded.pixels, image.pixels) {
        #expect(a >> 24 == b >> 24)
        for shift: UInt32 in [0, 8, 16] {
          #expect(abs(Int((a >> shift) & 0xff) - Int((b >> shift) & 0xff)) <= 1)
        }
      }
    }
  }

  @Test("writing and reading a PNG file")
  func pngFile() throws {
    let image = try ImageRenderer(size: Size(width: 8, height: 8)).render { $0.clear(to: .blue) }
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("image.png").path
      try image.writePNG(to: path)
      #expect(try RenderedImage(contentsOfPNGFile: path).pixels == image.pixels)
    }
  }

  @Test("draw code can stop part-way when cancelled")
  func cancellationIsVisibleToDrawCode() throws {
    var polls = 0
    #expect(throws: CancellationError.self) {
      try ImageRenderer(size: Size(width: 4, height: 4)).render(isCancelled: {
        polls += 1; return polls > 2
      }) { c in
        for _ in 0..<10 { try c.checkCancellation() }
      }
    }
    #expect(polls == 3)
  }
}
