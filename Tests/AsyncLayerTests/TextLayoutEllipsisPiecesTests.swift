import CCairo
import Testing

@testable import AsyncLayer

/// An ellipsized text fitted to a height, and a text under a hanging indent, laid out in pieces
/// for a draw, show what one layout shows.
@Suite("Layout in pieces: ellipsis and hanging indent")
struct TextLayoutEllipsisPiecesTests {
  typealias Case = TextLayoutPiecesTests.Case

  /// A draw's splitting: small pieces, stopping after the shown lines.
  static var drawing: TextLayout.Splitting {
    TextLayout.Splitting(stopsAfterShownLines: true, pieceBytes: 200)
  }
  /// One layout, as a draw asks for it.
  static var wholeDrawing: TextLayout.Splitting {
    TextLayout.Splitting(stopsAfterShownLines: true, pieceBytes: 1 << 30)
  }

  static let latin = TextLayoutPiecesTests.latin
  static let arabic = TextLayoutPiecesTests.arabic

  static let ellipsisCases: [Case] = {
    var cases: [Case] = []
    var style = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
    style.ellipsize = .end
    let mixed = (0..<40).map { index in
      index % 3 == 1
        ? "فقرة \(index) باللغة العربية، طويلة بما يكفي لتلتف على سطرين أو أكثر في هذا العرض."
        : "Paragraph \(index) in English, long enough to wrap over two lines at this width, or more."
    }.joined(separator: "\n")
    let markup = (0..<80).map { index in
      "word\(index) <b>bold</b> <span size=\"\(index % 7 == 3 ? "xx-large" : "small")\">sized \(index)</span>"
    }.joined(separator: " ")
    for height in [30.0, 100, 333] {
      cases.append(Case(name: "Latin, \(Int(height)) pt", content: .plain(latin), style: style, height: height))
      cases.append(Case(name: "Arabic, \(Int(height)) pt", content: .plain(arabic), style: style, height: height))
      cases.append(
        Case(name: "mixed paragraphs, \(Int(height)) pt", content: .plain(mixed), style: style, height: height))
      cases.append(
        Case(name: "markup, sizes vary, \(Int(height)) pt", content: .markup(markup), style: style, height: height))
    }
    var spaced = style
    spaced.lineSpacing = 4
    spaced.firstLineIndent = 25
    cases.append(
      Case(name: "spacing and indent, 200 pt", content: .plain(latin + "\n" + latin), style: spaced, height: 200))
    var justified = style
    justified.alignment = .justify
    cases.append(Case(name: "justified, 150 pt", content: .plain(latin), style: justified, height: 150))
    var wordChar = style
    wordChar.wrap = .wordChar
    cases.append(
      Case(
        name: "a run without spaces, 120 pt", content: .plain(String(repeating: "abcdefghij", count: 300)),
        style: wordChar, height: 120))
    return cases
  }()

  @Test(
    "an ellipsized text in pieces has the lines, size, hit tests and pixels of one layout", arguments: ellipsisCases)
  func ellipsisSameAsOneLayout(_ test: Case) throws {
    let whole = try TextLayout(
      test.content, style: test.style, width: test.width, height: test.height, scale: 2,
      splitting: Self.wholeDrawing)
    let pieced = try TextLayout(
      test.content, style: test.style, width: test.width, height: test.height, scale: 2, splitting: Self.drawing)
    #expect(whole.pieces.isEmpty)
    #expect(!pieced.pieces.isEmpty)
    // Short paragraphs may end within the last line: no ellipsis then, in either.
    if !test.name.hasPrefix("mixed") { #expect(whole.isEllipsized) }
    // Pango lays out lines down to the one it ellipsizes, and stops: all of them are the same.
    let sameAllLines = pieced.allLines == whole.allLines
    #expect(sameAllLines, "\(pieced.allLines.count) vs \(whole.allLines.count) lines")
    try TextLayoutPiecesTests.expectSame(pieced, whole)
  }

  @Test("the tail of a long ellipsized text covers a bounded stretch of it")
  func ellipsisTailIsBounded() throws {
    var style = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
    style.ellipsize = .end
    let text = String(repeating: Self.latin, count: 20)  // 43 KiB, one paragraph
    let pieced = try TextLayout(
      .plain(text), style: style, width: 300, height: 400, scale: 2,
      splitting: TextLayout.Splitting(stopsAfterShownLines: true, pieceBytes: 1_000))
    let tail = try #require(pieced.pieces.last)
    #expect(pieced.isEllipsized)
    #expect(strlen(pango_layout_get_text(tail.raw)) <= 4_000)
    // The last line holds the rest of the paragraph, as in one layout.
    let last = try #require(pieced.allLines.last)
    #expect(last.utf8Offset + last.utf8Length == text.utf8.count)
  }

  @Test("ellipses at the start or middle of a text fitted to a height keep one layout")
  func otherEllipsesKeepOneLayout() throws {
    // (An ellipsis for a line limit, `.end` with `maxLines` 4, is laid out in pieces since
    // 2026-11-26: TextLayoutLineLimitPiecesTests.)
    for (ellipsize, maxLines) in [(EllipsizeMode.start, 0), (.middle, 0)] {
      var style = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
      style.ellipsize = ellipsize
      style.maxLines = maxLines
      let layout = try TextLayout(.plain(Self.latin), style: style, width: 300, height: 100, splitting: Self.drawing)
      #expect(layout.pieces.isEmpty)
      #expect(layout.isEllipsized)
    }
  }

  static let hangingCases: [Case] = {
    var cases: [Case] = []
    for alignment in [TextAlignment.natural, .justify, .trailing, .center] {
      var style = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
      style.firstLineIndent = -30
      style.alignment = alignment
      cases.append(Case(name: "\(alignment) Latin", content: .plain(latin + "\n" + latin), style: style))
      cases.append(Case(name: "\(alignment) Arabic", content: .plain(arabic + "\n" + arabic), style: style))
      cases.append(
        Case(
          name: "\(alignment) Latin, Arabic, Latin", content: .plain(latin + "\n" + arabic + "\n" + latin), style: style
        ))
    }
    return cases
  }()

  @Test("a text under a hanging indent in pieces shows what one layout shows", arguments: hangingCases)
  func hangingIndentSameAsOneLayout(_ test: Case) throws {
    let whole = try TextLayout(
      test.content, style: test.style, width: test.width, scale: 2, splitting: TextLayoutPiecesTests.whole)
    let pieced = try TextLayout(
      test.content, style: test.style, width: test.width, scale: 2, splitting: TextLayoutPiecesTests.small)
    #expect(whole.pieces.isEmpty)
    #expect(pieced.pieces.count > 3, "\(pieced.pieces.count) pieces")
    let sameAllLines = pieced.allLines == whole.allLines
    #expect(sameAllLines, "\(pieced.allLines.count) vs \(whole.allLines.count) lines")
    try TextLayoutPiecesTests.expectSame(pieced, whole)
  }
}
