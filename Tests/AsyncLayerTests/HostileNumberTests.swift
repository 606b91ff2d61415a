@_spi(Benchmarks) import AsyncLayer
import AsyncLayerTestSupport
import Foundation
import Testing

/// Numbers a careless caller passes — NaN, infinities, 1e300, counts past 32 bits — must come back
/// as typed errors (or a documented clamp), never as a trap in an integer conversion.
@Suite("Hostile numbers")
struct HostileNumberTests {
  /// True when `error` is ``RenderError/invalidValue(name:value:expected:)`` naming `name`.
  static func isInvalidValue(_ error: any Error, named name: String) -> Bool {
    guard case RenderError.invalidValue(let reported, _, _) = error else { return false }
    return reported == name
  }

  @Test(
    "a NaN, infinite or astronomically large line spacing is refused", arguments: [.nan, .infinity, -.infinity, 1e300])
  func lineSpacing(value: Double) {
    var style = TextStyle()
    style.lineSpacing = value
    #expect {
      try TextLayout(.plain("one two three"), style: style, width: 50)
    } throws: { Self.isInvalidValue($0, named: "line spacing") }
    #expect {
      try TextTile(.plain("one two three"), style: style, width: 50).render()
    } throws: { "\($0)".contains("line spacing") }
  }

  @Test("a width or height beyond Pango's coordinates is refused")
  func hugeWidthAndHeight() {
    #expect {
      try TextLayout(.plain("x"), style: TextStyle(), width: 1e300)
    } throws: { Self.isInvalidValue($0, named: "width") }
    #expect {
      try TextLayout(.plain("x"), style: TextStyle(), width: 100, height: 1e300)
    } throws: { Self.isInvalidValue($0, named: "height") }
    #expect {
      try TextMeasurer(capacity: 4).size(of: .plain("x"), style: TextStyle(), width: 1e20)
    } throws: { error in
      Self.isInvalidValue(error, named: "width") && "\(error)".contains("Pango's coordinate range")
    }
    // The largest width Pango can hold still lays out.
    #expect(throws: Never.self) { try TextLayout(.plain("x"), style: TextStyle(), width: TextLayout.maximumLength) }
  }

  @Test("a line limit past 32 bits means no limit, with or without an ellipsis; a negative one is refused")
  func hugeMaxLines() throws {
    let text = TextContent.plain("one two three four five six seven eight nine ten")
    let unlimited = try TextLayout(text, style: TextStyle(), width: 60)
    #expect(unlimited.lines.count > 3)
    for ellipsize in [EllipsizeMode.none, .end] {
      var style = TextStyle()
      style.maxLines = 99_999_999_999
      style.ellipsize = ellipsize
      let layout = try TextLayout(text, style: style, width: 60)
      #expect(layout.lines.count == unlimited.lines.count)
      #expect(!layout.isEllipsized)
    }
    var negative = TextStyle()
    negative.maxLines = -1
    #expect {
      try TextLayout(text, style: negative, width: 60)
    } throws: { Self.isInvalidValue($0, named: "maxLines") }
  }

  @Test("NaN colour channels draw as 0 instead of trapping")
  func nanColours() throws {
    let nan = Color(red: .nan, green: .nan, blue: .nan, alpha: 1)
    #expect(nan.description == "#000000ff")
    var style = TextStyle(fontSize: 20)
    style.color = nan
    // Through the per-thread glyph compositor and through cairo.
    for compositing in [GlyphCompositing.threadCache, .cairo] {
      var tile = TextTile(.plain("Ink"), style: style, width: 80, background: .white)
      tile.glyphCompositing = compositing
      let image = try tile.render().image
      #expect(image.inkPixelCount(background: .white) > 20)
    }

    let loop = MainLoop(clock: .manual)
    let layer = AsyncLayer(loop: loop)
    layer.size = Size(width: 4, height: 4)
    layer.staleContentsPolicy = .placeholder(Color(red: .nan, green: 1, blue: .nan, alpha: .nan))
    layer.drawHandler = { $0.clear(to: .white) }
    layer.display()
    // The placeholder is in place until the draw commits: NaN alpha is transparent.
    #expect(layer.contents?.pixel(x: 0, y: 0) == 0)
    #expect(loop.run(until: { !layer.isDisplayPending }))
    #expect(layer.contents?.color(x: 0, y: 0) == .white)
  }

  @Test("a dispatch timer with an interval of 2^40 seconds starts (clamped) and never fires")
  func hugeDispatchInterval() {
    for interval in [Duration.seconds(1 << 40), .seconds(Int64.max)] {
      let timer = DispatchTimer(interval: interval, repeats: true, leeway: .seconds(1 << 40)) {}
      timer.start()
      #expect(timer.currentState == .running)
      timer.stop()
      #expect(timer.fireCount == 0)
    }
    // A hugely negative interval becomes 1 ns instead of overflowing.
    let negative = DispatchTimer(interval: .seconds(-(1 << 40)), repeats: false) {}
    negative.start()
    negative.stop()
    #expect(DispatchTimer.maximumInterval == .seconds(100 * 365 * 86_400))
  }

  @Test("loop timers clamp huge durations; advance(by:) refuses them")
  func hugeLoopDurations() throws {
    let loop = MainLoop(clock: .manual)
    let huge = Duration.seconds(1e20)
    var fired = 0
    try loop.scheduleTimer(after: huge, repeating: huge, tolerance: huge) { fired += 1 }
    try loop.advance(by: MainLoop.maximumTimeInterval)
    #expect(fired == 1)
    try loop.advance(by: MainLoop.maximumTimeInterval)
    #expect(fired == 2)
    #expect(throws: LoopError.self) { try loop.advance(by: huge) }
  }

  @Test("an image layer of a huge size or scale loads without trapping")
  func hugeImageLayer() throws {
    let loop = MainLoop(clock: .manual)
    let data = try ImageRenderer(size: Size(width: 8, height: 8)).render { $0.clear(to: .blue) }.pngData()
    try withTemporaryDirectory { directory in
      let url = directory.appendingPathComponent("hostile.png")
      try data.write(to: url)
      let layer = ImageLayer(loop: loop, loader: ImageLoader())
      layer.size = Size(width: 1e300, height: 1e300)
      layer.contentsScale = 1e300
      layer.url = url
      layer.isVisible = true
      #expect(loop.run(until: { layer.image != nil }))
      #expect(layer.image?.pixelWidth == 8)
    }
  }

  @Test("an image built with dimensions cairo cannot hold is refused when encoded or drawn")
  func hugeRenderedImage() {
    let wide = RenderedImage(pixelWidth: 3_000_000_000, pixelHeight: 0, pixels: [])
    #expect(throws: RenderError.self) { try wide.cairoPNGData() }
    #expect(throws: RenderError.self) { try wide.pngData() }
    #expect(throws: RenderError.self) { try wide.jpegData() }
    let long = RenderedImage(pixelWidth: 70_000, pixelHeight: 1, pixels: Array(repeating: 0xff00_0000, count: 70_000))
    #expect(throws: RenderError.surfaceTooLarge(pixelWidth: 70_000, pixelHeight: 1, limit: 65535)) {
      try long.jpegData()
    }
    #expect(throws: RenderError.self) { try long.cairoPNGData() }
    // Drawing it fails the render with the reason rather than trapping (or drawing nothing).
    #expect(throws: RenderError.surfaceTooLarge(pixelWidth: 70_000, pixelHeight: 1, limit: 32767)) {
      try ImageRenderer(size: Size(width: 4, height: 4)).render {
        $0.draw(long, in: Rect(x: 0, y: 0, width: 4, height: 4))
      }
    }
  }

  @Test("a pool asked for 100 000 queues starts at most maximumQueueCount")
  func hugeQueueCount() {
    let pool = QueuePool(queueCount: 100_000, name: "hostile.pool")
    #expect(pool.queueCount == QueuePool.maximumQueueCount)
  }
}

@Suite("Error messages never trap")
struct ErrorDescriptionTests {
  @Test("descriptions of errors built with extreme values")
  func extremeDescriptions() {
    #expect(!"\(ImageDecodingError.tooManyPixels(pixelWidth: .max, pixelHeight: .max, limit: 1))".isEmpty)
    #expect(!"\(RenderError.layoutTooLarge(dimension: "tall", points: .nan, limit: .infinity))".isEmpty)
    #expect(
      "\(RenderError.layoutTooLarge(dimension: "tall", points: 2_500_000.4, limit: 2_097_151.9))".contains(
        "2500000 points"))
  }
}
