import AsyncLayer
import AsyncLayerTestSupport
import CCairo
import Foundation
import Testing

/// CMYK JPEGs, as print workflows write them, decode to RGB.
@Suite("CMYK JPEG")
struct CMYKJPEGTests {
  /// Inks (0 = none, 255 = full) of the four quadrants of `quadrantImage`: red, blue / lime, white.
  static let quadrantInks: [[UInt8]] = [[0, 255, 255, 0], [255, 255, 0, 0], [255, 0, 255, 0], [0, 0, 0, 0]]

  /// A 4:4:4 CMYK JPEG from TurboJPEG, whose bytes per pixel are `pixel(x, y)` as stored. TurboJPEG
  /// (libjpeg) writes it as YCCK with an Adobe APP14 marker, as Photoshop does.
  static func cmykJPEG(width: Int, height: Int, pixel: (Int, Int) -> [UInt8]) throws -> Data {
    var bytes: [UInt8] = []
    for y in 0..<height { for x in 0..<width { bytes += pixel(x, y) } }
    let handle = try #require(tjInitCompress())
    defer { tjDestroy(handle) }
    var output: UnsafeMutablePointer<UInt8>?
    var length: UInt = 0
    let status = tjCompress2(
      handle, bytes, Int32(width), Int32(width * 4), Int32(height), TJPF_CMYK.rawValue, &output, &length,
      Int32(TJSAMP_444.rawValue), 100, 0)
    defer { if let output { tjFree(output) } }
    try #require(status == 0)
    return Data(bytes: try #require(output), count: Int(length))
  }

  /// The quadrant picture with Adobe's inverted convention (stored byte = 255 − ink).
  static func adobeQuadrants(width: Int, height: Int) throws -> Data {
    try cmykJPEG(width: width, height: height) { x, y in
      let quadrant = (y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)
      return quadrantInks[quadrant].map { 255 - $0 }
    }
  }

  /// `data` without its APP14 (Adobe) segments.
  static func removingAdobeMarker(_ data: Data) throws -> Data {
    var bytes = [UInt8](data)
    var offset = 2
    var removed = false
    while offset + 4 <= bytes.count, bytes[offset] == 0xff, bytes[offset + 1] != 0xda {
      let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
      if bytes[offset + 1] == 0xee {
        bytes.removeSubrange(offset..<offset + 2 + length)
        removed = true
      } else {
        offset += 2 + length
      }
    }
    try #require(removed)
    return Data(bytes)
  }

  @Test("an Adobe (inverted) CMYK JPEG decodes to the right RGB colours")
  func adobeCMYK() throws {
    let data = try Self.adobeQuadrants(width: 64, height: 32)
    #expect(ImageFormat(sniffing: data) == .jpeg)
    let image = try ImageDecoder.decode(data)
    #expect(image.pixelWidth == 64 && image.pixelHeight == 32)
    #expect(image.isFullyOpaque)
    #expect(hasQuadrantColors(image, tolerance: 0.03))
  }

  @Test("a downscaled CMYK decode keeps its colours")
  func downscaledCMYK() throws {
    let data = try Self.adobeQuadrants(width: 256, height: 128)
    let image = try ImageDecoder.decode(data, targetPixelSize: PixelSize(width: 64, height: 64))
    #expect(image.pixelWidth == 64 && image.pixelHeight == 32)
    #expect(hasQuadrantColors(image, tolerance: 0.05))
  }

  @Test("black ink (K) darkens; half K is mid grey")
  func blackInk() throws {
    let data = try Self.cmykJPEG(width: 16, height: 8) { x, _ in x < 8 ? [255, 255, 255, 0] : [255, 255, 255, 128] }
    let image = try ImageDecoder.decode(data)
    #expect(image.color(x: 4, y: 4).isClose(to: .black, tolerance: 0.02))
    #expect(image.color(x: 12, y: 4).isClose(to: Color(red8: 128, green8: 128, blue8: 128), tolerance: 0.02))
  }

  @Test("without the Adobe marker the stored values are inks (0 = none), not inverted")
  func plainCMYK() throws {
    // Stored (255, 255, 255, 0) everywhere. With the marker: Adobe YCCK, full black ink → black.
    let adobe = try Self.cmykJPEG(width: 16, height: 16) { _, _ in [255, 255, 255, 0] }
    #expect(try ImageDecoder.decode(adobe).color(x: 8, y: 8).isClose(to: .black, tolerance: 0.02))
    // Without it, libjpeg reads the four planes as plain CMYK: the YCC transform of
    // (255 − 255, …) = (0, 128, 128), and K = 0. As inks: no cyan, half magenta and yellow, no black.
    let plain = try Self.removingAdobeMarker(adobe)
    let color = try ImageDecoder.decode(plain).color(x: 8, y: 8)
    #expect(color.isClose(to: Color(red8: 255, green8: 127, blue8: 127), tolerance: 0.02))
  }
}
