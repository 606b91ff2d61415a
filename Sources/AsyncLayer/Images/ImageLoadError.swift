/// Why an ``ImageLoader`` request did not produce an image.
///
/// Every waiter of a request receives exactly one result; these are the failures:
///
/// ```swift
/// do {
///   let image = try await loader.image(for: url)
/// } catch .httpStatus(404) {
///   showPlaceholder()
/// } catch {
///   print(error)  // e.g. "timed out after 10.0 seconds"
/// }
/// ```
public enum ImageLoadError: Error, Sendable, Hashable, CustomStringConvertible {
  /// This waiter cancelled (its token, or the task awaiting the image). Other waiters are unaffected.
  case cancelled
  /// The fetch and decode did not finish within the loader's ``ImageLoader/timeout`` (or a
  /// request stalled past its transport's own timeout).
  ///
  /// ```swift
  /// if case .timedOut(let after) = error { print("gave up after \(after)") }  // "gave up after 30.0 seconds"
  /// ```
  case timedOut(after: Duration)
  /// The server answered with a status outside 200...299.
  case httpStatus(Int)
  /// The body ended before the length the server announced (`receivedBytes` is `nil` when the
  /// transport does not report how much arrived).
  case truncated(expectedBytes: Int, receivedBytes: Int?)
  /// The network failed (connection refused, reset, DNS, ...).
  case transport(String)
  /// A `file://` URL could not be read.
  case fileUnreadable(path: String, reason: String)
  /// The URL's scheme is neither `file`, `http` nor `https`.
  case unsupportedScheme(String)
  /// The bytes arrived but are not a decodable image.
  case decoding(ImageDecodingError)

  /// A sentence a person understands, such as "server answered HTTP 404".
  ///
  /// ```swift
  /// print(ImageLoadError.httpStatus(404))  // server answered HTTP 404
  /// ```
  public var description: String {
    switch self {
    case .cancelled:
      return "image load cancelled"
    case .timedOut(let duration):
      return "timed out after \(duration)"
    case .httpStatus(let status):
      return "server answered HTTP \(status)"
    case .truncated(let expected, let received):
      return "body truncated: received \(received.map(String.init) ?? "fewer than") of \(expected) announced bytes"
    case .transport(let reason):
      return "network error: \(reason)"
    case .fileUnreadable(let path, let reason):
      return "\(path): \(reason)"
    case .unsupportedScheme(let scheme):
      return "unsupported URL scheme '\(scheme)' (use file, http or https)"
    case .decoding(let error):
      return error.description
    }
  }
}
