public import Foundation

/// Fetches the encoded bytes of an image for an ``ImageLoader``: the loader's only way out to the
/// network or the file system, so a test (or an app with its own HTTP stack) can supply another.
///
/// The loader calls ``data(from:)`` at most once per flight (a URL and target size with waiters), from
/// a task of its own, and cancels that task when the flight's last waiter leaves or the loader's
/// timeout passes. An implementation must then stop its work and throw ``ImageLoadError/cancelled``
/// (or any error: the loader no longer delivers it). Failures are typed: use the ``ImageLoadError``
/// case that says what went wrong, such as ``ImageLoadError/httpStatus(_:)`` or
/// ``ImageLoadError/transport(_:)``.
///
/// The default is ``URLSessionImageTransport``.
///
/// ```swift
/// struct BundledImages: ImageTransport {
///   let files: [String: Data]
///   func data(from url: URL) async throws(ImageLoadError) -> Data {
///     guard let data = files[url.lastPathComponent] else { throw .httpStatus(404) }
///     return data
///   }
/// }
/// let loader = ImageLoader(transport: BundledImages(files: ["logo.png": logoBytes]))
/// ```
public protocol ImageTransport: Sendable {
  /// The bytes at `url`, complete (a body shorter than announced is ``ImageLoadError/truncated(expectedBytes:receivedBytes:)``).
  ///
  /// Cancelling the calling task stops the fetch.
  ///
  /// ```swift
  /// let bytes = try await URLSessionImageTransport().data(from: url)
  /// ```
  func data(from url: URL) async throws(ImageLoadError) -> Data
}
