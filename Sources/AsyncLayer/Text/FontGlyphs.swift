internal import CCairo

/// The glyphs one thread has seen of one scaled font, in pages of 128 by glyph index, so a lookup
/// is two array reads. It retains the font: the font's address keys the pixman cache, and must not
/// be reused by another font while glyphs are cached under it. It keeps its generation (whose
/// cache holds its glyphs) alive as long as it lives.
final class FontGlyphs {
  let font: OpaquePointer
  let generation: GlyphCacheGeneration
  /// Whether the font's face has colour glyphs (FreeType's FT_FACE_FLAG_COLOR); read on the first
  /// glyph rendered, under ``FontCacheLock``.
  var hasColorGlyphs: Bool?
  private var pages: [ContiguousArray<GlyphInfo?>?] = []

  init(retaining font: OpaquePointer, in generation: GlyphCacheGeneration) {
    self.font = cairo_scaled_font_reference(font)
    self.generation = generation
  }

  deinit { cairo_scaled_font_destroy(font) }

  subscript(index: UInt32) -> GlyphInfo? {
    get {
      let page = Int(index >> 7)
      guard page < pages.count, let glyphs = pages[page] else { return nil }
      return glyphs[Int(index & 127)]
    }
    set {
      let page = Int(index >> 7)
      if page >= pages.count { pages.append(contentsOf: repeatElement(nil, count: page + 1 - pages.count)) }
      if pages[page] == nil { pages[page] = ContiguousArray(repeating: nil, count: 128) }
      pages[page]![Int(index & 127)] = newValue
    }
  }
}
