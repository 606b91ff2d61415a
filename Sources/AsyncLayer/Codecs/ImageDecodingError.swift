/// Why bytes could not be turned into a ``RenderedImage``.
///
/// ```swift
/// do {
///   _ = try ImageDecoder.decode(Data("hello".utf8))
/// } catch {
///   print(error)  // "unsupported image format (first bytes 68 65 6c 6c)"
/// }
/// ```
public enum ImageDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
  /// There were no bytes at all.
  case empty
  /// The magic bytes match no format this library decodes (PNG and JPEG).
  case unsupportedFormat(signature: String)
  /// The bytes start like `format` but are damaged or cut short; `reason` is the codec's message.
  case corrupt(format: ImageFormat, reason: String)
  /// The image is larger than the decoder accepts.
  case tooLarge(pixelWidth: Int, pixelHeight: Int, limit: Int)
  /// The header announces more pixels than the decoder's pixel-count limit (see
  /// ``ImageDecoder/defaultMaximumPixelCount``); refused before any pixel memory is allocated.
  case tooManyPixels(pixelWidth: Int, pixelHeight: Int, limit: Int)
  /// The requested target size is zero or negative.
  case invalidTargetSize(PixelSize)
  /// The codec for `format` could not start (out of memory); `reason` is the codec's message.
  case decoderUnavailable(format: ImageFormat, reason: String)
  /// The decoded image could not be scaled down to `target` (out of memory); `reason` says why.
  case scalingFailed(target: PixelSize, reason: String)

  /// A message a person can act on.
  public var description: String {
    switch self {
    case .empty:
      return "no image data (0 bytes)"
    case .unsupportedFormat(let signature):
      return "unsupported image format (first bytes \(signature))"
    case .corrupt(let format, let reason):
      return "corrupt or truncated \(format) data: \(reason)"
    case .tooLarge(let width, let height, let limit):
      return "image of \(width)×\(height) pixels exceeds the decoder limit of \(limit) pixels per side"
    case .tooManyPixels(let width, let height, let limit):
      let (count, overflow) = width.multipliedReportingOverflow(by: height)
      return "image of \(width)×\(height) pixels (\(overflow ? "more than \(Int.max)" : "\(count)") pixels) "
        + "exceeds the decoder limit of \(limit) pixels"
    case .invalidTargetSize(let size):
      return "target size \(size) must be positive"
    case .decoderUnavailable(let format, let reason):
      return "the \(format) decoder could not start: \(reason)"
    case .scalingFailed(let target, let reason):
      return "cannot scale the image down to \(target): \(reason)"
    }
  }
}
