/// A glyph's coverage image as the compositor's A8 mode reads it: a copy of what the pixman glyph
/// cache holds (pixman keeps its copy opaque), owned by the glyph's ``GlyphCacheGeneration`` and
/// valid while it lives.
struct GlyphMask {
  /// `stride * height` bytes.
  var bits: UnsafePointer<UInt8>
  var stride: Int32
  var width: Int32
  var height: Int32
  /// The glyph's origin inside the image: the image's top-left pixel sits at the glyph's
  /// position minus this, as in pixman.
  var originX: Int32
  var originY: Int32
}
