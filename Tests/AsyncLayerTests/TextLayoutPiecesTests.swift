import CCairo
import Synchronization
import Testing

@testable import AsyncLayer

/// Counts the cancellation checks of a layout.
private final class Counter: Sendable {
  private let calls = Atomic(0)
  /// Counts a call and returns the calls so far.
  func next() -> Int { calls.add(1, ordering: .relaxed).newValue }
  var count: Int { calls.load(ordering: .relaxed) }
}

/// A long text laid out in pieces (so that a draw can be cancelled between them) gives the lines,
/// sizes, hit tests and pixels of one layout of the whole text.
@Suite("Layout in pieces")
struct TextLayoutPiecesTests {
  /// Small pieces, so that texts of a few kilobytes make many.
  static var small: TextLayout.Splitting { TextLayout.Splitting(pieceBytes: 200) }
  /// Pieces larger than any text here: one layout.
  static var whole: TextLayout.Splitting { TextLayout.Splitting(pieceBytes: 1 << 30) }

  struct Case: CustomTestStringConvertible, Sendable {
    var name: String
    var content: TextContent
    var style = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
    var width: Double = 300
    var height: Double? = nil
    var testDescription: String { name }
  }

  static let latin = String(
    repeating: "The quick brown fox jumps over the lazy dog, and keeps running far away. ", count: 30)
  static let arabic = String(repeating: "مرحبا بالعالم، هذا نص عربي طويل يلتف على عدة أسطر في الفقرة. ", count: 30)
  static let cjk = String(repeating: "天地玄黄，宇宙洪荒。日月盈昃，辰宿列张。寒来暑往，秋收冬藏。", count: 30)
  static let devanagari = String(repeating: "यह एक लंबा हिंदी पाठ है जो कई पंक्तियों में लपेटा जाता है। ", count: 30)

  static let cases: [Case] = {
    var cases: [Case] = [
      Case(name: "Latin, one paragraph", content: .plain(latin)),
      Case(name: "Arabic (right to left), one paragraph", content: .plain(arabic)),
      Case(name: "CJK, one paragraph", content: .plain(cjk)),
      Case(name: "Devanagari, one paragraph", content: .plain(devanagari)),
      Case(
        name: "paragraphs of mixed directions, blank and neutral ones",
        content: .plain(
          (0..<40).map { index in
            switch index % 5 {
            case 0: "Paragraph \(index) in English, long enough to wrap over two lines at this width."
            case 1: "فقرة \(index) باللغة العربية، طويلة بما يكفي لتلتف على سطرين."
            case 2: ""
            case 3: "12345 67890 — 2024"
            default: "天地玄黄，宇宙洪荒。日月盈昃，辰宿列张。\(index)"
            }
          }.joined(separator: "\n"))),
      Case(
        name: "markup with spans across piece boundaries",
        content: .markup(
          (0..<60).map { index in
            "word\(index) <b>bold \(index) <i>and italic</i> running on</b> <span size=\"x-large\">big \(index)</span>"
          }.joined(separator: " "))),
      Case(name: "Arabic after a neutral first paragraph", content: .plain("1234\n" + arabic)),
    ]
    var indented = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
    indented.firstLineIndent = 40
    cases.append(Case(name: "first-line indent", content: .plain(latin + "\n" + latin), style: indented))
    for alignment in [TextAlignment.justify, .center, .trailing, .right] {
      var style = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
      style.alignment = alignment
      cases.append(Case(name: "\(alignment) Latin", content: .plain(latin), style: style))
      cases.append(Case(name: "\(alignment) Arabic", content: .plain(arabic), style: style))
    }
    // Widths at which a paragraph's last line ends in a space just past the edge: Pango 1.50
    // breaks it in two before a paragraph delimiter and keeps it one line at the end of a text, so
    // a piece that ends with a paragraph must be laid out with its delimiter (found with Pango
    // 1.50.12; at these widths the paragraph alone is one line shorter than in one layout).
    let unit = "The quick brown fox jumps over the lazy dog, and keeps running far away. "
    cases.append(
      Case(
        name: "delimiter: a long paragraph's last line at the edge", content: .plain(latin + "\n" + latin), width: 268
      ))
    cases.append(
      Case(
        name: "delimiter: short paragraphs' last lines at the edge",
        content: .plain(Array(repeating: unit + unit, count: 12).joined(separator: "\n")), width: 268))
    let hebrew = String(repeating: "שלום עולם, זהו טקסט עברי ארוך שנשבר על פני כמה שורות בפסקה. ", count: 30)
    var hangingHebrew = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
    hangingHebrew.firstLineIndent = -30
    cases.append(
      Case(
        name: "delimiter: Hebrew under a hanging indent", content: .plain(hebrew + "\n" + hebrew + "\n" + latin),
        style: hangingHebrew, width: 240))
    var spaced = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
    spaced.lineSpacing = 3
    spaced.lineHeight = 1.3
    cases.append(Case(name: "line spacing and height", content: .plain(latin), style: spaced))
    var charWrapped = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
    charWrapped.wrap = .wordChar
    cases.append(
      Case(
        name: "a run without spaces, wrapped between characters",
        content: .plain(String(repeating: "abcdefghij", count: 300)), style: charWrapped))
    cases.append(
      Case(
        name: "a Cyrillic run without spaces, wrapped between characters",
        content: .plain(String(repeating: "абвгдеёжзи", count: 200)), style: charWrapped))
    return cases
  }()

  static func render(_ layout: TextLayout, height: Double) throws -> RenderedImage {
    try ImageRenderer(size: Size(width: (layout.width ?? 300) + 20, height: height), scale: 2).render { context in
      context.clear(to: .white)
      context.draw(layout, at: Point(x: 10, y: 0))
    }
  }

  @Test("pieces give the lines, size, hit tests and pixels of one layout", arguments: cases)
  func sameAsOneLayout(_ test: Case) throws {
    let whole = try TextLayout(
      test.content, style: test.style, width: test.width, height: test.height, scale: 2, splitting: Self.whole)
    let pieced = try TextLayout(
      test.content, style: test.style, width: test.width, height: test.height, scale: 2, splitting: Self.small)
    #expect(whole.pieces.isEmpty)
    #expect(pieced.pieces.count > 3, "\(pieced.pieces.count) pieces")
    let sameAllLines = pieced.allLines == whole.allLines
    #expect(sameAllLines)
    try Self.expectSame(pieced, whole)
  }

  /// Expects `pieced` to show what `whole` shows: lines, size, text, pixels and hit tests.
  static func expectSame(_ pieced: TextLayout, _ whole: TextLayout, sourceLocation: SourceLocation = #_sourceLocation)
    throws
  {
    // Compared as a Bool with the first difference named: the arrays are too long to print.
    let firstDifference = zip(pieced.lines, whole.lines).first { $0 != $1 }?.0.index
    let sameLines = pieced.lines == whole.lines
    #expect(
      sameLines,
      "\(pieced.lines.count) vs \(whole.lines.count) lines, first difference at \(String(describing: firstDifference))",
      sourceLocation: sourceLocation)
    #expect(pieced.size == whole.size, sourceLocation: sourceLocation)
    #expect(pieced.unknownGlyphCount == whole.unknownGlyphCount, sourceLocation: sourceLocation)
    #expect(pieced.isEllipsized == whole.isEllipsized, sourceLocation: sourceLocation)
    #expect(pieced.text == whole.text, sourceLocation: sourceLocation)
    let height = min(max(whole.size.height, whole.height ?? 0), 2_000)
    let pixelsWhole = try render(whole, height: height)
    let pixelsPieced = try render(pieced, height: height)
    #expect(pixelsWhole.pixels == pixelsPieced.pixels, sourceLocation: sourceLocation)
    // Hit tests and ranges at the start, middle and end of lines throughout the text (every
    // third line, and the last shown one, which may end in an ellipsis).
    for line in whole.lines where line.index % 3 == 0 || line.index == whole.lines.count - 1 {
      for x in [line.frame.minX + 2, line.frame.midX, line.frame.maxX - 2] {
        let point = Point(x: x, y: line.frame.midY)
        #expect(
          pieced.position(at: point) == whole.position(at: point), "line \(line.index) x \(x)",
          sourceLocation: sourceLocation)
      }
      let range = line.utf8Offset..<(line.utf8Offset + line.utf8Length)
      #expect(pieced.rects(forUTF8Range: range) == whole.rects(forUTF8Range: range), sourceLocation: sourceLocation)
      for offset in [line.utf8Offset, line.utf8Offset + line.utf8Length - 1] {
        #expect(
          pieced.characterFrame(atUTF8Offset: offset) == whole.characterFrame(atUTF8Offset: offset),
          "line \(line.index) offset \(offset)", sourceLocation: sourceLocation)
      }
      #expect(pieced.lineIndex(containingUTF8Offset: line.utf8Offset) == line.index, sourceLocation: sourceLocation)
    }
  }

  @Test("each piece gets only the attributes that overlap its text")
  func attributesSlicedPerPiece() throws {
    let markup = (0..<60).map { "word\($0) <b>bold <i>and italic</i></b> <span size=\"x-large\">big</span>" }
    let text = "<span foreground=\"red\">" + markup.joined(separator: " ") + "</span>"
    let pieced = try TextLayout(.markup(text), style: TextStyle(), width: 300, splitting: Self.small)
    #expect(pieced.pieces.count > 5)
    var total = 0
    for piece in pieced.pieces {
      let length = UInt32(strlen(pango_layout_get_text(piece.raw)))
      let head = try #require(pango_attr_list_get_attributes(pango_layout_get_attributes(piece.raw)))
      var node: UnsafeMutablePointer<GSList>? = head
      var spansWhole = false
      while let current = node, let attribute = current.pointee.data?.assumingMemoryBound(to: PangoAttribute.self) {
        // Copying the whole list would leave the later pieces' attributes past this text's end.
        #expect(attribute.pointee.start_index < length, "piece at \(piece.byteOffset)")
        if attribute.pointee.start_index == 0 && attribute.pointee.end_index >= length { spansWhole = true }
        total += 1
        pango_attribute_destroy(attribute)
        node = current.pointee.next
      }
      g_slist_free(head)
      // The red span across the whole text reaches every piece.
      #expect(spansWhole, "piece at \(piece.byteOffset)")
    }
    #expect(total < 60 * 5)
  }

  @Test("a run without spaces is laid out in smaller prefixes")
  func unbrokenRunsTakeSmallPieces() throws {
    var style = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
    style.wrap = .wordChar
    let run = String(repeating: "abcdefghij", count: 1_000)
    let splitting = TextLayout.Splitting(pieceBytes: 1_600)
    let pieced = try TextLayout(.plain(run), style: style, width: 300, splitting: splitting)
    let whole = try TextLayout(.plain(run), style: style, width: 300, splitting: Self.whole)
    #expect(pieced.allLines == whole.allLines)
    let spans = zip(pieced.pieces.dropFirst(), pieced.pieces).map { $0.byteOffset - $1.byteOffset }
    #expect(!spans.isEmpty)
    // A prefix with a space would be cut near 1,600 bytes; this one near 1,600 / 8.
    #expect(spans.allSatisfy { $0 <= 1_600 / 4 }, "\(spans)")
  }

  @Test("a draw stops after the shown lines and draws what one layout shows")
  func stopsAfterShownLines() throws {
    var style = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
    for (height, maxLines) in [(200.0, 0), (2_000.0, 7)] {
      style.maxLines = maxLines
      let whole = try TextLayout(.plain(Self.latin), style: style, width: 300, height: height, splitting: Self.whole)
      var splitting = Self.small
      splitting.stopsAfterShownLines = true
      let pieced = try TextLayout(.plain(Self.latin), style: style, width: 300, height: height, splitting: splitting)
      #expect(pieced.lines == whole.lines)
      #expect(pieced.allLines.count < whole.allLines.count)
      #expect(pieced.allLines.count <= whole.lines.count + 12)
      let pixelsWhole = try Self.render(whole, height: whole.size.height)
      let pixelsPieced = try Self.render(pieced, height: whole.size.height)
      #expect(pixelsWhole.pixels == pixelsPieced.pixels)
    }
  }

  @Test("an ellipsis outside a draw keeps one layout; a right-to-left paragraph under a hanging indent is split")
  func unsplitCases() throws {
    var ellipsized = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
    ellipsized.ellipsize = .end
    let layout = try TextLayout(.plain(Self.latin), style: ellipsized, width: 300, height: 100, splitting: Self.small)
    #expect(layout.pieces.isEmpty)
    #expect(layout.isEllipsized)
    var hanging = TextStyle(fontFamily: "DejaVu Sans", fontSize: 14)
    hanging.firstLineIndent = -30
    let text = Self.latin + "\n" + Self.arabic + "\n" + Self.latin
    #expect(try TextLayout(.plain(text), style: hanging, width: 300, splitting: Self.small).pieces.count > 3)
    #expect(try TextLayout(.plain(Self.arabic), style: hanging, width: 300, splitting: Self.small).pieces.count > 3)
  }

  @Test("cancelled after the first piece, the layout throws before the second")
  func cancelsBetweenPieces() throws {
    let checks = Counter()
    // The check runs before each piece: the first call lets piece 1 through, the second cancels.
    let splitting = TextLayout.Splitting(isCancelled: { checks.next() >= 2 }, pieceBytes: 200)
    #expect(throws: CancellationError.self) {
      _ = try TextLayout(.plain(Self.latin), style: TextStyle(), width: 300, splitting: splitting)
    }
    #expect(checks.count == 2)
  }

  @Test("a tile of one 256 KiB paragraph throws CancellationError at the check after its first piece")
  func tileCancelsBetweenPieces() throws {
    let paragraph = String(
      String(repeating: "lorem ipsum dolor sit amet consectetur ", count: 7_000).prefix(256 << 10 - 16))
    let tile = TextTile(.plain(paragraph), width: 375, scale: 2)
    let checks = Counter()
    // Call 1: the tile's check before the layout; 2: before piece 1; 3: before piece 2.
    #expect(throws: CancellationError.self) {
      _ = try tile.render(isCancelled: { checks.next() >= 3 })
    }
    #expect(checks.count == 3)
  }
}
