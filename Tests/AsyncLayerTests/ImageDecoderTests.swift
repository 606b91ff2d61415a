import AsyncLayer
import Foundation
import Testing

@Suite struct ImageDecoderTests {
  @Test func decodesPNGWithExactColors() throws {
    let data = try quadrantImage(width: 40, height: 20).pngData()
    let image = try ImageDecoder.decode(data)
    #expect(image.pixelWidth == 40 && image.pixelHeight == 20)
    #expect(hasQuadrantColors(image, tolerance: 0))
  }

  @Test func decodesJPEGWithCorrectColors() throws {
    let data = try quadrantImage(width: 64, height: 32).jpegData(quality: 95)
    #expect(ImageFormat(sniffing: data) == .jpeg)
    let image = try ImageDecoder.decode(data)
    #expect(image.pixelWidth == 64 && image.pixelHeight == 32)
    #expect(image.isFullyOpaque)
    #expect(hasQuadrantColors(image, tolerance: 0.06))
    // Channel order: a red area must not come out blue (BGRA vs RGBA mix-up).
    #expect(image.color(x: 8, y: 8).red > 0.9 && image.color(x: 8, y: 8).blue < 0.1)
  }

  @Test(arguments: [
    (PixelSize(width: 64, height: 64), PixelSize(width: 64, height: 32)),  // exact 1/4 DCT scale
    (PixelSize(width: 100, height: 100), PixelSize(width: 100, height: 50)),  // 1/2 DCT, then cairo
    (PixelSize(width: 30, height: 300), PixelSize(width: 30, height: 15)),  // width-bound
    (PixelSize(width: 1000, height: 1000), PixelSize(width: 256, height: 128)),  // never upscaled
  ])
  func downscalesJPEGToFitTarget(target: PixelSize, expected: PixelSize) throws {
    let data = try quadrantImage(width: 256, height: 128).jpegData(quality: 95)
    let image = try ImageDecoder.decode(data, targetPixelSize: target)
    #expect(PixelSize(width: image.pixelWidth, height: image.pixelHeight) == expected)
    #expect(hasQuadrantColors(image, tolerance: 0.08))
  }

  @Test func downscalesPNGToFitTarget() throws {
    let data = try quadrantImage(width: 200, height: 100).pngData()
    let image = try ImageDecoder.decode(data, targetPixelSize: PixelSize(width: 50, height: 50))
    #expect(image.pixelWidth == 50 && image.pixelHeight == 25)
    #expect(hasQuadrantColors(image, tolerance: 0.02))
  }

  @Test func rejectsEmptyAndUnknownData() {
    #expect(throws: ImageDecodingError.empty) { try ImageDecoder.decode(Data()) }
    #expect(throws: ImageDecodingError.unsupportedFormat(signature: "47 49 46 38")) {
      try ImageDecoder.decode(Data("GIF89a...".utf8))
    }
    #expect(throws: ImageDecodingError.invalidTargetSize(PixelSize(width: 0, height: 10))) {
      try ImageDecoder.decode(Data([0xff, 0xd8, 0xff]), targetPixelSize: PixelSize(width: 0, height: 10))
    }
  }

  @Test(arguments: [ImageFormat.png, .jpeg])
  func rejectsTruncatedData(format: ImageFormat) throws {
    let image = try quadrantImage(width: 64, height: 64)
    let data = format == .png ? try image.pngData() : try image.jpegData()
    let truncated = data.prefix(data.count * 2 / 3)
    #expect(ImageFormat(sniffing: truncated) == format)
    do {
      _ = try ImageDecoder.decode(truncated)
      Issue.record("truncated \(format) decoded without error")
    } catch {
      guard case .corrupt(let reportedFormat, let reason) = error else {
        Issue.record("unexpected error \(error)")
        return
      }
      #expect(reportedFormat == format)
      #expect(!reason.isEmpty)
    }
  }

  @Test func rejectsCorruptJPEGHeader() throws {
    var data = try quadrantImage(width: 16, height: 16).jpegData()
    data.replaceSubrange(3..<data.count, with: [UInt8](repeating: 0x55, count: data.count - 3))
    #expect {
      try ImageDecoder.decode(data)
    } throws: { error in
      if case .corrupt(.jpeg, _) = error as? ImageDecodingError { return true }
      return false
    }
  }

  @Test func sniffsByContentNotByName() throws {
    let png = try quadrantImage(width: 8, height: 8).pngData()
    #expect(ImageFormat(sniffing: png) == .png)
    #expect(ImageFormat(sniffing: Data([0xff, 0xd8, 0xff, 0xe0])) == .jpeg)
    #expect(ImageFormat(sniffing: Data([0x89, 0x50])) == nil)
  }
}
