import AsyncLayer
import Testing

@Test func rendersTextTile() throws {
  let tile = TextTile(.plain("Hello, 世界 مرحبا 😀"), style: TextStyle(font: "Sans 14"), width: 375, scale: 2,
    padding: EdgeInsets(all: 8), background: .white)
  let result = try tile.render()
  #expect(result.image.pixelWidth == 750)
  #expect(result.unknownGlyphCount == 0)
  try result.image.writePNG(to: "/tmp/smoke.png")
}
