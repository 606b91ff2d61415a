import AsyncLayer
import Foundation
import Testing

@testable import layerbench

/// The sidecar written from a tile's box values (batch's path) is the sidecar written from its
/// `TextBox`es (the public API's), byte for byte.
@Suite("Boxes sidecar from values")
struct BatchBoxesValuesTests {
  static let texts: [String] = [
    "Hello, world: the quick brown fox 1234",
    "مرحبا بالعالم، هذا نص عربي ١٢٣ and Latin",
    "क्षत्रिय श्री द्वारा हिन्दी पाठ",
    "東京都の天気は晴れ 👨‍👩‍👧 👍🏽 🇯🇵",
    "quote \" backslash \\ tab\tend e\u{301}",
  ]

  @Test("a rendered tile's sidecar is the same from values and from boxes", arguments: texts)
  func sameSidecar(text: String) throws {
    for ellipsized in [false, true] {
      var style = TextStyle(font: "Sans 16")
      if ellipsized {
        style.ellipsize = .middle
        style.maxLines = 1
      }
      var tile = TextTile(
        .plain(text), style: style, width: ellipsized ? 90 : 600, scale: 1.25,
        padding: EdgeInsets(top: 2, left: 3, bottom: 2, right: 3))
      tile.collectsBoxes = true
      let fromBoxes = try #require(BatchBoxes.json(id: "t1", rendered: try tile.render()))
      tile.collectsBoxValues = true
      let rendered = try tile.render()
      #expect(rendered.boxValues != nil)
      let fromValues = try #require(BatchBoxes.json(id: "t1", rendered: rendered))
      #expect(
        String(decoding: fromValues, as: UTF8.self) == String(decoding: fromBoxes, as: UTF8.self),
        "\(text), ellipsized: \(ellipsized)")
    }
  }

  @Test("ranges past the text, or cutting a character, are written as TextLayout slices them")
  func oddRanges() {
    let text = "aé\"b\u{1}"  // bytes: a, é (2), ", b, 0x01
    let frame = Rect(x: 0.5, y: 1, width: 2.25, height: 3)
    let ink = Rect(x: 0.75, y: 1.5, width: 1, height: 2)
    // (range, the text TextLayout's slice gives it)
    let cases: [(Range<Int>, String)] = [
      (0..<1, "a"), (1..<3, "é"), (2..<3, "\u{FFFD}"), (1..<2, "\u{FFFD}"), (0..<6, text), (-4..<2, "a\u{FFFD}"),
      (4..<40, "b\u{1}"), (9..<12, ""), (3..<4, "\""),
    ]
    var values: [TextBoxValues.Box] = []
    var boxes: [TextBox] = []
    for (index, (range, sliced)) in cases.enumerated() {
      values.append(TextBoxValues.Box(range: range, line: index, frame: frame, ink: ink, isEllipsis: false))
      boxes.append(TextBox(text: sliced, utf8Range: range, lineIndex: index, frame: frame, inkFrame: ink))
    }
    values.append(TextBoxValues.Box(range: 2..<5, line: 0, frame: frame, ink: nil, isEllipsis: true))
    boxes.append(TextBox(text: "…", utf8Range: 2..<5, lineIndex: 0, frame: frame, inkFrame: nil))
    let fromValues = BatchBoxes.json(
      id: "x", width: 10, height: 20, text: text,
      values: TextBoxValues(clusters: values, words: Array(values.prefix(2)), lines: Array(values.suffix(1))))
    let fromBoxes = BatchBoxes.json(
      id: "x", width: 10, height: 20, text: text,
      boxes: TextBoxes(clusters: boxes, words: Array(boxes.prefix(2)), lines: Array(boxes.suffix(1))))
    #expect(String(decoding: fromValues, as: UTF8.self) == String(decoding: fromBoxes, as: UTF8.self))
    // And the comparison sees a different text.
    var changed = boxes
    changed[0] = TextBox(text: "b", utf8Range: 0..<1, lineIndex: 0, frame: frame, inkFrame: ink)
    let other = BatchBoxes.json(
      id: "x", width: 10, height: 20, text: text,
      boxes: TextBoxes(clusters: changed, words: Array(boxes.prefix(2)), lines: Array(boxes.suffix(1))))
    #expect(other != fromValues)
  }
}
