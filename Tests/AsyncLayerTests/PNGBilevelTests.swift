import AsyncLayer
import Foundation
import Testing

/// `PNGEncoder.encodeBilevel(_:threshold:)` and `RenderedImage.grayscale()`, decoded by the library.
@Suite struct PNGBilevelTests {
  /// 11 × 3 pixels (a row not a whole byte wide): greys 0…250 in steps of 25, a red, a half-covered
  /// black and a transparent pixel among them.
  static let image: RenderedImage = {
    var pixels: [UInt32] = []
    for index in 0..<33 {
      let level = UInt32(index % 11 * 25)
      pixels.append(0xff00_0000 | level << 16 | level << 8 | level)
    }
    pixels[11] = 0xffff_0000  // red: luma (77 × 255 + 128) >> 8 = 77
    pixels[12] = 0x8000_0000  // half-covered black over white: 127
    pixels[13] = 0  // transparent: white
    return RenderedImage(pixelWidth: 11, pixelHeight: 3, pixels: pixels)
  }()

  @Test("grey levels: grey pixels unchanged, colour by BT.601 luma, alpha over white")
  func grayscale() {
    let gray = Self.image.grayscale()
    #expect(gray.pixel(x: 3, y: 0) == 0xff4b_4b4b)  // 75 stays 75
    #expect(gray.pixel(x: 0, y: 1) == 0xff4d_4d4d)  // red → 77
    #expect(gray.pixel(x: 1, y: 1) == 0xff7f_7f7f)  // half black over white → 127
    #expect(gray.pixel(x: 2, y: 1) == 0xffff_ffff)  // transparent → white
  }

  @Test("1-bit PNG: decoded pixels are exactly black or white, split at the threshold")
  func bilevel() throws {
    for threshold in [0, 1, 76, 77, 128, 250, 251, 256] {
      let png = try PNGEncoder().encodeBilevel(Self.image, threshold: threshold)
      #expect(png[24] == 1 && png[25] == 0)  // IHDR: depth 1, grey
      let decoded = try ImageDecoder.decode(png)
      let gray = Self.image.grayscale()
      #expect(decoded.pixelWidth == 11 && decoded.pixelHeight == 3)
      for (pixel, level) in zip(decoded.pixels, gray.pixels) {
        #expect(pixel == (Int(level & 0xff) >= threshold ? 0xffff_ffff : 0xff00_0000), "threshold \(threshold)")
      }
    }
  }

  @Test("hostile thresholds and empty images are refused, not trapped")
  func refusals() {
    for threshold in [-1, 257, Int.max, Int.min] {
      #expect(throws: RenderError.self) { try PNGEncoder().encodeBilevel(Self.image, threshold: threshold) }
    }
    let empty = RenderedImage(pixelWidth: 0, pixelHeight: 3, pixels: [])
    #expect(throws: RenderError.self) { try PNGEncoder().encodeBilevel(empty) }
    #expect(throws: RenderError.self) { try PNGEncoder(compressionLevel: 99).encodeBilevel(Self.image) }
  }
}
