import AsyncLayer
import Foundation
import Testing

/// Images whose headers claim more pixels than the decoder accepts are refused from the header,
/// before the pixel buffer is allocated.
@Suite("Decoder bombs")
struct DecoderBombTests {
  /// CRC-32 (PNG's and gzip's polynomial), bit by bit: the tests forge chunks with valid CRCs.
  static func crc32<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
    var crc: UInt32 = 0xffff_ffff
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
    }
    return ~crc
  }

  static func bigEndian(_ value: UInt32) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
  }

  static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
    let typed = Array(type.utf8) + body
    return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
  }

  /// A 65-byte PNG whose IHDR (with a valid CRC) announces `width`×`height` RGBA pixels, followed by
  /// an IDAT of one empty zlib block and IEND: what a decoder sees of a decompression bomb.
  static func forgedPNG(width: UInt32, height: UInt32) -> Data {
    let signature: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
    let header = bigEndian(width) + bigEndian(height) + [8, 6, 0, 0, 0]
    let emptyZlib: [UInt8] = [0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]
    return Data(signature + chunk("IHDR", header) + chunk("IDAT", emptyZlib) + chunk("IEND", []))
  }

  /// A real 16×16 JPEG whose frame header (SOF0) is patched to announce `width`×`height`.
  static func forgedJPEG(width: UInt16, height: UInt16) throws -> Data {
    var bytes = [UInt8](try quadrantImage(width: 16, height: 16).jpegData())
    let sof = try #require((2..<bytes.count - 1).first { bytes[$0] == 0xff && bytes[$0 + 1] == 0xc0 })
    // FF C0, length (2), precision (1), height (2), width (2).
    bytes[sof + 5] = UInt8(height >> 8)
    bytes[sof + 6] = UInt8(height & 0xff)
    bytes[sof + 7] = UInt8(width >> 8)
    bytes[sof + 8] = UInt8(width & 0xff)
    return Data(bytes)
  }

  /// The fastest of five refusals: the bound is on the work, not on the scheduler of a busy machine.
  static func fastestRefusal(_ decode: () throws -> Void) -> Duration {
    (0..<5).map { _ in
      let start = ContinuousClock.now
      _ = try? decode()
      return ContinuousClock.now - start
    }.min()!
  }

  @Test("a PNG announcing 20000×20000 pixels is refused from its header in under 10 ms")
  func pngBomb() throws {
    let bomb = Self.forgedPNG(width: 20000, height: 20000)
    #expect(bomb.count < 100)
    let limit = ImageDecoder.defaultMaximumPixelCount
    #expect(throws: ImageDecodingError.tooManyPixels(pixelWidth: 20000, pixelHeight: 20000, limit: limit)) {
      try ImageDecoder.decode(bomb)
    }
    #expect(Self.fastestRefusal { _ = try ImageDecoder.decode(bomb) } < .milliseconds(10))
    // The public PNG initializer has the same limit.
    #expect {
      try RenderedImage(pngData: bomb)
    } throws: { error in
      guard case RenderError.undecodableImage(let reason) = error else { return false }
      return reason.contains("20000×20000") && reason.contains("\(limit)")
    }
    #expect(Self.fastestRefusal { _ = try RenderedImage(pngData: bomb) } < .milliseconds(10))
  }

  @Test("a JPEG announcing 30000×30000 pixels is refused from its header in under 10 ms")
  func jpegBomb() throws {
    let bomb = try Self.forgedJPEG(width: 30000, height: 30000)
    #expect(bomb.count < 1000)
    let limit = ImageDecoder.defaultMaximumPixelCount
    #expect(throws: ImageDecodingError.tooManyPixels(pixelWidth: 30000, pixelHeight: 30000, limit: limit)) {
      try ImageDecoder.decode(bomb)
    }
    // A downscaled decode is limited by the source's pixels too.
    #expect(throws: ImageDecodingError.tooManyPixels(pixelWidth: 30000, pixelHeight: 30000, limit: limit)) {
      try ImageDecoder.decode(bomb, targetPixelSize: PixelSize(width: 64, height: 64))
    }
    #expect(Self.fastestRefusal { _ = try ImageDecoder.decode(bomb) } < .milliseconds(10))
  }

  @Test(
    "an image just over the default limit is refused; the limit is configurable", arguments: [ImageFormat.png, .jpeg])
  func configurableLimit(format: ImageFormat) throws {
    // 9000×8000 = 72 000 000 > 64 Mi: refused by default, accepted... only as far as the header.
    let overDefault =
      format == .png ? Self.forgedPNG(width: 9000, height: 8000) : try Self.forgedJPEG(width: 9000, height: 8000)
    #expect(throws: ImageDecodingError.tooManyPixels(pixelWidth: 9000, pixelHeight: 8000, limit: 64 << 20)) {
      try ImageDecoder.decode(overDefault)
    }
    let image = try quadrantImage(width: 40, height: 20)
    let data = format == .png ? try image.pngData() : try image.jpegData()
    #expect(throws: ImageDecodingError.tooManyPixels(pixelWidth: 40, pixelHeight: 20, limit: 799)) {
      try ImageDecoder.decode(data, maximumPixelCount: 799)
    }
    #expect(try ImageDecoder.decode(data, maximumPixelCount: 800).pixelWidth == 40)
  }

  @Test("ImageLoader applies its own pixel limit")
  func loaderLimit() async throws {
    try await withTemporaryDirectory { directory in
      let url = directory.appendingPathComponent("bomb.png")
      try quadrantImage(width: 40, height: 20).pngData().write(to: url)
      #expect(ImageLoader().maximumPixelCount == ImageDecoder.defaultMaximumPixelCount)
      let strict = ImageLoader(maximumPixelCount: 100)
      await #expect(throws: ImageLoadError.decoding(.tooManyPixels(pixelWidth: 40, pixelHeight: 20, limit: 100))) {
        try await strict.image(for: url)
      }
      #expect(try await ImageLoader(maximumPixelCount: 800).image(for: url).pixelWidth == 40)
    }
  }
}
