import AsyncLayer
import AsyncLayerTestSupport
import Foundation
import Testing

@Suite("Text tiles")
struct TextTileTests {
  let sentence =
    "The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread."

  @Test("pixel size is points × scale", arguments: [1.0, 2.0, 3.0])
  func pixelSize(scale: Double) throws {
    let result = try TextTile(.plain("Hi"), width: 200, height: 50, scale: scale, background: .white).render()
    #expect(result.image.pixelWidth == Int(200 * scale))
    #expect(result.image.pixelHeight == Int(50 * scale))
    #expect(result.image.scale == scale)
  }

  @Test("ink stays inside the padding; the background shows everywhere else")
  func inkInsidePadding() throws {
    let background = try Color(parsing: "#204080")
    var style = TextStyle(font: "Sans 14")
    style.color = .white
    let padding = 16.0
    let tile = TextTile(
      .plain(sentence), style: style, width: 300, scale: 2, padding: EdgeInsets(all: padding),
      background: background)
    let image = try tile.render().image
    let bounds = try #require(image.inkBounds(background: background))
    let inset = Int(padding * 2)
    #expect(bounds.minX >= inset - 2)
    #expect(bounds.minY >= inset - 2)
    #expect(bounds.maxX < image.pixelWidth - inset + 2)
    #expect(bounds.maxY < image.pixelHeight - inset + 2)
    // Corners and the padding band are the background colour.
    for (x, y) in [(0, 0), (image.pixelWidth - 1, 0), (0, image.pixelHeight - 1), (5, image.pixelHeight / 2)] {
      #expect(image.color(x: x, y: y).isClose(to: background))
    }
    // Text is drawn in the style's colour: some pixels are (nearly) pure white.
    #expect(image.pixels.contains { $0 == 0xffff_ffff })
  }

  @Test("fitting the height grows with the text")
  func fitsHeight() throws {
    let short = try TextTile(.plain("One line"), width: 300, scale: 1).render()
    let long = try TextTile(.plain(String(repeating: sentence + " ", count: 3)), width: 300, scale: 1).render()
    #expect(short.lineCount == 1)
    #expect(long.lineCount > 3)
    #expect(long.image.pixelHeight > short.image.pixelHeight * 3)
  }

  @Test("every script renders with zero unknown glyphs")
  func multilingual() throws {
    let samples = [
      "English text", "中文文本渲染", "日本語のテキスト", "한국어 텍스트", "النص العربي", "עברית", "Ελληνικά", "Русский",
      "Emoji 😀🎉🚀👩🏽‍💻🇯🇵",
    ]
    for sample in samples {
      let result = try TextTile(.plain(sample), width: 400, scale: 2, background: .white).render()
      #expect(result.unknownGlyphCount == 0, "unknown glyphs in \(sample)")
      #expect(result.image.inkPixelCount(background: .white) > 50, "no ink for \(sample)")
    }
  }

  @Test("a character no font covers is counted")
  func unknownGlyphsAreCounted() throws {
    // U+0378 is unassigned: no font has a glyph for it.
    let result = try TextTile(.plain("a\u{378}b"), width: 200, scale: 1).render()
    #expect(result.unknownGlyphCount == 1)
  }

  @Test("bold markup yields more ink than regular")
  func boldHasMoreInk() throws {
    let text = "Bold text has thicker strokes than regular text"
    let regular = try TextTile(.markup(text), width: 500, scale: 2, background: .white).render()
    let bold = try TextTile(.markup("<b>\(text)</b>"), width: 500, scale: 2, background: .white).render()
    let regularInk = regular.image.inkPixelCount(background: .white)
    let boldInk = bold.image.inkPixelCount(background: .white)
    #expect(Double(boldInk) > Double(regularInk) * 1.15)
  }

  @Test("max-lines and ellipsize bound the height")
  func maxLinesBoundHeight() throws {
    let paragraph = String(repeating: sentence + " ", count: 5)
    let free = try TextTile(.plain(paragraph), width: 300, scale: 1).render()
    var ellipsized = TextStyle()
    ellipsized.maxLines = 2
    ellipsized.ellipsize = .end
    let two = try TextTile(.plain(paragraph), style: ellipsized, width: 300, scale: 1).render()
    var cut = TextStyle()
    cut.maxLines = 3
    let three = try TextTile(.plain(paragraph), style: cut, width: 300, scale: 1).render()
    #expect(free.lineCount > 5)
    #expect(two.lineCount == 2)
    #expect(two.isEllipsized)
    #expect(three.lineCount == 3)
    #expect(two.image.pixelHeight < three.image.pixelHeight)
    #expect(three.image.pixelHeight < free.image.pixelHeight)
    // A single ellipsized line without max-lines.
    var oneLine = TextStyle()
    oneLine.ellipsize = .middle
    let single = try TextTile(.plain(paragraph), style: oneLine, width: 300, scale: 1).render()
    #expect(single.lineCount == 1)
    #expect(single.isEllipsized)
  }

  @Test("a fixed height shows only the lines that fit")
  func fixedHeightClipsLines() throws {
    let paragraph = String(repeating: sentence + " ", count: 5)
    let result = try TextTile(.plain(paragraph), width: 300, height: 60, scale: 1, background: .white).render()
    #expect(result.image.pixelHeight == 60)
    #expect(result.lineCount < 5)
  }

  @Test("empty text is refused; text of spaces is a blank line")
  func emptyText() throws {
    #expect(throws: RenderError.emptyText) { try TextTile(.plain(""), width: 100, scale: 2).render() }
    #expect(throws: RenderError.emptyText) { try TextTile(.markup("<b></b>"), width: 100, scale: 2).render() }
    let result = try TextTile(.plain(" "), width: 100, scale: 2, background: .white).render()
    #expect(result.image.pixelWidth == 200)
    #expect(result.image.pixelHeight > 20)
    #expect(result.image.inkPixelCount(background: .white) == 0)
  }

  @Test("an unknown font family falls back, draws, and is reported")
  func unknownFamilyFallsBack() throws {
    let result = try TextTile(
      .plain("Fallback"), style: TextStyle(font: "NoSuchFamilyAnywhere 14"), width: 200, scale: 1, background: .white
    ).render()
    #expect(result.missingFontFamilies == ["NoSuchFamilyAnywhere"])
    #expect(result.image.inkPixelCount(background: .white) > 20)
    let known = try TextTile(.plain("Sans"), style: TextStyle(font: "Sans 14"), width: 200, scale: 1).render()
    #expect(known.missingFontFamilies.isEmpty)
  }

  @Test("alignment moves the ink")
  func alignment() throws {
    func inkCenter(_ alignment: TextAlignment) throws -> Int {
      var style = TextStyle()
      style.alignment = alignment
      let image = try TextTile(.plain("Hi"), style: style, width: 300, scale: 1, background: .white).render().image
      let b = try #require(image.inkBounds(background: .white))
      return (b.minX + b.maxX) / 2
    }
    let left = try inkCenter(.left)
    let center = try inkCenter(.center)
    let right = try inkCenter(.right)
    #expect(left < 50)
    #expect(abs(center - 150) < 20)
    #expect(right > 250)
  }
}

@Suite("Degenerate tiles are refused with the reason")
struct DegenerateTileTests {
  @Test("a line spacing that stacks lines upwards is refused instead of a 1-pixel-tall tile")
  func collapsingLineSpacing() throws {
    var style = TextStyle(fontSize: 14)
    style.lineSpacing = -100
    #expect {
      try TextTile(.plain("a b c"), style: style, width: 20).render()
    } throws: { error in
      guard case RenderError.invalidValue("line spacing", "-100.0", let expected) = error else { return false }
      return expected.contains("-7.0")
    }
    // Tight leading within the rule still draws every line, top to bottom.
    style.lineSpacing = -7
    let tight = try TextTile(.plain("a b c"), style: style, width: 20, background: .white).render()
    #expect(tight.lineCount == 3)
    #expect(tight.image.pixelHeight > 20)
  }

  @Test("a scale that would shrink the tile to a pixel is refused", arguments: [1e-9, 0.009])
  func tinyScale(scale: Double) {
    #expect {
      try TextTile(.plain("hello"), width: 375, scale: scale).render()
    } throws: { error in
      guard case RenderError.invalidValue("scale", _, let expected) = error else { return false }
      return expected.contains("\(ImageRenderer.minimumScale)")
    }
    #expect(throws: RenderError.self) { try ImageRenderer(size: Size(width: 375, height: 100), scale: scale) }
    #expect(throws: RenderError.self) {
      try TextMeasurer(capacity: 1).size(of: .plain("x"), style: TextStyle(), width: 100, scale: scale)
    }
  }

  @Test("the smallest scale still draws")
  func minimumScale() throws {
    let tile = try TextTile(
      .plain("hello"), style: TextStyle(fontSize: 400), width: 1000, scale: ImageRenderer.minimumScale
    ).render()
    #expect(tile.image.pixelWidth == 10)
  }
}
