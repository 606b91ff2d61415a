import Foundation

extension RenderedImage {
  /// The grey level (0 black … 255 white) of one premultiplied ARGB32 pixel as it looks over white:
  /// the colour composited over a white background, then its luma (ITU-R BT.601 weights, in 1/256ths,
  /// rounded). A grey pixel (red = green = blue) keeps its value exactly.
  @inline(__always)
  static func grayLevel(_ argb: UInt32) -> UInt8 {
    let uncovered = 255 - (argb >> 24)
    // Premultiplied: the colour over white is the stored channel plus the uncovered white.
    let red = min(255, ((argb >> 16) & 0xff) + uncovered)
    let green = min(255, ((argb >> 8) & 0xff) + uncovered)
    let blue = min(255, (argb & 0xff) + uncovered)
    return UInt8((77 * red + 150 * green + 29 * blue + 128) >> 8)
  }

  /// The image in opaque shades of grey, as it looks over white: each pixel composited over white,
  /// then its luma (BT.601: 0.299 R + 0.587 G + 0.114 B). Grey pixels keep their value exactly, so a
  /// black-on-white text tile is unchanged; ``PNGEncoder`` writes the result as an 8-bit grey PNG.
  ///
  /// ```swift
  /// let tile = try TextTile(.plain("Hello"), width: 200, foreground: .red, background: .white).render()
  /// let png = try PNGEncoder().encode(tile.image.grayscale())  // colour type 0, one byte per pixel
  /// ```
  public func grayscale() -> RenderedImage {
    var gray = [UInt32](repeating: 0, count: pixels.count)
    gray.withUnsafeMutableBufferPointer { target in
      pixels.withUnsafeBufferPointer { source in
        for index in source.indices {
          let level = UInt32(Self.grayLevel(source[index]))
          target[index] = 0xff00_0000 | level << 16 | level << 8 | level
        }
      }
    }
    return RenderedImage(pixelWidth: pixelWidth, pixelHeight: pixelHeight, scale: scale, pixels: gray)
  }
}
