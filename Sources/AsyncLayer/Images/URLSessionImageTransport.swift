import Dispatch
public import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The default ``ImageTransport``: `http` and `https` through an ephemeral `URLSession` (no URL
/// cache: the loader keeps its own), `file` URLs read from disk; any other scheme fails with
/// ``ImageLoadError/unsupportedScheme(_:)``.
///
/// A request that stalls longer than `requestTimeout` fails with ``ImageLoadError/timedOut(after:)``;
/// cancelling the calling task cancels the request (the connection is closed).
///
/// ```swift
/// let transport = URLSessionImageTransport(requestTimeout: .seconds(10))
/// let loader = ImageLoader(timeout: .seconds(10), transport: transport)
/// ```
public final class URLSessionImageTransport: ImageTransport {
  /// How long a request may stall before it fails with ``ImageLoadError/timedOut(after:)``.
  ///
  /// ```swift
  /// URLSessionImageTransport().requestTimeout  // 30 seconds
  /// ```
  public let requestTimeout: Duration
  private let session: URLSession
  /// Reads `file` URLs off the cooperative pool (a read blocks its thread).
  private let fileQueue = DispatchQueue(label: "AsyncLayer.URLSessionImageTransport.files", attributes: .concurrent)

  /// A transport whose requests time out after `requestTimeout` (positive; longer than
  /// ``ImageLoader/maximumTimeout`` is clamped to it; zero or less means 30 s).
  ///
  /// ```swift
  /// let transport = URLSessionImageTransport(requestTimeout: .seconds(15))
  /// ```
  public init(requestTimeout: Duration = .seconds(30)) {
    self.requestTimeout = ImageLoader.validTimeout(requestTimeout)
    let configuration = URLSessionConfiguration.ephemeral
    // The loader has its own caches; URLSession's would only hold a second copy of the bytes.
    configuration.urlCache = nil
    configuration.timeoutIntervalForRequest = Self.seconds(self.requestTimeout)
    session = URLSession(configuration: configuration)
  }

  deinit {
    // The last reference may be dropped on the session's own delegate queue (inside a completion
    // handler), where invalidating synchronously would deadlock: invalidate from elsewhere.
    let session = self.session
    DispatchQueue.global().async { session.invalidateAndCancel() }
  }

  /// The bytes at `url` (`file`, `http` or `https`).
  ///
  /// ```swift
  /// let bytes = try await URLSessionImageTransport().data(from: URL(fileURLWithPath: "/tmp/a.png"))
  /// ```
  public func data(from url: URL) async throws(ImageLoadError) -> Data {
    let result: Result<Data, ImageLoadError>
    switch url.scheme?.lowercased() {
    case "file":
      result = await readFile(url)
    case "http", "https":
      result = await fetch(url)
    default:
      result = .failure(.unsupportedScheme(url.scheme ?? ""))
    }
    return try result.get()
  }

  /// A local read is short and cannot be interrupted; an abandoned flight drops its result.
  private func readFile(_ url: URL) async -> Result<Data, ImageLoadError> {
    await withCheckedContinuation { continuation in
      fileQueue.async {
        do {
          continuation.resume(returning: .success(try Data(contentsOf: url)))
        } catch {
          let failure = FileErrorDescription(path: url.path, operation: "cannot read", error: error)
          continuation.resume(returning: .failure(.fileUnreadable(path: url.path, reason: failure.operationAndReason)))
        }
      }
    }
  }

  private func fetch(_ url: URL) async -> Result<Data, ImageLoadError> {
    var request = URLRequest(
      url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: Self.seconds(requestTimeout))
    request.httpMethod = "GET"
    let requestTimeout = self.requestTimeout
    let box = DataTaskBox()
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        // On a failure FoundationNetworking passes no response; the task still knows the announced
        // length, which is what tells a body cut short from other failures.
        let task = session.dataTask(with: request) { data, response, error in
          let announcedBytes = box.task.withLock { $0.task.map { Int($0.countOfBytesExpectedToReceive) } } ?? -1
          continuation.resume(
            returning: Self.interpret(
              data: data, response: response, error: error, announcedBytes: announcedBytes, timeout: requestTimeout))
        }
        // A task cancelled before the data task existed cancels it as soon as it does.
        let cancelled = box.task.withLock { state in
          state.task = task
          return state.cancelled
        }
        task.resume()
        if cancelled { task.cancel() }
      }
    } onCancel: {
      let task = box.task.withLock { state in
        state.cancelled = true
        return state.task
      }
      task?.cancel()
    }
  }

  /// A network failure in a few words, from its `URLError` code or POSIX code: FoundationNetworking's
  /// localized text on Linux is often only "The operation could not be completed".
  static func describe(networkError error: any Error) -> String {
    guard let code = (error as? URLError)?.code else {
      if let posix = FileErrorDescription.posixCode(of: error) { return FileErrorDescription.reason(errno: posix) }
      let nsError = error as NSError
      return "\(nsError.domain) error \(nsError.code)"
    }
    switch code {
    case .cannotFindHost, .dnsLookupFailed: return "cannot find the host"
    case .cannotConnectToHost: return "cannot connect to the host"
    case .networkConnectionLost: return "the connection was lost"
    case .notConnectedToInternet: return "not connected to a network"
    case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
      .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
      .clientCertificateRequired:
      return "the secure (TLS) connection failed"
    case .badServerResponse, .cannotParseResponse: return "the server's response could not be read"
    case .httpTooManyRedirects, .redirectToNonExistentLocation: return "too many or broken redirects"
    case .badURL, .unsupportedURL: return "the URL cannot be fetched"
    default: return "URL error \(code.rawValue)"
    }
  }

  static func interpret(
    data: Data?, response: URLResponse?, error: (any Error)?, announcedBytes: Int, timeout: Duration
  ) -> Result<Data, ImageLoadError> {
    if let error {
      let code = (error as? URLError)?.code
      if code == .cancelled { return .failure(.cancelled) }
      if code == .timedOut { return .failure(.timedOut(after: timeout)) }
      // The connection failed after a Content-Length was announced: the body was cut short. (How
      // much arrived is not reported on this path.)
      if announcedBytes > 0 {
        return .failure(.truncated(expectedBytes: announcedBytes, receivedBytes: nil))
      }
      return .failure(.transport(describe(networkError: error)))
    }
    if let http = response as? HTTPURLResponse, !(200...299).contains(http.statusCode) {
      return .failure(.httpStatus(http.statusCode))
    }
    let body = data ?? Data()
    let expected = response?.expectedContentLength ?? -1
    if expected >= 0, body.count < Int(expected) {
      return .failure(.truncated(expectedBytes: Int(expected), receivedBytes: body.count))
    }
    return .success(body)
  }

  /// `duration` in seconds, as `URLSession` counts time (already clamped, so finite and positive).
  private static func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}

/// Lets a data task's completion handler and the task's cancellation handler reach the data task.
private final class DataTaskBox: Sendable {
  struct State {
    var task: URLSessionDataTask?
    var cancelled = false
  }

  let task = Mutex(State())
}
