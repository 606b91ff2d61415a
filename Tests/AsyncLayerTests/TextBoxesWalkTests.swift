import Testing

@testable import AsyncLayer

/// The cluster boxes come from a walk over each run's glyph string; Pango's character iterator,
/// which they came from before, must give the very same boxes (text, bytes, line, logical and ink
/// box, to the bit) on every script, direction, ellipsis, spacing and orientation.
@Suite("Cluster boxes: glyph walk against Pango's character iterator")
struct TextBoxesWalkTests {
  struct Case: CustomTestStringConvertible, Sendable {
    var name: String
    var content: TextContent
    var width: Double? = 400
    var style: @Sendable (inout TextStyle) -> Void = { _ in }

    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(name: "Latin", content: .plain("Quick fjord Wyvern, AVATAR office 1234 (jy) ffi fl")),
    Case(name: "Arabic", content: .plain("مرحبا بالعالم، هذا نص عربي ١٢٣")),
    Case(name: "Arabic wrapped", content: .plain("مرحبا بالعالم، هذا نص عربي طويل يلتف على عدة أسطر ١٢٣"), width: 120),
    Case(name: "mixed directions", content: .plain("English then عربي مع 123 أرقام and back שלום עולם"), width: 200),
    Case(name: "Devanagari", content: .plain("क्षत्रिय श्री द्वारा हिन्दी पाठ")),
    Case(name: "CJK", content: .plain("東京都の天気は晴れ、漢字かな交じり文。")),
    Case(name: "emoji", content: .plain("Flags 🇯🇵🇫🇷 family 👨‍👩‍👧 skin 👍🏽 ok ✅")),
    Case(name: "Thai", content: .plain("ภาษาไทยไม่มีช่องว่างระหว่างคำ")),
    Case(
      name: "marks and zero widths",
      content: .plain("e\u{301} a\u{308}\u{323} zero\u{200B}width\u{200D} \u{200B}\u{200B}x\ttab")),
    Case(
      name: "markup",
      content: .markup("<b>bold</b> <span size='x-large'>big</span> <i>italic</i> <span rise='4000'>up</span>")),
    Case(name: "letter spacing", content: .plain("Letter spacing عربي मध्य"), style: { $0.letterSpacing = 3 }),
    Case(
      name: "ellipsis at the end", content: .plain("An ellipsis at the end of a line that is far too long to fit"),
      width: 150,
      style: {
        $0.ellipsize = .end; $0.maxLines = 1
      }),
    Case(
      name: "ellipsis at the start", content: .plain("مرحبا بالعالم، هذا نص عربي طويل جدا للسطر"), width: 120,
      style: {
        $0.ellipsize = .start; $0.maxLines = 1
      }),
    Case(
      name: "ellipsis in the middle", content: .plain("मध्य में लोप वाला एक बहुत लंबा हिंदी वाक्य यहाँ है"), width: 150,
      style: {
        $0.ellipsize = .middle; $0.maxLines = 1
      }),
    Case(
      name: "two lines then an ellipsis",
      content: .plain(String(repeating: "Two lines shown, the rest cut. ", count: 6)),
      width: 200,
      style: {
        $0.ellipsize = .end; $0.maxLines = 2
      }),
    Case(
      name: "centred", content: .plain("centred text on lines\nof different lengths"), style: { $0.alignment = .center }
    ),
    Case(name: "vertical", content: .plain("東京都の天気 Tokyo 晴れ 👍🏽"), width: 300, style: { $0.orientation = .vertical }),
    Case(
      name: "vertical upright", content: .plain("漢字 ABC かな"), width: 220, style: { $0.orientation = .verticalUpright }),
    Case(
      name: "pieces", content: .plain((0..<900).map { "word\($0) كلمة" }.joined(separator: " ")), width: 300,
      style: { $0.maxLines = 0 }),
  ]

  @Test("the same clusters either way", arguments: cases)
  func sameClusters(_ testCase: Case) throws {
    var style = TextStyle(font: "Sans 20")
    testCase.style(&style)
    let layout = try TextLayout(testCase.content, style: style, width: testCase.width)
    // The glyph walk handles every case here by itself (no hand-over to the character walk).
    let glyphs = try #require(layout.clusterBoxesWalkingGlyphsOnly())
    #expect(glyphs == layout.clusterBoxes())
    let characters = layout.clusterBoxesWalkingCharacters()
    #expect(!glyphs.isEmpty)
    #expect(glyphs.count == characters.count)
    for (glyph, character) in zip(glyphs, characters) where glyph != character {
      Issue.record("\(testCase.name): \(glyph) against the iterator's \(character)")
      break
    }
  }

  @Test("the comparison sees a box moved by one Pango unit")
  func comparisonCanFail() throws {
    let layout = try TextLayout(.plain("Hello"), style: TextStyle(font: "Sans 20"), width: 400)
    let boxes = layout.clusterBoxes()
    let box = try #require(boxes.first)
    let moved = TextBox(
      text: box.text, utf8Range: box.utf8Range, lineIndex: box.lineIndex,
      frame: Rect(x: box.frame.minX + 1.0 / 1024, y: box.frame.minY, width: box.frame.width, height: box.frame.height),
      inkFrame: box.inkFrame)
    #expect(moved != box)
    #expect(boxes == layout.clusterBoxesWalkingCharacters())
  }
}
