import AsyncLayer
import Testing

/// Character index ↔ point, line rectangles and span rectangles on laid-out text.
@Suite("Hit testing and line metrics")
struct TextHitTestingTests {
  static func layout(_ text: String, width: Double = 300, alignment: TextAlignment = .natural) throws -> TextLayout {
    var style = TextStyle(fontSize: 16)
    style.alignment = alignment
    return try TextLayout(.plain(text), style: style, width: width)
  }

  /// The UTF-8 offsets where the characters (Unicode scalars) of `text` start.
  static func scalarOffsets(_ text: String) -> [Int] {
    var offsets: [Int] = []
    var offset = 0
    for scalar in text.unicodeScalars {
      offsets.append(offset)
      offset += String(scalar).utf8.count
    }
    return offsets
  }

  @Test(
    "the middle of each character's frame hits that character",
    arguments: ["Hello, мир 世界", "مرحبا بالعالم", "abc مرحبا def"])
  func roundTrip(text: String) throws {
    let layout = try Self.layout(text)
    for offset in Self.scalarOffsets(text)
    where text.utf8[text.utf8.index(text.utf8.startIndex, offsetBy: offset)] != 0x20 {
      let frame = try #require(layout.characterFrame(atUTF8Offset: offset), "offset \(offset)")
      #expect(frame.width > 0)
      let hit = layout.position(at: Point(x: frame.midX, y: frame.midY))
      #expect(hit.utf8Offset == offset, "\(text): offset \(offset), frame \(frame)")
      #expect(hit.isInside)
    }
  }

  @Test("a right-to-left paragraph starts at the right")
  func rightToLeft() throws {
    let layout = try Self.layout("مرحبا")
    let first = try #require(layout.characterFrame(atUTF8Offset: 0))
    let last = try #require(layout.characterFrame(atUTF8Offset: "مرحب".utf8.count))
    #expect(first.minX > last.maxX - 0.5)
    #expect(first.maxX > 290)
  }

  @Test("trailing half, outside points and hostile points")
  func outside() throws {
    let layout = try Self.layout("Hi there")
    let h = try #require(layout.characterFrame(atUTF8Offset: 0))
    #expect(layout.position(at: Point(x: h.maxX - 0.5, y: h.midY)).isInTrailingHalf)
    #expect(!layout.position(at: Point(x: h.minX + 0.5, y: h.midY)).isInTrailingHalf)
    let below = layout.position(at: Point(x: 5, y: 500))
    #expect(!below.isInside && below.lineIndex == 0)
    let beside = layout.position(at: Point(x: 290, y: h.midY))
    #expect(!beside.isInside && beside.utf8Offset == 7)
    for point in [Point(x: .nan, y: .nan), Point(x: .infinity, y: -.infinity), Point(x: 1e300, y: -1e300)] {
      #expect(!layout.position(at: point).isInside)
    }
  }

  @Test("offsets outside the text or inside a character have no frame")
  func badOffsets() throws {
    let layout = try Self.layout("é日")
    #expect(layout.characterFrame(atUTF8Offset: -1) == nil)
    #expect(layout.characterFrame(atUTF8Offset: 1) == nil)
    #expect(layout.characterFrame(atUTF8Offset: 5) == nil)
    #expect(layout.characterFrame(atUTF8Offset: 2) != nil)
    #expect(layout.lineIndex(containingUTF8Offset: 2) == 0)
  }

  @Test("a span across a line break has one rectangle per line, each as tall as its line")
  func spanRects() throws {
    let text = "first line\nsecond line"
    let layout = try Self.layout(text)
    let rects = layout.rects(forUTF8Range: 6..<17)  // "line\nsecond"
    try #require(rects.count == 2)
    #expect(rects[0].minY == layout.lines[0].frame.minY && rects[0].height == layout.lines[0].frame.height)
    #expect(rects[1].minY == layout.lines[1].frame.minY)
    #expect(rects[1].minX < 1)
    #expect(layout.rects(forUTF8Range: 100..<200).isEmpty)
  }

  @Test("centred lines' rectangles include the alignment offset")
  func centredRects() throws {
    let layout = try Self.layout("word", alignment: .center)
    let rect = try #require(layout.rects(forUTF8Range: 0..<4).first)
    #expect(abs(rect.midX - 150) < 1)
    #expect(abs(rect.minX - layout.lines[0].frame.minX) < 0.5)
  }

  @Test("a mixed-direction span on one line may need two rectangles")
  func bidiRects() throws {
    let text = "abc مرحبا def"
    let layout = try Self.layout(text)
    // "c مر": the end of the Latin run and the start of the Arabic run, which are not adjacent.
    let start = 2
    let end = "abc مر".utf8.count
    #expect(layout.rects(forUTF8Range: start..<end).count == 2)
  }

  @Test("lines carry their ink frames inside their logical frames")
  func inkFrames() throws {
    let layout = try Self.layout("ink\nmore ink")
    for line in layout.lines {
      #expect(line.inkFrame.width > 0)
      #expect(line.inkFrame.minX >= line.frame.minX - 2 && line.inkFrame.maxX <= line.frame.maxX + 2)
    }
  }
}
