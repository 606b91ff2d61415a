import AsyncLayer
import AsyncLayerTestSupport
import Testing

/// Where each alignment puts the ink of left-to-right, right-to-left and mixed paragraphs.
@Suite("Text alignment, relative and absolute")
struct TextAlignmentTests {
  static let width = 300.0
  /// How close to an edge the ink must come to count as touching it, in pixels.
  static let edge = 12
  static let english = "Hello"
  static let arabic = "مرحبا بالعالم"

  /// The ink columns of each line of `text` drawn at `alignment` in a 300-point tile at scale 1.
  static func lineInk(_ text: String, _ alignment: TextAlignment) throws -> [(minX: Int, maxX: Int)] {
    var style = TextStyle(fontFamily: "Sans", fontSize: 16)
    style.alignment = alignment
    let layout = try TextLayout(.plain(text), style: style, width: width)
    let image = try TextTile(.plain(text), style: style, width: width, scale: 1, background: .white).render().image
    return try layout.lines.map { line in
      let rows = Int(line.frame.minY.rounded(.down))..<Int(line.frame.maxY.rounded(.up))
      return try #require(image.inkColumns(rows: rows, background: .white))
    }
  }

  static func touchesLeft(_ ink: (minX: Int, maxX: Int)) -> Bool { ink.minX < edge }
  static func touchesRight(_ ink: (minX: Int, maxX: Int)) -> Bool { ink.maxX > Int(width) - edge }
  static func isCentred(_ ink: (minX: Int, maxX: Int)) -> Bool {
    !touchesLeft(ink) && !touchesRight(ink) && abs((ink.minX + ink.maxX) / 2 - Int(width) / 2) < edge
  }

  @Test("the default is natural: English at the left, Arabic at the right")
  func defaultIsNatural() throws {
    #expect(TextStyle().alignment == .natural)
    let english = try Self.lineInk(Self.english, TextStyle().alignment)
    let arabic = try Self.lineInk(Self.arabic, TextStyle().alignment)
    #expect(Self.touchesLeft(english[0]) && !Self.touchesRight(english[0]))
    #expect(Self.touchesRight(arabic[0]) && !Self.touchesLeft(arabic[0]))
  }

  @Test("relative alignments follow each paragraph of a mixed text", arguments: [TextAlignment.natural, .leading])
  func leadingInMixedText(alignment: TextAlignment) throws {
    let lines = try Self.lineInk(Self.english + "\n" + Self.arabic, alignment)
    try #require(lines.count == 2)
    #expect(Self.touchesLeft(lines[0]) && !Self.touchesRight(lines[0]))
    #expect(Self.touchesRight(lines[1]) && !Self.touchesLeft(lines[1]))
  }

  @Test("trailing puts each paragraph at its end")
  func trailingInMixedText() throws {
    let lines = try Self.lineInk(Self.english + "\n" + Self.arabic, .trailing)
    try #require(lines.count == 2)
    #expect(Self.touchesRight(lines[0]) && !Self.touchesLeft(lines[0]))
    #expect(Self.touchesLeft(lines[1]) && !Self.touchesRight(lines[1]))
  }

  @Test("left and right are edges, whatever the direction")
  func absoluteInMixedText() throws {
    let left = try Self.lineInk(Self.english + "\n" + Self.arabic, .left)
    let right = try Self.lineInk(Self.english + "\n" + Self.arabic, .right)
    try #require(left.count == 2 && right.count == 2)
    #expect(left.allSatisfy { Self.touchesLeft($0) && !Self.touchesRight($0) })
    #expect(right.allSatisfy { Self.touchesRight($0) && !Self.touchesLeft($0) })
  }

  @Test("a paragraph that starts with a neutral character takes the direction of its first letter")
  func neutralStart() throws {
    let lines = try Self.lineInk("123 " + Self.arabic, .natural)
    #expect(Self.touchesRight(lines[0]) && !Self.touchesLeft(lines[0]))
  }

  @Test("center centres both directions")
  func centre() throws {
    let lines = try Self.lineInk(Self.english + "\n" + Self.arabic, .center)
    #expect(lines.count == 2)
    #expect(lines.allSatisfy(Self.isCentred))
  }

  @Test("justify fills full lines and leaves the last one at the paragraph's start")
  func justify() throws {
    let englishWords = Array(repeating: "justified words", count: 8).joined(separator: " ")
    let arabicWords = Array(repeating: Self.arabic, count: 8).joined(separator: " ")
    let english = try Self.lineInk(englishWords, .justify)
    let arabic = try Self.lineInk(arabicWords, .justify)
    try #require(english.count >= 2 && arabic.count >= 2)
    for line in english.dropLast() + arabic.dropLast() {
      #expect(Self.touchesLeft(line) && Self.touchesRight(line))
    }
    #expect(Self.touchesLeft(english.last!) && !Self.touchesRight(english.last!))
    #expect(Self.touchesRight(arabic.last!) && !Self.touchesLeft(arabic.last!))
  }

  @Test("every word decodes from its raw value, the old left and right included")
  func rawValues() {
    #expect(
      TextAlignment.allCases.map(\.rawValue) == [
        "natural", "leading", "trailing", "left", "right", "center", "justify",
      ])
    #expect(TextAlignment(rawValue: "left") == .left)
    #expect(TextAlignment(rawValue: "right") == .right)
  }
}
