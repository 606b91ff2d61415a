import Testing

@testable import AsyncLayer

/// A layer's background is written while the pixel memory is initialized when it covers every
/// pixel alike; these tests hold that path to the two-pass one (zero, then cairo paints it).
@Suite("Draw job backgrounds")
struct DrawJobBackgroundTests {
  static let backgrounds: [(isOpaque: Bool, color: Color?)] = [
    (false, .white), (true, nil), (true, Color(red: 1, green: 0, blue: 0, alpha: 0.5)),
    (false, Color(red: 0.2, green: 0.4, blue: 0.6, alpha: 0.3)), (false, Color(red8: 17, green8: 200, blue8: 3)),
    (true, .clear),
  ]

  /// Draws a bar over the background, so the operation's own drawing is checked too.
  static let operation = DrawOperation { context in
    context.fill(Rect(x: 1.25, y: 1, width: 3, height: 2.5), color: Color(red: 0, green: 0, blue: 1, alpha: 0.7))
  }

  /// A layer's draw of `operation` over a background, as a layer with that background makes it.
  static func job(
    renderer: ImageRenderer, isOpaque: Bool, backgroundColor: Color?, operation: DrawOperation?
  ) -> DrawJob {
    DrawJob(
      renderer: renderer, drawing: .layer(operation, isOpaque: isOpaque, backgroundColor: backgroundColor),
      generation: 0, counter: GenerationCounter(), isCancellable: false, recorder: StatisticsRecorder(parent: nil))
  }

  /// The same job drawn the old way: zeroed memory, then the background painted by cairo.
  static func twoPass(_ job: DrawJob) throws -> RenderedImage {
    guard case .layer(let operation, let isOpaque, let backgroundColor) = job.drawing else {
      throw CancellationError()  // only layer draws have a background
    }
    return try job.renderer.render { context in
      let bounds = Rect(origin: .zero, size: job.renderer.size)
      if isOpaque, !(backgroundColor?.isOpaque ?? false) { context.clear(to: .white) }
      if let color = backgroundColor { context.fill(bounds, color: color) }
      try operation?.draw(context)
    }
  }

  @Test(
    "pixel-aligned sizes start from the background's pixel and match the two-pass render exactly",
    arguments: [(Size(width: 10, height: 7), 2.0), (Size(width: 9, height: 5), 1.0), (Size(width: 6, height: 4), 1.5)])
  func alignedSizes(size: Size, scale: Double) throws {
    let renderer = try ImageRenderer(size: size, scale: scale)
    #expect(renderer.coversWholePixels)
    for background in Self.backgrounds {
      let job = Self.job(
        renderer: renderer, isOpaque: background.isOpaque, backgroundColor: background.color, operation: Self.operation)
      let image = try job.render(isCancelled: { false })
      #expect(image.pixels == (try Self.twoPass(job)).pixels, "\(background)")
      // The bar is drawn over the background, which shows around it.
      #expect(
        image.pixels[0]
          == (try DrawJob.backgroundPixel(isOpaque: background.isOpaque, backgroundColor: background.color)))
      #expect(image.pixels[0] != image.pixels[2 * image.pixelWidth + 2])
    }
  }

  @Test("a size with partly covered edge pixels keeps the two-pass render (antialiased edges)")
  func fractionalSizes() throws {
    let renderer = try ImageRenderer(size: Size(width: 10.5, height: 7.25), scale: 1)
    #expect(!renderer.coversWholePixels)
    let job = Self.job(renderer: renderer, isOpaque: false, backgroundColor: .red, operation: Self.operation)
    let image = try job.render(isCancelled: { false })
    #expect(image.pixels == (try Self.twoPass(job)).pixels)
    // The last column is half covered: half-transparent red, not the full background.
    let edge = image.pixels[image.pixelWidth - 1]
    #expect(edge >> 24 > 0 && edge >> 24 < 255)
  }

  @Test("an opaque white background is 0xFFFFFFFF and no background is transparent")
  func backgroundPixels() throws {
    #expect(try DrawJob.backgroundPixel(isOpaque: false, backgroundColor: .white) == 0xFFFF_FFFF)
    #expect(try DrawJob.backgroundPixel(isOpaque: true, backgroundColor: nil) == 0xFFFF_FFFF)
    #expect(try DrawJob.backgroundPixel(isOpaque: false, backgroundColor: nil) == 0)
  }
}
