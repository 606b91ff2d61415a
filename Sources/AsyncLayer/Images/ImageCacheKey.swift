public import Foundation

/// What identifies one decoded image: the URL and the target size it was decoded for.
///
/// The same URL decoded at two target sizes gives two entries (and two loads, one fetch each unless
/// the disk cache already holds the bytes).
///
/// ```swift
/// let key = ImageCacheKey(url: url, targetPixelSize: PixelSize(width: 128, height: 128))
/// let cached = loader.memoryCache.image(for: key)
/// ```
public struct ImageCacheKey: Sendable, Hashable, CustomStringConvertible {
  /// The image's URL (compared as a whole, query and fragment included).
  public var url: URL
  /// The size the image was downscaled to fit, or `nil` for full size.
  public var targetPixelSize: PixelSize?

  /// A key for `url` decoded to fit `targetPixelSize` (`nil`: full size).
  public init(url: URL, targetPixelSize: PixelSize? = nil) {
    self.url = url
    self.targetPixelSize = targetPixelSize
  }

  /// The URL, followed by the target size if any.
  public var description: String {
    targetPixelSize.map { "\(url.absoluteString) @ \($0)" } ?? url.absoluteString
  }
}
