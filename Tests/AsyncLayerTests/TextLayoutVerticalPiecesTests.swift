import AsyncLayerTestSupport
import CCairo
import Foundation
import Testing

@_spi(Benchmarks) @testable import AsyncLayer

/// Vertical text laid out in pieces (so that a draw can be cancelled between them) shows what one
/// layout shows; emoji stand upright in `.vertical` columns.
@Suite("Layout in pieces: vertical text; upright emoji")
struct TextLayoutVerticalPiecesTests {
  typealias Case = TextLayoutPiecesTests.Case

  static let cases: [Case] = {
    var cases: [Case] = []
    let latin = TextLayoutPiecesTests.latin
    let cjk = TextLayoutPiecesTests.cjk
    let arabic = TextLayoutPiecesTests.arabic
    let mixed = (0..<30).map { index in
      switch index % 4 {
      case 0: "縦書きの段落 \(index)、漢字とかな、English words 👋🏽 and 🎉 inside."
      case 1: "فقرة \(index) باللغة العربية، طويلة بما يكفي لتلتف على سطرين."
      case 2: ""
      default: "Paragraph \(index) in English, long enough to wrap over two columns at this length."
      }
    }.joined(separator: "\n")
    for orientation in [TextOrientation.vertical, .verticalUpright] {
      var style = TextStyle(fontFamily: "Noto Sans CJK JP", fontSize: 14)
      style.orientation = orientation
      cases.append(Case(name: "\(orientation) CJK", content: .plain(cjk), style: style))
      cases.append(Case(name: "\(orientation) Latin", content: .plain(latin), style: style))
      cases.append(Case(name: "\(orientation) Arabic", content: .plain(arabic), style: style))
      cases.append(Case(name: "\(orientation) mixed paragraphs, emoji", content: .plain(mixed), style: style))
      cases.append(
        Case(
          name: "\(orientation) markup",
          content: .markup(
            (0..<50).map { "語\($0) <b>太字 bold</b> <span size=\"x-large\">大きい \($0)</span>" }.joined(separator: " ")),
          style: style))
      var indented = style
      indented.firstLineIndent = -20
      cases.append(
        Case(
          name: "\(orientation) hanging indent", content: .plain(cjk + "\n" + latin + "\n" + cjk), style: indented,
          width: 240))
    }
    return cases
  }()

  @Test("vertical text in pieces has the lines, size, hit tests and pixels of one layout", arguments: cases)
  func sameAsOneLayout(_ test: Case) throws {
    let whole = try TextLayout(
      test.content, style: test.style, width: test.width, height: test.height, scale: 2,
      splitting: TextLayoutPiecesTests.whole)
    let pieced = try TextLayout(
      test.content, style: test.style, width: test.width, height: test.height, scale: 2,
      splitting: TextLayoutPiecesTests.small)
    #expect(whole.pieces.isEmpty)
    #expect(pieced.pieces.count > 3, "\(pieced.pieces.count) pieces")
    let sameAllLines = pieced.allLines == whole.allLines
    #expect(sameAllLines, "\(pieced.allLines.count) vs \(whole.allLines.count) lines")
    try TextLayoutPiecesTests.expectSame(pieced, whole)
    // The glyphs turned by the same gravity, run by run: the boxes' centred-baseline shifts.
    let shifts = { (layout: TextLayout) in layout.centredBaselineShifts().map { "\($0.line) \($0.bytes) \($0.dy)" } }
    #expect(Set(shifts(pieced)) == Set(shifts(whole)))
  }

  @Test(
    "a vertical tile in pieces draws the pixels and boxes of one layout",
    arguments: TextOrientation.allCases.dropFirst())
  func tileSameAsOneLayout(_ orientation: TextOrientation) throws {
    var text = ""
    while text.utf8.count < 10_000 {
      text += "縦書き\(text.utf8.count)、漢字とかな、Latin words 🎉 and numbers 2024. "
    }
    var style = TextStyle(font: "Noto Sans CJK JP 12")
    style.orientation = orientation
    var tile = TextTile(.plain(text), style: style, width: 400, height: 300, scale: 1, background: .white)
    tile.collectsBoxes = true
    var single = tile
    single.laysOutLongTextInPieces = false
    let pieced = try tile.render()
    let whole = try single.render()
    #expect(pieced.image.pixelWidth == whole.image.pixelWidth && pieced.image.pixelHeight == whole.image.pixelHeight)
    #expect(pieced.image.pixels == whole.image.pixels)
    #expect(pieced.lineCount == whole.lineCount)
    #expect(pieced.boxes == whole.boxes)
    #expect(pieced.lineCount > 5)
  }

  @Test("a cancelled vertical layout throws between its pieces")
  func cancelsBetweenPieces() throws {
    var style = TextStyle(font: "Noto Sans CJK JP 14")
    style.orientation = .vertical
    var calls = 0
    let splitting = TextLayout.Splitting(
      isCancelled: {
        calls += 1
        return calls >= 2
      }, pieceBytes: 200)
    #expect(throws: CancellationError.self) {
      _ = try TextLayout(.plain(TextLayoutPiecesTests.cjk), style: style, width: 300, splitting: splitting)
    }
    #expect(calls == 2)
  }

  // MARK: Upright emoji

  @Test("the emoji ranges: sequences whole, a joiner outside emoji left alone")
  func emojiRanges() {
    func ranges(_ text: String) -> [String] {
      text.withCString { pointer in
        TextLayout.emojiRanges(pointer).map { range in
          String(decoding: Array(text.utf8)[range], as: UTF8.self)
        }
      }
    }
    #expect(ranges("Hi 👋🏽 🎉 ok") == ["👋🏽", "🎉"])
    #expect(ranges("a ❤️ b 1️⃣ c") == ["❤️", "1️⃣"])
    #expect(ranges("👩🏽‍💻 and 👩‍❤️‍👨 🇯🇵") == ["👩🏽‍💻", "👩‍❤️‍👨", "🇯🇵"])
    // Devanagari and Arabic use the joiner for their own shaping; text symbols stay text.
    #expect(ranges("क्‍ष لا‍ © ™ ☺ →").isEmpty)
  }

  /// The ink of `image` in its ink bounds, as rows of booleans.
  static func inkMask(_ image: RenderedImage) throws -> [[Bool]] {
    let bounds = try #require(image.inkBounds(background: .white))
    return (bounds.minY...bounds.maxY).map { y in
      (bounds.minX...bounds.maxX).map { x in image.isInk(x: x, y: y, background: .white) }
    }
  }

  /// The share of pixels where `mask` and `reference` (resampled to `mask`'s size) differ.
  static func mismatch(_ mask: [[Bool]], _ reference: [[Bool]]) -> Double {
    let (height, width) = (mask.count, mask[0].count)
    let (referenceHeight, referenceWidth) = (reference.count, reference[0].count)
    var differ = 0
    for y in 0..<height {
      for x in 0..<width {
        let ry = min(referenceHeight - 1, y * referenceHeight / height)
        let rx = min(referenceWidth - 1, x * referenceWidth / width)
        if mask[y][x] != reference[ry][rx] { differ += 1 }
      }
    }
    return Double(differ) / Double(width * height)
  }

  /// `mask` turned a quarter turn clockwise.
  static func turnedClockwise(_ mask: [[Bool]]) -> [[Bool]] {
    let (height, width) = (mask.count, mask[0].count)
    return (0..<width).map { y in (0..<height).map { x in mask[height - 1 - x][y] } }
  }

  /// The tile of `text` with only its emoji `emoji` inked (the rest transparent, the layout the same).
  static func emojiAlone(_ text: String, _ emoji: String, orientation: TextOrientation) throws -> RenderedImage {
    let start = try #require(text.range(of: emoji).map { text.utf8.distance(from: text.startIndex, to: $0.lowerBound) })
    let attributed = AttributedText(
      text,
      spans: [
        TextSpan(utf8Range: 0..<text.utf8.count, attributes: TextAttributes(color: .clear)),
        TextSpan(utf8Range: start..<(start + emoji.utf8.count), attributes: TextAttributes(color: .black)),
      ])
    var style = TextStyle(font: "Sans 40")
    style.orientation = orientation
    return try TextTile(.attributed(attributed), style: style, width: 400, background: .white).render().image
  }

  @Test("in .vertical columns an emoji after Latin stands upright, as it is drawn across")
  func emojiUpright() throws {
    // A pointing hand: turned a quarter turn, it points down or up instead of right.
    let emoji = "👉"
    let across = try Self.inkMask(Self.emojiAlone("Go " + emoji, emoji, orientation: .horizontal))
    let turned = Self.turnedClockwise(across)
    let counterTurned = Self.turnedClockwise(Self.turnedClockwise(turned))
    for orientation in [TextOrientation.vertical, .verticalUpright] {
      for text in ["Go " + emoji + " now", "縦 " + emoji + " 書き"] {
        let image = try Self.emojiAlone(text, emoji, orientation: orientation)
        let mask = try Self.inkMask(image)
        let upright = Self.mismatch(mask, across)
        let sideways = min(Self.mismatch(mask, turned), Self.mismatch(mask, counterTurned))
        #expect(upright < 0.1, "\(orientation) '\(text)': \(upright) of the pixels differ from the emoji drawn across")
        #expect(upright * 3 < sideways, "\(orientation) '\(text)': upright \(upright), sideways \(sideways)")
      }
    }
  }

  @Test("only .vertical adds the emoji hints, and Latin around them keeps its sideways gravity")
  func emojiHintsOnlyUnderVertical() throws {
    func gravities(_ orientation: TextOrientation) throws -> [String: UInt8] {
      var style = TextStyle(font: "Sans 20")
      style.orientation = orientation
      let layout = try TextLayout(.plain("Go 👉 now"), style: style, width: 300)
      var result: [String: UInt8] = [:]
      let text = layout.text
      var runs = try #require(pango_layout_get_line_readonly(layout.raw, 0)).pointee.runs
      while let run = runs {
        runs = run.pointee.next
        guard let item = run.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self).pointee.item else { continue }
        let bytes = Array(text.utf8)[Int(item.pointee.offset)..<Int(item.pointee.offset + item.pointee.length)]
        let piece = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        if !piece.isEmpty { result[piece] = item.pointee.analysis.gravity }
      }
      return result
    }
    let vertical = try gravities(.vertical)
    #expect(vertical["👉"] == UInt8(PANGO_GRAVITY_EAST.rawValue))
    #expect(vertical.keys.contains { $0.hasPrefix("Go") })
    #expect(vertical.first { $0.key.hasPrefix("Go") }?.value == UInt8(PANGO_GRAVITY_SOUTH.rawValue))
    #expect(try gravities(.horizontal).values.allSatisfy { $0 == UInt8(PANGO_GRAVITY_SOUTH.rawValue) })
  }
}
