/// Why a render, an encode or a decode failed.
///
/// Every failure of the C libraries underneath (cairo reports them through status objects, Pango
/// through `GError`) arrives as one of these cases, with a message a person can act on:
///
/// ```swift
/// do {
///   _ = try ImageRenderer(size: Size(width: 0, height: 10))
/// } catch let error as RenderError {
///   print(error)  // "width must be a positive, finite number of points (got 0.0)"
/// }
/// ```
public enum RenderError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A width, height or scale that is zero, negative, NaN or infinite.
  case invalidDimension(name: String, value: Double)
  /// A number outside the range the library (or the C library underneath) can represent, such as
  /// a line spacing of NaN or a width beyond Pango's coordinates; `expected` says what is allowed.
  case invalidValue(name: String, value: String, expected: String)
  /// The image would be wider or taller than cairo's limit of 32767 pixels (or, when encoding, the
  /// format's own: 65535 for JPEG, 2³¹ − 1 for PNG).
  case surfaceTooLarge(pixelWidth: Int, pixelHeight: Int, limit: Int)
  /// The image would need more memory than the configured cap.
  case memoryCapExceeded(bytes: Int, cap: Int)
  /// Pango rejected the markup; the message is Pango's own, its line and character pointing into
  /// the markup as given.
  case invalidMarkup(String)
  /// A ``TextTile``'s text is empty (markup removed): the tile would be blank.
  case emptyText
  /// The text (markup included) has more UTF-8 bytes than ``TextLimits/maximumBytes``.
  case textTooLong(bytes: Int, limit: Int)
  /// The text has more paragraphs than ``TextLimits/maximumParagraphs``.
  case tooManyParagraphs(count: Int, limit: Int)
  /// The laid-out text would exceed Pango's 32-bit coordinates (``TextLayout/maximumLength``
  /// points): a paragraph too wide before wrapping, or a layout too tall.
  case layoutTooLarge(dimension: String, points: Double, limit: Double)
  /// cairo reported a failure status during `operation`.
  case cairo(operation: String, status: String)
  /// The bytes are not a PNG (or JPEG) image this library can decode.
  case undecodableImage(String)
  /// An image could not be encoded (for example a PNG compression level out of range).
  case encodeFailed(String)
  /// A file could not be read or written.
  case io(path: String, reason: String)

  /// A message a person can act on.
  public var description: String {
    switch self {
    case .invalidDimension(let name, let value):
      return "\(name) must be a positive, finite number (got \(value))"
    case .invalidValue(let name, let value, let expected):
      return "\(name) must be \(expected) (got \(value))"
    case .surfaceTooLarge(let w, let h, let limit):
      return "image of \(w)×\(h) pixels exceeds the limit of \(limit) pixels per side"
    case .memoryCapExceeded(let bytes, let cap):
      return "image needs \(bytes / (1 << 20)) MiB, over the memory cap of \(cap / (1 << 20)) MiB"
    case .invalidMarkup(let message):
      return "invalid markup: \(message)"
    case .emptyText:
      return "the text is empty (once markup is removed): a text tile needs at least one character to draw"
    case .textTooLong(let bytes, let limit):
      return "text of \(bytes) bytes exceeds the limit of \(limit) bytes per layout (TextLimits.maximumBytes): "
        + "split it into several tiles or report blocks"
    case .tooManyParagraphs(let count, let limit):
      return "text of \(count) paragraphs exceeds the limit of \(limit) paragraphs per layout "
        + "(TextLimits.maximumParagraphs): split it into several tiles or report blocks"
    case .layoutTooLarge(let dimension, let points, let limit):
      // Whole points when they are (a case built by hand may hold anything, even NaN).
      func whole(_ value: Double) -> String { abs(value) < 1e15 ? String(Int(value.rounded())) : "\(value)" }
      return "text laid out \(whole(points)) points \(dimension) exceeds Pango's limit of \(whole(limit)) points: "
        + "split it into smaller paragraphs or blocks"
    case .cairo(let operation, let status):
      return "cairo failed in \(operation): \(status)"
    case .undecodableImage(let reason):
      return "cannot decode image: \(reason)"
    case .encodeFailed(let reason):
      return "cannot encode image: \(reason)"
    case .io(let path, let reason):
      return "\(path): \(reason)"
    }
  }
}
