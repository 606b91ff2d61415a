/// A size in whole device pixels, used to ask the image path for a downscaled decode.
///
/// ```swift
/// let thumbnail = try await loader.image(for: url, targetPixelSize: PixelSize(width: 120, height: 120))
/// ```
public struct PixelSize: Sendable, Hashable, CustomStringConvertible {
  /// Width in pixels.
  public var width: Int
  /// Height in pixels.
  public var height: Int

  /// A size of `width` × `height` pixels.
  public init(width: Int, height: Int) {
    self.width = width
    self.height = height
  }

  /// `"W×H px"`.
  public var description: String { "\(width)×\(height) px" }

  /// The largest size with the aspect ratio of `source` that fits inside `self`, never larger than `source`
  /// (the image path downscales, it never upscales) and never smaller than 1×1.
  func aspectFit(_ source: PixelSize) -> PixelSize {
    guard source.width > width || source.height > height else { return source }
    let factor = min(Double(width) / Double(source.width), Double(height) / Double(source.height))
    return PixelSize(
      width: max(1, min(width, Int((Double(source.width) * factor).rounded()))),
      height: max(1, min(height, Int((Double(source.height) * factor).rounded()))))
  }
}
