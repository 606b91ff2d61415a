import AsyncLayerTestSupport
import Foundation
import Testing

@_spi(Benchmarks) @testable import AsyncLayer

/// The per-thread glyph compositor must draw exactly what cairo draws, and decline what it cannot.
@Suite("Glyph compositor")
struct GlyphCompositorTests {
  struct Outcome {
    var image: RenderedImage
    var composited: Int
    var declined: Int
  }

  /// Renders `draw` twice on this thread, through cairo and through the compositor.
  func renderBothWays(
    size: Size = Size(width: 320, height: 160), scale: Double = 2, _ draw: (DrawingContext) throws -> Void
  ) throws -> (cairo: RenderedImage, compositor: Outcome) {
    let renderer = try ImageRenderer(size: size, scale: scale)
    let viaCairo = try renderer.render { context in
      context.glyphCompositing = .cairo
      try draw(context)
    }
    let compositor = PangoThreadState.current.glyphCompositor
    let before = (compositor.layoutsComposited, compositor.layoutsDeclined)
    let viaCompositor = try renderer.render { context in try draw(context) }
    let outcome = Outcome(
      image: viaCompositor, composited: compositor.layoutsComposited - before.0,
      declined: compositor.layoutsDeclined - before.1)
    return (viaCairo, outcome)
  }

  func layout(
    _ text: String, font: String = "Sans 14", width: Double = 300, scale: Double = 2,
    configure: (inout TextStyle) -> Void = { _ in }
  ) throws -> TextLayout {
    var style = TextStyle(font: font)
    configure(&style)
    return try TextLayout(.plain(text), style: style, width: width, scale: scale)
  }

  /// Where two images differ: how many pixels, the first one and the largest channel difference.
  struct Differences: Equatable, CustomStringConvertible {
    var count = 0
    var first: (x: Int, y: Int)? = nil
    var largest = 0
    static let none = Differences()
    static func == (a: Self, b: Self) -> Bool { a.count == b.count && a.largest == b.largest }
    var description: String {
      count == 0 ? "identical" : "\(count) pixels differ, first at \(first!), largest channel difference \(largest)"
    }
  }

  static func differences(_ a: RenderedImage, _ b: RenderedImage) -> Differences {
    var result = Differences()
    guard a.pixelWidth == b.pixelWidth, a.pixelHeight == b.pixelHeight else {
      return Differences(count: -1, first: nil, largest: -1)
    }
    for (index, (p, q)) in zip(a.pixels, b.pixels).enumerated() where p != q {
      result.count += 1
      if result.first == nil { result.first = (index % a.pixelWidth, index / a.pixelWidth) }
      for shift in stride(from: 0, to: 32, by: 8) {
        result.largest = max(result.largest, abs(Int((p >> UInt32(shift)) & 0xff) - Int((q >> UInt32(shift)) & 0xff)))
      }
    }
    return result
  }

  static let texts = [
    "The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread.",
    "Ty fo AV WA ffi fj Yo LT. Wolf fjord, tiffany; javelin — Ω ≈ ∑ àéîõü 0123456789",
    "مرحبا بالعالم، هذا نص عربي طويل يلتف على عدة أسطر",
    "你好世界，这是一个很长的中文句子，用来测试换行和字形缓存。",
  ]

  @Test("draws the same pixels as cairo", arguments: texts, [1.0, 2.0, 3.0])
  func samePixels(text: String, scale: Double) throws {
    let result = try renderBothWays(scale: scale) { context in
      context.clear(to: .white)
      context.draw(try layout(text, scale: scale), at: Point(x: 8, y: 8))
    }
    #expect(result.compositor.composited == 1)
    #expect(result.compositor.declined == 0)
    #expect(result.cairo.inkBounds(background: .white) != nil)
    #expect(Self.differences(result.compositor.image, result.cairo) == .none)
  }

  @Test("same pixels for colours, translucency, transparent targets and fractional origins")
  func colours() throws {
    let colours: [(Color, Color?)] = [
      (.white, Color(red: 0.13, green: 0.25, blue: 0.5)), (Color(red: 0.8, green: 0.1, blue: 0.3, alpha: 0.5), .white),
      (.black, nil), (Color(red: 0.2, green: 0.7, blue: 0.1, alpha: 0.35), nil),
    ]
    for (foreground, background) in colours {
      let result = try renderBothWays { context in
        if let background { context.clear(to: background) }
        let text = try layout(Self.texts[0]) { $0.color = foreground }
        context.draw(text, at: Point(x: 7.3, y: 5.61))
      }
      #expect(result.compositor.composited == 1)
      #expect(Self.differences(result.compositor.image, result.cairo) == .none)
    }
  }

  @Test("same pixels for bold and italic, alignment, justification and ellipsis")
  func styles() throws {
    let styles: [(String, (inout TextStyle) -> Void)] = [
      ("Sans Bold Italic 17", { _ in }), ("Serif Italic 22", { $0.alignment = .center }),
      ("Sans 13", { $0.alignment = .right }), ("Sans 12", { $0.alignment = .justify }),
      (
        "Sans 15",
        {
          $0.ellipsize = .middle; $0.maxLines = 2
        }
      ), ("Monospace 11", { $0.wrap = .char }),
    ]
    for (font, configure) in styles {
      let result = try renderBothWays(size: Size(width: 320, height: 420)) { context in
        context.clear(to: .white)
        context.draw(
          try layout(Self.texts[1] + " " + Self.texts[0], font: font, configure: configure), at: Point(x: 4, y: 4))
      }
      #expect(result.compositor.composited == 1, "\(font)")
      #expect(Self.differences(result.compositor.image, result.cairo) == .none, "\(font)")
    }
  }

  @Test("runs whose glyphs overlap go through a mask, as in cairo, with the same pixels")
  func overlappingGlyphs() throws {
    let compositor = PangoThreadState.current.glyphCompositor
    let masked = compositor.runsMasked
    let result = try renderBothWays { context in
      context.clear(to: .white)
      // Italic f and j reach over their neighbours.
      context.draw(try layout("ffffff jjjj fjfjfj ƒƒƒ", font: "Serif Italic 40", width: 310), at: Point(x: 4, y: 4))
    }
    #expect(compositor.runsMasked > masked)
    #expect(result.compositor.composited == 1)
    #expect(Self.differences(result.compositor.image, result.cairo) == .none)
  }

  @Test("same pixels under a pixel-aligned clip around the text and inside an opacity group")
  func clipAndGroup() throws {
    let clipped = try renderBothWays { context in
      context.clear(to: .white)
      context.clip(to: Rect(x: 4, y: 4, width: 310, height: 80))
      context.draw(try layout(Self.texts[0]), at: Point(x: 8, y: 8))
    }
    #expect(clipped.compositor.composited == 1)
    #expect(Self.differences(clipped.compositor.image, clipped.cairo) == .none)

    let group = try renderBothWays { context in
      context.clear(to: .white)
      context.withOpacity(0.6) {
        context.fill(Rect(x: 30, y: 30, width: 100, height: 60), color: Color(red: 1, green: 0.9, blue: 0.2))
        context.draw(try! layout(Self.texts[0]), at: Point(x: 8, y: 8))
      }
    }
    #expect(group.compositor.composited == 1)
    #expect(Self.differences(group.compositor.image, group.cairo) == .none)
  }

  static let emojiTexts = [
    "Party 🎉 time 😀", "👩‍👩‍👧‍👦 🇯🇵🇫🇷 1️⃣ ❤️ 👍🏽 ✈️", "مرحبا 👋 世界 🌏 नमस्ते 🙏 สวัสดี 😊",
    "🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉",
  ]

  @Test("paints colour emoji as cairo does, at scales 1–3", arguments: emojiTexts, [1.0, 2.0, 3.0])
  func colourEmoji(text: String, scale: Double) throws {
    for (font, background) in [("Sans 14", Color.white), ("Serif Bold 23", nil)] as [(String, Color?)] {
      let result = try renderBothWays(size: Size(width: 320, height: 200), scale: scale) { context in
        if let background { context.clear(to: background) }
        context.draw(try layout(text, font: font, scale: scale) { $0.color = .black }, at: Point(x: 6.4, y: 5.7))
      }
      #expect(result.compositor.composited == 1, "\(font)")
      #expect(Self.differences(result.compositor.image, result.cairo) == .none, "\(font)")
      // Colour survives: some ink is neither grey nor the text colour.
      let colourful = result.compositor.image.pixels.contains { pixel in
        let r = (pixel >> 16) & 0xff, g = (pixel >> 8) & 0xff, b = pixel & 0xff
        return max(r, g, b) - min(r, g, b) > 60
      }
      #expect(colourful, "\(font)")
    }
  }

  @Test("a colour emoji cut by the clip is cut as cairo cuts it")
  func colourEmojiUnderClip() throws {
    let compositor = PangoThreadState.current.glyphCompositor
    for clip in [Rect(x: 0, y: 0, width: 31, height: 200), Rect(x: 0, y: 12, width: 320, height: 9)] {
      let result = try renderBothWays { context in
        context.clear(to: .white)
        context.clip(to: clip)
        context.draw(try layout("😀🎉🌏", font: "Sans 20"), at: Point(x: 8, y: 4))
      }
      #expect(result.compositor.composited == 1)
      #expect(Self.differences(result.compositor.image, result.cairo) == .none)
    }
    #expect(compositor.colorBytes > 0)
  }

  @Test("clips runs that reach outside the clip as cairo does", arguments: [1.0, 2.0, 3.0])
  func clippedRuns(scale: Double) throws {
    let cases: [(String, (DrawingContext) throws -> Void)] = [
      (
        "a clip through the text",
        { context in
          context.clip(to: Rect(x: 20, y: 10, width: 150, height: 30))
          context.draw(try layout(Self.texts[0], scale: scale), at: Point(x: 8, y: 8))
        }
      ),
      (
        "text partly outside the image",
        { context in
          context.draw(try layout(Self.texts[0], scale: scale), at: Point(x: -30, y: 140))
        }
      ),
      (
        "overlapping glyphs through a mask, cut",
        { context in
          context.clip(to: Rect(x: 31, y: 17, width: 97, height: 23))
          context.draw(
            try layout("ffffff jjjj fjfjfj ƒƒƒ", font: "Serif Italic 40", scale: scale), at: Point(x: 4, y: 4))
        }
      ),
      (
        "a word wider than its line, right-aligned",
        { context in
          context.clip(to: Rect(x: 0, y: 0, width: 140, height: 160))
          let text = try layout("Асинхронная отрисовка", font: "Sans 30", width: 132, scale: scale) {
            $0.alignment = .right
          }
          context.draw(text, at: Point(x: 4, y: 4))
        }
      ),
      (
        "lines entirely outside the clip",
        { context in
          context.clip(to: Rect(x: 0, y: 0, width: 320, height: 20))
          context.draw(try layout(Self.texts[0] + " " + Self.texts[2], scale: scale), at: Point(x: 8, y: 4))
        }
      ),
    ]
    for (name, draw) in cases {
      let result = try renderBothWays(scale: scale) { context in
        context.clear(to: .white)
        try draw(context)
      }
      #expect(result.compositor.composited == 1, "\(name)")
      #expect(Self.differences(result.compositor.image, result.cairo) == .none, "\(name)")
      #expect(result.cairo.inkBounds(background: .white) != nil, "\(name)")
    }
  }

  @Test("synthetic italics (a sheared font) composite with cairo's pixels", arguments: [1.0, 1.5, 3.0])
  func syntheticItalic(scale: Double) throws {
    // These families have no italic face: fontconfig shears the upright one.
    for (font, text) in [
      ("Noto Sans CJK SC Italic 19", Self.texts[3]), ("Lohit Devanagari Bold Italic 21", "हिन्दी पाठ का आकार क्षत्रिय"),
      ("Loma Italic 18", "ภาษาไทยไม่มีช่องว่าง"),
    ] {
      let result = try renderBothWays(scale: scale) { context in
        context.clear(to: .white)
        context.draw(try layout(text, font: font, scale: scale), at: Point(x: 8, y: 8))
      }
      #expect(result.compositor.composited == 1, "\(font)")
      #expect(Self.differences(result.compositor.image, result.cairo) == .none, "\(font)")
      let upright = try renderBothWays(scale: scale) { context in
        context.clear(to: .white)
        context.draw(
          try layout(text, font: font.replacingOccurrences(of: "Italic ", with: ""), scale: scale),
          at: Point(x: 8, y: 8))
      }
      #expect(upright.cairo != result.cairo, "\(font): the italic is not sheared")
    }
  }

  /// Limits small enough that a few layouts fill the generations (3 of them), on this thread's
  /// compositor; a synchronous test body has the thread to itself.
  static func smallLimits(fontsPerGeneration: Int, glyphsPerGeneration: Int) -> GlyphCompositor.Limits {
    .init(
      fontsPerGeneration: fontsPerGeneration, glyphsPerGeneration: glyphsPerGeneration, bytesPerGeneration: 1 << 20,
      generations: 3, glyphsPerCache: 400, imageByteLimit: 64 << 20)
  }

  @Test("past its limits it drops the least recently used generation; hot fonts stay, pixels stay cairo's")
  func generations() throws {
    let compositor = PangoThreadState.current.glyphCompositor
    let saved = compositor.limits
    defer { compositor.limits = saved }
    compositor.limits = Self.smallLimits(fontsPerGeneration: 3, glyphsPerGeneration: 60)
    let dropped = compositor.generationsDropped
    let fonts = FontRegistrationWatch()
    let hot = try layout(Self.texts[0], font: "Sans 13")
    for size in 9...28 {
      // A cold font, then the hot one: the hot one's glyphs must never be rendered again.
      let cold = try renderBothWays(size: Size(width: 320, height: 480)) { context in
        context.clear(to: .white)
        context.draw(try layout(Self.texts[1] + " " + Self.texts[3], font: "Serif \(size)"), at: Point(x: 4, y: 4))
      }
      #expect(cold.compositor.composited == 1, "Serif \(size)")
      #expect(Self.differences(cold.compositor.image, cold.cairo) == .none, "Serif \(size)")
      let rendered = compositor.glyphsRendered
      let again = try renderBothWays { context in
        context.clear(to: .white)
        context.draw(hot, at: Point(x: 4, y: 4))
      }
      #expect(again.compositor.composited == 1)
      #expect(Self.differences(again.compositor.image, again.cairo) == .none)
      if size > 9, fonts.fontsUnchanged {
        #expect(compositor.glyphsRendered == rendered, "the hot font lost its glyphs at Serif \(size)")
      }
      #expect(compositor.generations.count <= 3)
      #expect(compositor.generations.allSatisfy { $0.glyphCount <= 400 })
    }
    #expect(compositor.generationsDropped > dropped + 5)
    #expect(compositor.fonts.count <= 3 * 3 + 2)
  }

  @Test("the generation dropped is the least recently used")
  func leastRecentlyUsedGeneration() throws {
    let compositor = PangoThreadState.current.glyphCompositor
    let saved = compositor.limits
    defer { compositor.limits = saved }
    // One layout of Latin text (~35 glyphs) fills a generation.
    compositor.limits = Self.smallLimits(fontsPerGeneration: 8, glyphsPerGeneration: 20)
    let fonts = ["A": "Serif 11", "B": "Serif 12", "C": "Serif 13", "D": "Serif 14"]
    func draw(_ name: String) throws -> Int {
      let before = compositor.glyphsRendered
      let result = try renderBothWays { context in
        context.clear(to: .white)
        context.draw(try layout(Self.texts[0], font: fonts[name]!), at: Point(x: 4, y: 4))
      }
      #expect(result.compositor.composited == 1, "\(name)")
      #expect(Self.differences(result.compositor.image, result.cairo) == .none, "\(name)")
      return compositor.glyphsRendered - before
    }
    let registrations = FontRegistrationWatch()
    compositor.limits.generations = 1
    _ = try draw("A")  // a fresh start: whatever this thread drew before goes
    compositor.limits.generations = 3
    _ = try draw("B")
    let aAgain = try draw("A")  // A is used again: B is now the least recently used
    _ = try draw("C")
    _ = try draw("D")  // a fourth generation: one must go
    compositor.limits.generations = 10  // no more drops while we look
    let kept = [try draw("A"), try draw("C"), try draw("D")]
    let dropped = try draw("B")
    // The pixels were compared with cairo's at every draw. The counts say which generation went only
    // while this thread kept its font map: a font registered by a test running beside this one gives
    // the next layout a new map, whose fonts have no glyphs yet (a whole-suite run on 2026-11-26 saw
    // A's glyphs rendered again at its second draw).
    if registrations.fontsUnchanged {
      #expect(aAgain == 0)
      #expect(kept == [0, 0, 0])
      #expect(dropped > 0, "B, the least recently used, was dropped")
    }
  }

  @Test("declines what only cairo and pango draw, and the result is still cairo's")
  func declines() throws {
    let cases: [(String, (DrawingContext) throws -> Void)] = [
      (
        "colour markup",
        { context in
          let text = try TextLayout(
            .markup("plain <span foreground='red'>red</span> <u>underlined</u>"), style: TextStyle(font: "Sans 14"),
            width: 300, scale: 2)
          context.draw(text, at: Point(x: 8, y: 8))
        }
      ),
      (
        "rounded clip",
        { context in
          context.clip(toRoundedRect: Rect(x: 4, y: 4, width: 200, height: 60), cornerRadius: 12)
          context.draw(try layout(Self.texts[0]), at: Point(x: 8, y: 8))
        }
      ),
      (
        "a transform the fonts were not made for",
        { context in
          context.scaleBy(x: 1.5, y: 1)
          context.draw(try layout(Self.texts[0]), at: Point(x: 8, y: 8))
        }
      ),
    ]
    for (name, draw) in cases {
      let result = try renderBothWays { context in
        context.clear(to: .white)
        try draw(context)
      }
      #expect(result.compositor.composited == 0, "\(name)")
      #expect(result.compositor.declined == 1, "\(name)")
      #expect(Self.differences(result.compositor.image, result.cairo) == .none, "\(name)")
      #expect(result.cairo.inkBounds(background: .white) != nil, "\(name)")
    }
  }

  @Test("threads drawing at once each get cairo's pixels")
  func concurrentThreads() throws {
    let tile = TextTile(
      .plain(Self.texts[0] + " " + Self.texts[1]), width: 375, height: 120, scale: 2, background: .white)
    let expected = try tile.render().image
    let results = Mutex<[Bool]>([])
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<5 {
        let same = (try? tile.render().image) == expected
        results.withLock { $0.append(same) }
      }
    }
    #expect(results.withLock { $0.count } == 40)
    #expect(results.withLock { $0.allSatisfy { $0 } })
  }

  @Test("a cancelled draw stops between lines")
  func cancellation() throws {
    let renderer = try ImageRenderer(size: Size(width: 320, height: 200), scale: 2)
    var drawn = 0
    var checks = 0
    // The draw stops between lines; the render, cancelled, throws (issue 31: never a partial image).
    #expect(throws: CancellationError.self) {
      try renderer.render(isCancelled: {
        checks += 1
        return checks > 3  // the render's checks before and while filling the buffer, then the first line's
      }) { context in
        drawn = context.draw(try layout(Self.texts[0] + " " + Self.texts[0]), at: Point(x: 8, y: 8))
      }
    }
    #expect(drawn == 1)
  }
}
