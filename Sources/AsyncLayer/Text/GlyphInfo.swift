/// What the compositor keeps of a glyph.
struct GlyphInfo {
  /// The glyph's ink box in device space relative to its origin, in 24.8 fixed point, as cairo's
  /// `scaled_glyph->bbox`.
  var box: (x1: Int32, y1: Int32, x2: Int32, y2: Int32)
  /// The glyph's alpha image in the pixman cache; nil for a glyph without ink (a space) or in colour.
  var image: UnsafeRawPointer?
  /// A glyph cairo draws in its own colours (emoji), painted as an image rather than through the
  /// source colour.
  var color: ColorGlyph?
  /// The glyph image's bytes, for compositing into one byte per pixel (with `image`).
  var mask: GlyphMask? = nil
}
