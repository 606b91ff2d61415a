import AsyncLayer
import AsyncLayerTestSupport
import Foundation
import Testing

/// Typed spans: what each attribute does to the pixels and metrics, and hostile input refused.
@Suite("Attributed text")
struct AttributedTextTests {
  static let red = Color(red: 1, green: 0, blue: 0)

  static func layout(_ text: AttributedText, style: TextStyle = TextStyle(fontSize: 16), width: Double = 400) throws
    -> TextLayout
  {
    try TextLayout(.attributed(text), style: style, width: width)
  }

  static func render(_ text: AttributedText, style: TextStyle = TextStyle(fontSize: 16), width: Double = 400) throws
    -> RenderedImage
  {
    try TextTile(.attributed(text), style: style, width: width, scale: 1, background: .white).render().image
  }

  /// Pixels close to `color` (red ink is mostly pure red, anti-aliased at its edges).
  static func pixels(of color: Color, in image: RenderedImage) -> [(x: Int, y: Int)] {
    var found: [(x: Int, y: Int)] = []
    for y in 0..<image.pixelHeight {
      for x in 0..<image.pixelWidth where image.color(x: x, y: y).isClose(to: color, tolerance: 0.15) {
        found.append((x, y))
      }
    }
    return found
  }

  @Test("a coloured span colours its own characters and nothing else")
  func colourSpan() throws {
    var text = AttributedText("black RED black")
    text.addAttributes(TextAttributes(color: Self.red), to: text.string.range(of: "RED")!)
    let image = try Self.render(text)
    let box = try #require(Self.layout(text).rects(forUTF8Range: 6..<9).first)
    let red = Self.pixels(of: Self.red, in: image)
    #expect(red.count > 20)
    #expect(red.allSatisfy { Double($0.x) >= box.minX - 1 && Double($0.x) <= box.maxX + 1 })
    #expect(Self.pixels(of: .black, in: image).contains { Double($0.x) < box.minX })
  }

  @Test("builder and ranges make the same spans; markup characters stay text")
  func builderAndRanges() throws {
    let built = AttributedText().appending("a<b> & ").appending("日本語", TextAttributes(weight: .bold))
    var ranged = AttributedText("a<b> & 日本語")
    ranged.addAttributes(TextAttributes(weight: .bold), characters: 7, count: 3)
    #expect(built == ranged)
    #expect(built.spans == [TextSpan(utf8Range: 7..<16, attributes: TextAttributes(weight: .bold))])
    let layout = try Self.layout(built)
    #expect(layout.text == "a<b> & 日本語")
  }

  @Test("bold, size, letter spacing and italics change the metrics")
  func metrics() throws {
    let plain = try Self.layout(AttributedText("Wide words here")).size
    func size(_ attributes: TextAttributes) throws -> Size {
      try Self.layout(AttributedText().appending("Wide words here", attributes)).size
    }
    #expect(try size(TextAttributes(weight: .bold)).width > plain.width)
    #expect(try size(TextAttributes(fontSize: 32)).height > plain.height * 1.5)
    let spaced = try size(TextAttributes(letterSpacing: 3)).width
    #expect(abs(spaced - plain.width - 15 * 3) <= 4)
    #expect(try size(TextAttributes(fontFamily: "Monospace")).width != plain.width)
  }

  @Test("underline and strikethrough add ink; a background fills the span")
  func decorations() throws {
    let word = "xxxx"
    let plain = try #require(Self.render(AttributedText(word)).inkBounds(background: .white))
    let underlined = try #require(
      Self.render(AttributedText().appending(word, TextAttributes(underline: .single))).inkBounds(background: .white))
    #expect(underlined.maxY > plain.maxY)
    let struck = try Self.render(AttributedText().appending(word, TextAttributes(strikethrough: true)))
    let plainInk = try Self.render(AttributedText(word)).inkPixelCount(background: .white)
    #expect(struck.inkPixelCount(background: .white) > plainInk)
    let yellow = Color(red: 1, green: 1, blue: 0)
    let filled = try Self.render(AttributedText("a ").appending(word, TextAttributes(backgroundColor: yellow)))
    #expect(Self.pixels(of: yellow, in: filled).count > 100)
  }

  @Test("a baseline shift raises the span's ink")
  func baselineShift() throws {
    let plain = try #require(Self.render(AttributedText("x")).inkBounds(background: .white))
    let raised = try #require(
      Self.render(AttributedText().appending("x", TextAttributes(baselineShift: 6))).inkBounds(background: .white))
    // The line grows by the shift; the glyph's bottom sits 6 points above the baseline.
    #expect(raised.maxY - raised.minY == plain.maxY - plain.minY)
    let plainLayout = try Self.layout(AttributedText("x"))
    let raisedLayout = try Self.layout(AttributedText().appending("x", TextAttributes(baselineShift: 6)))
    #expect(
      abs(
        (raisedLayout.lines[0].baseline - Double(raised.maxY)) - (plainLayout.lines[0].baseline - Double(plain.maxY))
          - 6) <= 1.5)
  }

  @Test("links: rectangles, and the link under a point")
  func links() throws {
    var text = AttributedText("Read the ")
    text.append("terms", TextAttributes(underline: .single, link: "https://example.com/terms"))
    text.append(" first.")
    let layout = try Self.layout(text)
    let link = try #require(layout.links.first)
    #expect(link.target == "https://example.com/terms")
    #expect(link.utf8Range == 9..<14)
    let rect = try #require(link.rects.first)
    #expect(layout.link(at: Point(x: rect.midX, y: rect.midY)) == "https://example.com/terms")
    #expect(layout.link(at: Point(x: 1, y: rect.midY)) == nil)
    #expect(layout.link(at: Point(x: rect.midX, y: rect.maxY + 50)) == nil)
  }

  @Test("a NUL moves the spans after it by the two extra bytes of U+FFFD")
  func nulShiftsSpans() throws {
    var text = AttributedText("a\u{0}b")
    text.addAttributes(TextAttributes(link: "x"), to: text.string.range(of: "b")!)
    let layout = try Self.layout(text)
    #expect(layout.text == "a\u{FFFD}b")
    #expect(layout.spans.map(\.utf8Range) == [4..<5])
  }

  @Test(
    "hostile span numbers are refused with the span named",
    arguments: [
      TextAttributes(fontSize: .nan), TextAttributes(fontSize: .infinity), TextAttributes(fontSize: 1e300),
      TextAttributes(fontSize: -3), TextAttributes(fontSize: 0), TextAttributes(letterSpacing: .nan),
      TextAttributes(letterSpacing: -1e9), TextAttributes(baselineShift: 1e300),
      TextAttributes(baselineShift: -.infinity),
    ])
  func hostileNumbers(attributes: TextAttributes) {
    #expect {
      try Self.layout(AttributedText("ok").appending("bad", attributes))
    } throws: { error in
      guard case RenderError.invalidValue(let name, _, _) = error else { return false }
      return name.hasPrefix("span 0")
    }
  }

  @Test("span ranges outside the text or inside a character are refused", arguments: [0..<9, 1..<2, -1..<1, 2..<3])
  func badRanges(range: Range<Int>) {
    // "é日" is 5 bytes: 0..<2 and 2..<5 are the characters.
    let text = AttributedText("é日", spans: [TextSpan(utf8Range: range, attributes: TextAttributes(weight: .bold))])
    #expect {
      try Self.layout(text)
    } throws: { error in
      guard case RenderError.invalidValue(let name, _, _) = error else { return false }
      return name == "span 0 range"
    }
    let good = AttributedText("é日", spans: [TextSpan(utf8Range: 2..<5, attributes: TextAttributes(weight: .bold))])
    #expect(throws: Never.self) { try Self.layout(good) }
  }

  @Test("too many spans are refused before Pango sees them")
  func tooManySpans() {
    let span = TextSpan(utf8Range: 0..<1, attributes: TextAttributes(isItalic: true))
    let text = AttributedText("a", spans: Array(repeating: span, count: AttributedText.maximumSpanCount + 1))
    #expect(throws: RenderError.self) { try Self.layout(text) }
  }
}

/// The paragraph settings of ``TextStyle`` that Pango applies as attributes.
@Suite("Text style: line height, letter spacing, indent, hyphens")
struct TextStyleParagraphTests {
  static let paragraph = "one two three four five six seven eight nine ten eleven twelve"

  static func layout(_ change: (inout TextStyle) -> Void, text: String = paragraph, width: Double = 120) throws
    -> TextLayout
  {
    var style = TextStyle(fontSize: 14)
    change(&style)
    return try TextLayout(.plain(text), style: style, width: width)
  }

  @Test("lineHeight multiplies the distance between baselines")
  func lineHeight() throws {
    let normal = try Self.layout { _ in }
    let double = try Self.layout { $0.lineHeight = 2 }
    let step = normal.lines[1].baseline - normal.lines[0].baseline
    let doubled = double.lines[1].baseline - double.lines[0].baseline
    #expect(abs(doubled - 2 * step) < 2, "\(step) → \(doubled)")
  }

  @Test("letterSpacing widens an unwrapped line by the spacing per character")
  func letterSpacing() throws {
    let normal = try Self.layout({ _ in }, text: "abcdefghij", width: 1000)
    let spaced = try Self.layout({ $0.letterSpacing = 2 }, text: "abcdefghij", width: 1000)
    // Ten characters: nine gaps plus half a spacing at each end, as Pango spaces letters.
    #expect(abs(spaced.lines[0].frame.width - normal.lines[0].frame.width - 20) <= 2.5)
  }

  @Test("firstLineIndent moves the first line only; negative hangs it")
  func indent() throws {
    let indented = try Self.layout { $0.firstLineIndent = 20 }
    #expect(abs(indented.lines[0].frame.minX - 20) < 0.5)
    #expect(indented.lines[1].frame.minX < 0.5)
    let hanging = try Self.layout { $0.firstLineIndent = -20 }
    #expect(hanging.lines[0].frame.minX < 0.5)
    #expect(abs(hanging.lines[1].frame.minX - 20) < 0.5)
  }

  @Test("hyphenates decides whether a word broken at a soft hyphen shows a hyphen")
  func hyphens() throws {
    let word = "extra\u{AD}ordinarily"
    let shown = try Self.layout({ _ in }, text: word, width: 60)
    let hidden = try Self.layout({ $0.hyphenates = false }, text: word, width: 60)
    try #require(shown.lines.count == 2 && hidden.lines.count == 2)
    #expect(shown.lines[0].frame.width > hidden.lines[0].frame.width + 2)
  }

  static func hostileStyles() -> [(String, TextStyle)] {
    func style(_ change: (inout TextStyle) -> Void) -> TextStyle {
      var style = TextStyle(fontSize: 14)
      change(&style)
      return style
    }
    return [
      ("line height", style { $0.lineHeight = .nan }), ("line height", style { $0.lineHeight = 0 }),
      ("line height", style { $0.lineHeight = 1e300 }), ("letter spacing", style { $0.letterSpacing = .infinity }),
      ("letter spacing", style { $0.letterSpacing = -100 }),
      ("first-line indent", style { $0.firstLineIndent = 1e300 }),
      ("first-line indent", style { $0.firstLineIndent = .nan }),
    ]
  }

  @Test("hostile paragraph numbers are refused by name", arguments: hostileStyles())
  func hostile(name: String, style: TextStyle) {
    #expect {
      try TextLayout(.plain(Self.paragraph), style: style, width: 120)
    } throws: { error in
      guard case RenderError.invalidValue(let failed, _, _) = error else { return false }
      return failed == name
    }
  }
}
