import CCairo
import Testing

@testable import AsyncLayer

/// A text ellipsized per paragraph (``TextStyle/maxLines``, or one line per paragraph without a
/// height) laid out in pieces shows what one layout shows, ``TextLayout/isEllipsized`` included.
@Suite("Layout in pieces: ellipsis per paragraph")
struct TextLayoutLineLimitPiecesTests {
  typealias Case = TextLayoutPiecesTests.Case

  static let cases: [Case] = {
    var cases: [Case] = []
    let latin = TextLayoutPiecesTests.latin
    let arabic = TextLayoutPiecesTests.arabic
    let mixed = (0..<40).map { index in
      switch index % 5 {
      case 0: "Paragraph \(index) in English, long enough to wrap over two lines at this width, or more."
      case 1: "فقرة \(index) باللغة العربية، طويلة بما يكفي لتلتف على سطرين أو أكثر في هذا العرض."
      case 2: ""
      case 3: "Short \(index)."
      default: String(latin.prefix(700))
      }
    }.joined(separator: "\n")
    let markup = (0..<80).map { index in
      "word\(index) <b>bold</b> <span size=\"\(index % 7 == 3 ? "xx-large" : "small")\">sized \(index)</span>"
    }.joined(separator: " ")
    for ellipsize in [EllipsizeMode.end, .start, .middle] {
      for maxLines in [0, 1, 3] {
        var style = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
        style.ellipsize = ellipsize
        style.maxLines = maxLines
        let name = "\(ellipsize), \(maxLines == 0 ? "no height" : "maxLines \(maxLines)")"
        cases.append(Case(name: "\(name): Latin paragraph", content: .plain(latin + "\n" + latin), style: style))
        cases.append(Case(name: "\(name): mixed paragraphs", content: .plain(mixed), style: style))
        cases.append(Case(name: "\(name): markup, sizes vary", content: .markup(markup), style: style))
        if ellipsize == .end {
          cases.append(Case(name: "\(name): Arabic paragraph", content: .plain(arabic), style: style))
        }
      }
    }
    var hanging = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
    hanging.ellipsize = .end
    hanging.maxLines = 4
    hanging.firstLineIndent = -25
    cases.append(
      Case(name: "end, maxLines 4, hanging indent", content: .plain(latin + "\n" + arabic), style: hanging))
    hanging.firstLineIndent = 30
    hanging.lineSpacing = 3
    cases.append(
      Case(
        name: "end, maxLines 4, indent and spacing, 120 pt high", content: .plain(latin), style: hanging, height: 120))
    return cases
  }()

  @Test("pieces give the lines, size, hit tests, pixels and ellipsis flag of one layout", arguments: cases)
  func sameAsOneLayout(_ test: Case) throws {
    let whole = try TextLayout(
      test.content, style: test.style, width: test.width, height: test.height, scale: 2,
      splitting: TextLayoutPiecesTests.whole)
    let pieced = try TextLayout(
      test.content, style: test.style, width: test.width, height: test.height, scale: 2,
      splitting: TextLayoutPiecesTests.small)
    #expect(whole.pieces.isEmpty)
    // A paragraph of one allowed line is one piece (its tail); the rest are several.
    #expect(!pieced.pieces.isEmpty)
    let sameAllLines = pieced.allLines == whole.allLines
    #expect(sameAllLines, "\(pieced.allLines.count) vs \(whole.allLines.count) lines")
    try TextLayoutPiecesTests.expectSame(pieced, whole)
    // A draw stops after the shown lines, once it knows whether anything is ellipsized.
    let drawn = try TextLayout(
      test.content, style: test.style, width: test.width, height: test.height, scale: 2,
      splitting: TextLayoutEllipsisPiecesTests.drawing)
    let drawnWhole = try TextLayout(
      test.content, style: test.style, width: test.width, height: test.height, scale: 2,
      splitting: TextLayoutEllipsisPiecesTests.wholeDrawing)
    #expect(drawn.lines == drawnWhole.lines)
    #expect(drawn.isEllipsized == drawnWhole.isEllipsized)
    let pixelsWhole = try TextLayoutPiecesTests.render(drawnWhole, height: min(drawnWhole.size.height, 2_000))
    let pixelsDrawn = try TextLayoutPiecesTests.render(drawn, height: min(drawnWhole.size.height, 2_000))
    #expect(pixelsWhole.pixels == pixelsDrawn.pixels)
  }

  @Test("a long paragraph's last allowed line covers a bounded stretch of it")
  func tailIsBounded() throws {
    var style = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
    style.ellipsize = .end
    style.maxLines = 3
    let text = String(repeating: TextLayoutPiecesTests.latin, count: 20)  // 43 KiB, one paragraph
    let pieced = try TextLayout(
      .plain(text), style: style, width: 300, scale: 2, splitting: TextLayout.Splitting(pieceBytes: 1_000))
    let whole = try TextLayout(.plain(text), style: style, width: 300, scale: 2, splitting: TextLayoutPiecesTests.whole)
    let tail = try #require(pieced.pieces.last)
    #expect(pieced.isEllipsized)
    #expect(strlen(pango_layout_get_text(tail.raw)) <= 4_000)
    #expect(pieced.lines == whole.lines)
    let last = try #require(pieced.allLines.last)
    #expect(last.utf8Offset + last.utf8Length == text.utf8.count)
  }

  @Test("a hidden paragraph's ellipsis is reported, as one layout reports it")
  func hiddenParagraphEllipsis() throws {
    var style = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
    style.ellipsize = .end
    style.maxLines = 2
    // Short paragraphs show the two lines; the long one after them is ellipsized, hidden.
    let text = (0..<20).map { "Line \($0)." }.joined(separator: "\n") + "\n" + TextLayoutPiecesTests.latin
    let whole = try TextLayout(
      .plain(text), style: style, width: 300, splitting: TextLayoutEllipsisPiecesTests.wholeDrawing)
    let drawn = try TextLayout(.plain(text), style: style, width: 300, splitting: TextLayoutEllipsisPiecesTests.drawing)
    #expect(whole.isEllipsized)
    #expect(drawn.isEllipsized)
    #expect(drawn.lines == whole.lines)
    #expect(drawn.pieces.count > 1)
  }
}
