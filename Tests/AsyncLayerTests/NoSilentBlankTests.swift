import AsyncLayerTestSupport
import Foundation
import Testing

@testable import AsyncLayer

/// Failures that used to leave a blank result (an image drawn as nothing, an empty PNG) throw a
/// typed error that says what went wrong.
@Suite("No silent blank results")
struct NoSilentBlankTests {
  /// Wider than cairo's 32767 pixels per side: no cairo surface can hold it.
  static let tooWide = RenderedImage(
    pixelWidth: 40_000, pixelHeight: 1, pixels: Array(repeating: 0xffff_0000, count: 40_000))
  static let tooWideError = RenderError.surfaceTooLarge(pixelWidth: 40_000, pixelHeight: 1, limit: 32767)

  @Test func drawingAnImageCairoCannotHoldFailsTheRender() throws {
    let renderer = try ImageRenderer(size: Size(width: 8, height: 8))
    #expect(throws: Self.tooWideError) {
      try renderer.render { $0.draw(Self.tooWide, in: Rect(x: 0, y: 0, width: 8, height: 8)) }
    }
    // The first failure is the one reported; drawing a good image after it does not clear it.
    let good = try renderer.render { $0.fill(Rect(x: 0, y: 0, width: 8, height: 8), color: .blue) }
    let taller = RenderedImage(pixelWidth: 1, pixelHeight: 50_000, pixels: Array(repeating: 0, count: 50_000))
    #expect(throws: Self.tooWideError) {
      try renderer.render { context in
        context.draw(Self.tooWide, in: Rect(x: 0, y: 0, width: 8, height: 8))
        context.draw(taller, in: Rect(x: 0, y: 0, width: 8, height: 8))
        context.draw(good, in: Rect(x: 0, y: 0, width: 8, height: 8))
      }
    }
    // A drawable image still draws.
    let drawn = try renderer.render { $0.draw(good, in: Rect(x: 0, y: 0, width: 8, height: 8)) }
    #expect(drawn.color(x: 4, y: 4) == .blue)
  }

  @Test func reportOutputsWithAnImageCairoCannotHoldThrow() throws {
    var document = ReportDocument()
    document.addParagraph("Before the image")
    document.addImage(Self.tooWide)
    let layout = try ReportLayout(document)
    #expect(throws: Self.tooWideError) { try layout.pdfData() }
    #expect(throws: Self.tooWideError) { try layout.svgData() }
    #expect(throws: Self.tooWideError) { try layout.renderPage(0) }
  }

  @Test func cairoPNGDataThrowsInsteadOfReturningNoBytes() throws {
    #expect(throws: Self.tooWideError) { try Self.tooWide.cairoPNGData() }
    let small = try ImageRenderer(size: Size(width: 4, height: 4)).render { $0.clear(to: .red) }
    let data = try small.cairoPNGData()
    #expect(try RenderedImage(pngData: data).color(x: 1, y: 1) == .red)
  }

  @Test func jpegHeaderErrorsCarryLibjpegTurbosReason() throws {
    // A JPEG start-of-image marker followed by garbage: turbojpeg's own reason, not "No error".
    let data = Data([0xff, 0xd8, 0xff, 0xe0] + [UInt8](repeating: 0x00, count: 60))
    let error = #expect(throws: ImageDecodingError.self) { try ImageDecoder.decode(data) }
    guard case .corrupt(.jpeg, let reason) = error else {
      Issue.record("expected a corrupt-JPEG error, got \(String(describing: error))")
      return
    }
    #expect(!reason.isEmpty)
    #expect(!reason.localizedCaseInsensitiveContains("no error"))
  }

  @Test func codecFailuresReadAsWhatHappened() {
    // Out-of-memory failures cannot be provoked here; their messages name the codec and the step.
    #expect(
      "\(ImageDecodingError.decoderUnavailable(format: .jpeg, reason: "out of memory"))"
        == "the JPEG decoder could not start: out of memory")
    #expect(
      "\(ImageDecodingError.scalingFailed(target: PixelSize(width: 4, height: 2), reason: "out of memory"))"
        .hasPrefix("cannot scale the image down to "))
  }
}
