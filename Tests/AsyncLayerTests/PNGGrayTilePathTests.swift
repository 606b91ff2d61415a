import AsyncLayerTestSupport
import Foundation
import Testing

@testable import AsyncLayer

/// The gray tile path of ``PNGEncoder`` (one pass, blank rows skipped, the tile deflater) against
/// the general path (colour-type scan, libdeflate): the same decoded pixels for every colour
/// combination and scale, and the path is taken exactly when the pixels are opaque gray.
@Suite struct PNGGrayTilePathTests {
  static let text = "Cancellation matters: a tile nobody will see again should stop drawing at once, 1234567890."

  static let foregrounds: [(String, Color)] = [
    ("black", .black), ("gray", Color(red: 0.3, green: 0.3, blue: 0.3)), ("red", .red),
    ("half-transparent black", Color(red: 0, green: 0, blue: 0, alpha: 0.5)),
    ("half-transparent blue", Color(red: 0, green: 0, blue: 1, alpha: 0.5)),
  ]
  static let backgrounds: [(String, Color?)] = [
    ("white", .white), ("light gray", .lightGray), ("transparent", nil),
    ("light blue", Color(red: 0.8, green: 0.9, blue: 1)),
    ("half-transparent white", Color(red: 1, green: 1, blue: 1, alpha: 0.5)), ("black", .black),
  ]

  /// Encodes `image` both ways; checks both decode to its pixels; returns whether the gray tile path
  /// took it.
  static func compare(_ image: RenderedImage, _ label: String) throws -> Bool {
    let encoder = PNGEncoder()
    #expect(encoder.triesGrayTilePath)
    let general = try encoder.encodeGeneral(image, workspace: .current)
    #expect(try RenderedImage(pngData: general).pixels == image.pixels, "general path, \(label)")
    guard let fast = try encoder.encodeGrayTile(image, workspace: .current) else { return false }
    #expect(try RenderedImage(pngData: fast).pixels == image.pixels, "gray tile path, \(label)")
    // The encoder's public entry point gives the fast path's bytes.
    #expect(try encoder.encode(image) == fast, "\(label)")
    // Every narrower version of the row pass (scalar, SSE2, and AVX2 where the CPU has it) writes
    // the same file.
    for level in 0..<PNGEncoder.grayRowsLevel {
      let narrower = try encoder.encodeGrayTile(image, workspace: .current, rowLevel: level)
      #expect(narrower == fast, "row pass level \(level), \(label)")
    }
    return true
  }

  static func isOpaqueGray(_ image: RenderedImage) -> Bool {
    image.pixels.allSatisfy { $0 >> 24 == 0xff && ($0 ^ ($0 >> 8)) & 0xffff == 0 }
  }

  @Test(arguments: [0.5, 1, 2, 3])
  func textTilesDecodeToTheGeneralPathsPixelsForEveryColourCombination(scale: Double) throws {
    var tookPath = 0
    for (foregroundName, foreground) in Self.foregrounds {
      for (backgroundName, background) in Self.backgrounds {
        var style = TextStyle(font: "Sans 14")
        style.color = foreground
        let tile = TextTile(
          .plain(Self.text), style: style, width: 300, height: 90,
          scale: scale, padding: EdgeInsets(all: 8), background: background)
        let image = try tile.render().image
        let label = "\(foregroundName) on \(backgroundName) at scale \(scale)"
        let took = try Self.compare(image, label)
        #expect(took == Self.isOpaqueGray(image), "\(label)")
        if took { tookPath += 1 }
      }
    }
    // Black and gray text on white, light gray and black; half-transparent black on those too.
    #expect(tookPath >= 6)
  }

  @Test func blankRowsIdenticalRowsAndLateColourAreHandled() throws {
    let white: UInt32 = 0xffff_ffff
    let width = 53, height = 40
    var pixels = [UInt32](repeating: white, count: width * height)
    // Ink on rows 5–7 and 30; rows 8–29 repeat one another; row 0 is not white.
    for x in 0..<width { pixels[x] = 0xff80_8080 }
    for row in [5, 6, 7, 30] {
      for x in stride(from: row % 3, to: width, by: 3) { pixels[row * width + x] = 0xff00_0000 | UInt32(x * 0x010101) }
    }
    let gray = RenderedImage(pixelWidth: width, pixelHeight: height, pixels: pixels)
    #expect(try Self.compare(gray, "gray rows"))
    // One colour pixel in the last row, and one not quite opaque pixel: the general path.
    var coloured = pixels
    coloured[width * height - 1] = 0xff00_00ff
    #expect(try !Self.compare(RenderedImage(pixelWidth: width, pixelHeight: height, pixels: coloured), "late colour"))
    var translucent = pixels
    translucent[width * 20 + 7] = 0xfe00_0000
    #expect(try !Self.compare(RenderedImage(pixelWidth: width, pixelHeight: height, pixels: translucent), "alpha"))
  }

  /// One pixel that is not opaque gray, at every position of rows of widths around the 16- and
  /// 32-pixel blocks of the SSE2 and AVX2 row passes (inside a block and in the scalar tail), in
  /// the first row, a repeated row and the last row: every version of the row pass declines it.
  @Test func everyRowPassDeclinesOneNonGrayPixelAnywhere() throws {
    let encoder = PNGEncoder()
    let spoilers: [UInt32] = [0xff00_0001, 0xff00_0100, 0xff01_0000, 0xfe00_0000, 0x0000_0000, 0xff7f_7f80]
    for width in [1, 15, 16, 17, 31, 32, 33, 47, 64, 75] {
      let height = 4
      // Row 0 gray ink, rows 1–2 white (row 2 repeats row 1), row 3 gray ink.
      var pixels = [UInt32](repeating: 0xffff_ffff, count: width * height)
      for x in 0..<width {
        pixels[x] = 0xff00_0000 | UInt32((x * 37) & 0xff) * 0x010101
        pixels[3 * width + x] = 0xff00_0000 | UInt32((x * 11) & 0xff) * 0x010101
      }
      let gray = RenderedImage(pixelWidth: width, pixelHeight: height, pixels: pixels)
      #expect(try Self.compare(gray, "gray, width \(width)"))
      for spoiler in spoilers {
        for row in [0, 2, 3] {
          for x in 0..<width {
            var spoiled = pixels
            spoiled[row * width + x] = spoiler
            let image = RenderedImage(pixelWidth: width, pixelHeight: height, pixels: spoiled)
            for level in 0...PNGEncoder.grayRowsLevel {
              let result = try encoder.encodeGrayTile(image, workspace: .current, rowLevel: level)
              #expect(
                result == nil,
                "level \(level), width \(width), pixel \(String(spoiler, radix: 16)) at (\(x), \(row))")
            }
          }
        }
      }
    }
  }

  @Test func grayNoiseOfEverySizeRoundTrips() throws {
    var state: UInt32 = 0x9e37_79b9
    for (width, height) in [(1, 1), (1, 300), (300, 1), (2, 2), (17, 9), (640, 48), (1000, 70)] {
      for density in [0, 1, 4, 256] {
        var pixels: [UInt32] = []
        for _ in 0..<width * height {
          state = state &* 1_664_525 &+ 1_013_904_223
          // `density` in 256 pixels take a random gray; the others repeat a few values (runs, matches).
          let value = (state >> 24) < density ? (state >> 8) & 0xff : (state >> 30) * 60
          pixels.append(0xff00_0000 | value * 0x010101)
        }
        let image = RenderedImage(pixelWidth: width, pixelHeight: height, pixels: pixels)
        #expect(try Self.compare(image, "\(width) × \(height), density \(density)"))
      }
    }
  }

  @Test func textTileFilesStayWithinATenthOfTheGeneralPaths() throws {
    let image = try TextTile(
      .plain(Self.text), style: TextStyle(font: "Sans 14"), width: 375, height: 120, scale: 2,
      padding: EdgeInsets(all: 8), background: .white
    ).render().image
    let encoder = PNGEncoder()
    let general = try encoder.encodeGeneral(image, workspace: .current)
    let fast = try #require(try encoder.encodeGrayTile(image, workspace: .current))
    #expect(Double(fast.count) <= 1.1 * Double(general.count), "\(fast.count) against \(general.count) bytes")
  }
}
