/// The PNG colour type an image is written with, chosen from its pixels.
struct PNGPixelLayout: Hashable {
  /// PNG colour type: 0 gray, 2 RGB, 4 gray + alpha, 6 RGBA.
  let colorType: UInt8

  /// Looks at every pixel once: opaque images drop alpha, gray images (when allowed) drop two
  /// colour channels. Premultiplied red = green = blue means straight red = green = blue too.
  init(_ image: RenderedImage, allowsGrayscale: Bool) {
    var isOpaque = true
    var isGray = allowsGrayscale
    image.pixels.withUnsafeBufferPointer { pixels in
      // Branch-free blocks (they vectorize), with an early exit between blocks once neither can hold.
      let blockSize = 4096
      var start = 0
      while start < pixels.count && (isOpaque || isGray) {
        let end = min(start + blockSize, pixels.count)
        var allBits: UInt32 = 0xffff_ffff
        var channelDifferences: UInt32 = 0
        for index in start..<end {
          let pixel = pixels[index]
          allBits &= pixel
          // Bits 0–7 are green ^ blue, bits 8–15 red ^ green: zero exactly for gray pixels.
          channelDifferences |= (pixel ^ (pixel >> 8)) & 0xffff
        }
        isOpaque = isOpaque && allBits >= 0xff00_0000
        isGray = isGray && channelDifferences == 0
        start = end
      }
    }
    colorType = (isGray ? 0 : 2) | (isOpaque ? 0 : 4)
  }

  var hasAlpha: Bool { colorType & 4 != 0 }
  var isGray: Bool { colorType & 2 == 0 }

  /// Bytes per pixel at 8 bits per channel.
  var bytesPerPixel: Int { (isGray ? 1 : 3) + (hasAlpha ? 1 : 0) }
}
