import ArgumentParser
import AsyncLayer
import Foundation

/// How `batch` encodes each tile (`--image-format`, `--mode`, `--jpeg-quality`, `--threshold`).
///
/// | mode | png | jpeg |
/// |---|---|---|
/// | `rgba` (default) | as the renderer drew it: the encoder picks the smallest exact colour type (grey for grey tiles) | the colour over white (JPEG has no alpha) |
/// | `gray` | 8-bit grey: each pixel over white, then its luma (BT.601); grey tiles are unchanged | the same grey pixels as a JPEG |
/// | `bilevel` | 1-bit: grey level ≥ `--threshold` is white, else black | refused: JPEG's blocks smear two-level edges |
struct TileImageEncoder: Sendable {
  enum Format: String, CaseIterable, Sendable, ExpressibleByArgument {
    case png, jpeg
  }

  enum Mode: String, CaseIterable, Sendable, ExpressibleByArgument {
    case rgba, gray, bilevel
  }

  static let qualities = 1...100

  var format = Format.png
  var mode = Mode.rgba
  var quality = 90
  var threshold = 128
  var png = PNGEncoder()

  /// The tile file's extension: `png` or `jpg`.
  var fileExtension: String { format == .png ? "png" : "jpg" }

  /// Why these options cannot be used together, or nil.
  static func problem(format: Format, mode: Mode, quality: Int?, threshold: Int?) -> String? {
    if format == .jpeg, mode == .bilevel {
      return "--image-format jpeg cannot be --mode bilevel (JPEG has no 1-bit images): use png for bilevel tiles"
    }
    if let quality {
      guard format == .jpeg else { return "--jpeg-quality is for --image-format jpeg" }
      guard qualities.contains(quality) else { return "--jpeg-quality must be 1…100 (got \(quality))" }
    }
    if let threshold {
      guard mode == .bilevel else { return "--threshold is for --mode bilevel" }
      guard PNGEncoder.bilevelThresholds.contains(threshold) else {
        return "--threshold must be 0…256 (a grey level at or above it is white; got \(threshold))"
      }
    }
    return nil
  }

  /// Joins the manifest's `input` hash when not the default (PNG, rgba), so that a run with other
  /// options renders again on resume and older runs' records keep matching.
  var fingerprint: String {
    switch (format, mode) {
    case (.png, .rgba): ""
    case (.png, .gray): "\u{1e}gray"
    case (.png, .bilevel): "\u{1e}bilevel:\(threshold)"
    case (.jpeg, _): "\u{1e}jpeg:\(quality):\(mode.rawValue)"
    }
  }

  func encode(_ image: RenderedImage) throws -> Data {
    switch (format, mode) {
    case (.png, .rgba): return try png.encode(image)
    case (.png, .gray): return try png.encode(image.grayscale())
    case (.png, .bilevel): return try png.encodeBilevel(image, threshold: threshold)
    case (.jpeg, .gray): return try image.grayscale().jpegData(quality: quality)
    case (.jpeg, _): return try Self.overWhite(image).jpegData(quality: quality)
    }
  }

  /// The image composited over white (JPEG keeps no alpha; libjpeg-turbo would take the premultiplied
  /// colour, i.e. over black). Opaque images, the usual tile, are returned as they are.
  static func overWhite(_ image: RenderedImage) -> RenderedImage {
    guard image.pixels.contains(where: { $0 >> 24 != 0xff }) else { return image }
    let pixels = image.pixels.map { argb -> UInt32 in
      let uncovered = 255 - (argb >> 24)
      func channel(_ shift: UInt32) -> UInt32 { min(255, ((argb >> shift) & 0xff) + uncovered) << shift }
      return 0xff00_0000 | channel(16) | channel(8) | channel(0)
    }
    return RenderedImage(
      pixelWidth: image.pixelWidth, pixelHeight: image.pixelHeight, scale: image.scale, pixels: pixels)
  }
}
