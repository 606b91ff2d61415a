/// One glyph drawn by cairo on its own, at an integer device position: in red, the alpha is the
/// mask cairo composites; a colour glyph comes out in its own colours whatever the source.
struct RenderedGlyph {
  struct Image {
    var alpha: [UInt8]
    var width: Int
    var height: Int
    var stride: Int
    /// The glyph origin inside the image.
    var originX: Int
    var originY: Int
  }

  /// A colour glyph's pixels, premultiplied ARGB, cropped to its ink.
  struct ColorImage {
    var pixels: [UInt32]
    var width: Int
    var height: Int
    var originX: Int
    var originY: Int
  }

  var info: GlyphInfo
  var image: Image?
  var color: ColorImage?
}
