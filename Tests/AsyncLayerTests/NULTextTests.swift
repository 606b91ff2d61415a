import AsyncLayer
import AsyncLayerTestSupport
import Testing

/// Pango takes C strings; a NUL in the text must not end it there.
@Suite("NUL in text")
struct NULTextTests {
  @Test("text after a NUL is laid out, measured and drawn; the NUL is drawn as U+FFFD", arguments: [false, true])
  func textAfterNUL(markup: Bool) throws {
    func content(_ text: String) -> TextContent { markup ? .markup("<b>\(text)</b>") : .plain(text) }
    let style = TextStyle(fontSize: 20)
    let withNUL = try TextLayout(content("abc\u{0}defghij"), style: style, width: 1000)
    let cut = try TextLayout(content("abc"), style: style, width: 1000)
    // abc, U+FFFD (three bytes), defghij.
    #expect(withNUL.lines.map(\.utf8Length) == [3 + 3 + 7])
    #expect(withNUL.size.width > cut.size.width * 3)
    #expect(
      try TextMeasurer(capacity: 2).size(of: content("abc\u{0}defghij"), style: style, width: 1000) == withNUL.size)

    let drawn = try TextTile(content("abc\u{0}defghij"), style: style, width: 300, background: .white).render()
    let replaced = try TextTile(content("abc\u{FFFD}defghij"), style: style, width: 300, background: .white).render()
    let drawnLikeReplacement = drawn.image == replaced.image  // a Bool: the pixels stay out of the report
    #expect(drawnLikeReplacement)
    let short = try TextTile(content("abc"), style: style, width: 300, background: .white).render()
    let inkEnd = try #require(drawn.image.inkBounds(background: .white)).maxX
    let shortEnd = try #require(short.image.inkBounds(background: .white)).maxX
    #expect(inkEnd > shortEnd * 3)
  }
}
