/// A colour glyph's premultiplied ARGB image, as cairo paints it: `composite_one_color_glyph` puts
/// the glyph's colour surface at the rounded glyph position, with the OVER operator, inside the clip.
struct ColorGlyph {
  /// A pixman image owned by the font's ``GlyphCacheGeneration``.
  var image: OpaquePointer
  /// The image's top-left corner relative to the glyph's rounded position, in device pixels.
  var offsetX: Int32
  var offsetY: Int32
  var width: Int32
  var height: Int32
}
