import AsyncLayer
import AsyncLayerTestSupport
import Foundation
import Testing

@Suite struct PNGEncoderTests {
  // MARK: Fixtures

  /// The benchmark tile: black text on white, opaque and gray.
  static func textTile(background: Color? = .white) throws -> RenderedImage {
    try TextTile(
      .plain(
        "The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread."),
      style: TextStyle(font: "Sans 14"), width: 375, height: 120, scale: 2, padding: EdgeInsets(all: 8),
      background: background
    ).render().image
  }

  /// Deterministic noise: premultiplied pixels with the given alpha function (colour ≤ alpha).
  static func noise(width: Int, height: Int, alpha: (Int) -> UInt32) -> RenderedImage {
    var state: UInt32 = 0x1234_5678
    var pixels: [UInt32] = []
    for index in 0..<width * height {
      state = state &* 1_664_525 &+ 1_013_904_223
      let a = alpha(index)
      let r = (state >> 8) % (a + 1), g = (state >> 16) % (a + 1), b = (state >> 24) % (a + 1)
      pixels.append(a << 24 | r << 16 | g << 8 | b)
    }
    return RenderedImage(pixelWidth: width, pixelHeight: height, pixels: pixels)
  }

  /// The colour type byte of the IHDR chunk (signature 8 + length 4 + type 4 + width 4 + height 4 + depth 1).
  static func colorType(_ png: Data) -> UInt8 { png[png.startIndex + 25] }

  static func decode(_ png: Data) throws -> [UInt32] { try RenderedImage(pngData: png).pixels }

  // MARK: Round trips

  @Test(arguments: PNGEncoder.Filter.allCases)
  func opaqueTextTileDecodesToIdenticalPixels(filter: PNGEncoder.Filter) throws {
    let image = try Self.textTile()
    let viaCairo = try Self.decode(image.cairoPNGData())
    for level in [0, 1, 6] {
      for gray in [true, false] {
        let png = try PNGEncoder(compressionLevel: level, filter: filter, allowsGrayscale: gray).encode(image)
        let decoded = try Self.decode(png)
        #expect(decoded == image.pixels, "level \(level), gray \(gray)")
        #expect(decoded == viaCairo, "level \(level), gray \(gray)")
      }
    }
  }

  @Test(arguments: PNGEncoder.Filter.allCases)
  func colourNoiseRoundTripsForEveryColourType(filter: PNGEncoder.Filter) throws {
    let opaque = Self.noise(width: 37, height: 23) { _ in 255 }
    let translucent = Self.noise(width: 37, height: 23) { UInt32($0 % 256) }
    for image in [opaque, translucent] {
      let png = try PNGEncoder(filter: filter).encode(image)
      #expect(try Self.decode(png) == image.pixels)
    }
  }

  @Test func everyValidPremultipliedValueSurvivesTheRoundTrip() throws {
    // Row = alpha, column = premultiplied value (clamped to the alpha): all 256 × 256 combinations,
    // in colour (RGBA) and in gray (gray + alpha).
    var colour: [UInt32] = []
    var gray: [UInt32] = []
    for alpha in UInt32(0)...255 {
      for value in UInt32(0)...255 {
        let v = min(value, alpha)
        colour.append(alpha << 24 | v << 16 | (alpha - v) << 8 | v / 2)
        gray.append(alpha << 24 | v << 16 | v << 8 | v)
      }
    }
    for pixels in [colour, gray] {
      let image = RenderedImage(pixelWidth: 256, pixelHeight: 256, pixels: pixels)
      let png = try PNGEncoder().encode(image)
      let decoded = try Self.decode(png)
      let mismatches = zip(decoded, pixels).filter { $0 != $1 }.count
      #expect(mismatches == 0)
    }
  }

  @Test func invalidPremultipliedValuesAreClampedToTheAlpha() throws {
    // Colour 0x80 above alpha 0x40 is not valid premultiplied data: it decodes as full intensity.
    let image = RenderedImage(pixelWidth: 1, pixelHeight: 1, pixels: [0x4080_2010])
    #expect(try Self.decode(PNGEncoder().encode(image)) == [0x4040_2010])
  }

  @Test func fullyTransparentAndTranslucentTilesRoundTrip() throws {
    let transparent = RenderedImage(pixelWidth: 40, pixelHeight: 7, pixels: Array(repeating: 0, count: 280))
    #expect(try Self.decode(PNGEncoder().encode(transparent)) == transparent.pixels)
    // Text on no background: antialiased edges are translucent gray.
    let textOnly = try Self.textTile(background: nil)
    #expect(!textOnly.isFullyOpaque)
    let png = try PNGEncoder().encode(textOnly)
    #expect(Self.colorType(png) == 4)
    #expect(try Self.decode(png) == textOnly.pixels)
  }

  // MARK: Colour types

  @Test func colourTypeIsTheSmallestThatHoldsThePixels() throws {
    let tile = try Self.textTile()
    #expect(Self.colorType(try PNGEncoder().encode(tile)) == 0)  // opaque gray
    #expect(Self.colorType(try PNGEncoder(allowsGrayscale: false).encode(tile)) == 2)  // opaque RGB
    let opaqueColour = Self.noise(width: 8, height: 8) { _ in 255 }
    #expect(Self.colorType(try PNGEncoder().encode(opaqueColour)) == 2)
    let translucentColour = Self.noise(width: 8, height: 8) { _ in 200 }
    #expect(Self.colorType(try PNGEncoder().encode(translucentColour)) == 6)
    #expect(Self.colorType(try tile.cairoPNGData()) == 2)  // cairo drops alpha too, but never writes gray
  }

  @Test func pngDataUsesTheFastEncoder() throws {
    let tile = try Self.textTile()
    let png = try tile.pngData()
    #expect(Self.colorType(png) == 0)
    #expect(try Self.decode(png) == tile.pixels)
  }

  // MARK: Integrity and size

  @Test func chunkCRCsAreValidAndChecked() throws {
    let png = try PNGEncoder().encode(Self.noise(width: 16, height: 16) { _ in 255 })
    var bytes = [UInt8](png)
    // Walk the chunks and check each CRC against a reference CRC-32.
    var offset = 8
    var types: [String] = []
    while offset < bytes.count {
      let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
      let typeAndData = Array(bytes[offset + 4..<offset + 8 + length])
      let stored = bytes[offset + 8 + length..<offset + 12 + length].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
      #expect(stored == Self.crc32(typeAndData))
      types.append(String(decoding: typeAndData.prefix(4), as: UTF8.self))
      offset += 12 + length
    }
    #expect(types == ["IHDR", "IDAT", "IEND"])
    #expect(offset == bytes.count)
    // libpng (under cairo) rejects a corrupted CRC, so the decode tests above do check them.
    let idatCRC = 8 + 25 + 8 + (bytes[33..<37].reduce(0) { $0 << 8 | Int($1) })
    bytes[idatCRC] ^= 0xff
    #expect(throws: RenderError.self) { try RenderedImage(pngData: Data(bytes)) }
  }

  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xffff_ffff
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
    }
    return ~crc
  }

  @Test func textTileCompressesSmallerThanCairo() throws {
    let tile = try Self.textTile()
    let cairo = try tile.cairoPNGData().count
    let fast = try PNGEncoder().encode(tile).count
    let smallest = try PNGEncoder(compressionLevel: 9, filter: .adaptive).encode(tile).count
    #expect(fast < cairo)
    #expect(fast < tile.pixels.count / 10)  // a text tile is mostly blank: well under a byte per pixel
    #expect(smallest <= fast)
  }

  // MARK: Edge cases

  @Test func emptyImagesThrowInvalidDimension() throws {
    for (width, height, name) in [(0, 0, "width"), (0, 5, "width"), (5, 0, "height")] {
      let image = RenderedImage(pixelWidth: width, pixelHeight: height, pixels: [])
      #expect(throws: RenderError.invalidDimension(name: "PNG \(name) in pixels", value: 0)) {
        try PNGEncoder().encode(image)
      }
    }
  }

  @Test func imagesOverTheMemoryCapThrow() throws {
    let image = Self.noise(width: 100, height: 100) { _ in 255 }
    #expect(throws: RenderError.memoryCapExceeded(bytes: 100 * (100 * 3 + 1), cap: 1000)) {
      try PNGEncoder(memoryCap: 1000).encode(image)
    }
  }

  @Test func compressionLevelsOutsideTheRangeThrow() throws {
    let image = Self.noise(width: 2, height: 2) { _ in 255 }
    for level in [-1, 13] {
      #expect(throws: RenderError.self) { try PNGEncoder(compressionLevel: level).encode(image) }
    }
    for level in PNGEncoder.compressionLevels {
      #expect(try Self.decode(PNGEncoder(compressionLevel: level).encode(image)) == image.pixels)
    }
  }

  @Test(arguments: PNGEncoder.Filter.allCases)
  func tinyImagesRoundTrip(filter: PNGEncoder.Filter) throws {
    // Rows shorter than a pixel's bytes × 2 exercise the filters' first-pixel paths.
    for (width, height) in [(1, 1), (1, 3), (2, 1), (3, 2)] {
      for alpha: UInt32 in [255, 128] {
        let image = Self.noise(width: width, height: height) { _ in alpha }
        #expect(try Self.decode(PNGEncoder(filter: filter).encode(image)) == image.pixels, "\(width)×\(height)")
      }
    }
  }

  @Test func largeImageReleasesItsScratchAndRoundTrips() throws {
    // 1500 × 1500 RGBA is 9 MB of rows: over the per-thread retention limit.
    let image = Self.noise(width: 1500, height: 1500) { UInt32($0 % 7 == 0 ? 128 : 255) }
    #expect(try Self.decode(PNGEncoder().encode(image)) == image.pixels)
  }

  @Test func concurrentEncodesAreIndependent() async throws {
    let images = (0..<4).map { seed in Self.noise(width: 64 + seed, height: 48) { UInt32(($0 + seed) % 256) } }
    try await withThrowingTaskGroup(of: Bool.self) { group in
      for round in 0..<16 {
        let image = images[round % images.count]
        group.addTask {
          let encoder = PNGEncoder(compressionLevel: 1 + round % 6, filter: PNGEncoder.Filter.allCases[round % 6])
          return try Self.decode(encoder.encode(image)) == image.pixels
        }
      }
      for try await matched in group { #expect(matched) }
    }
  }
}
