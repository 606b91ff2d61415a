import Dispatch
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// One flight: disk cache → fetch → decode → store → deliver. Each step first checks that the flight
// still has waiters, so an abandoned flight stops at the next step boundary.
extension ImageLoader {
  func startFlight(_ flightID: UInt64, for key: ImageCacheKey) {
    workQueue.asyncAfter(deadline: .now() + timeout) { [weak self] in
      guard let self else { return }
      self.finish(flightID, with: .failure(.timedOut(seconds: self.timeout)), stopFetch: true)
    }
    workQueue.async { [self] in
      guard isActive(flightID) else { return }
      if let diskCache, let data = diskCache.data(for: key.url) {
        if let image = try? decode(data, for: key) {
          counters.diskHits.add(1, ordering: .relaxed)
          complete(flightID, key: key, with: .success(image), storing: nil)
          return
        }
        // Readable bytes that no longer decode: drop them and fetch afresh.
        diskCache.removeData(for: key.url)
      }
      fetch(flightID, for: key)
    }
  }

  private func fetch(_ flightID: UInt64, for key: ImageCacheKey) {
    guard isActive(flightID) else { return }
    counters.fetches.add(1, ordering: .relaxed)
    let cancel = fetchData(key.url) { [self] result in
      switch result {
      case .failure(let error):
        finish(flightID, with: .failure(error))
      case .success(let data):
        workQueue.async { [self] in
          guard isActive(flightID) else { return }
          let decoded = Result { () throws(ImageLoadError) in try decode(data, for: key) }
          complete(flightID, key: key, with: decoded, storing: data)
        }
      }
    }
    if case .cancelFetch(let cancelFetch) = state.withLock({ $0.fetchStarted(flightID: flightID, cancel: cancel) }) {
      cancelFetch()
    }
  }

  private func decode(_ data: Data, for key: ImageCacheKey) throws(ImageLoadError) -> RenderedImage {
    counters.decodes.add(1, ordering: .relaxed)
    do {
      return try ImageDecoder.decode(data, targetPixelSize: key.targetPixelSize, maximumPixelCount: maximumPixelCount)
    } catch {
      throw .decoding(error)
    }
  }

  /// Stores a success in the caches before delivering it, so a request arriving after the flight
  /// ends hits the memory cache instead of starting a new flight.
  private func complete(
    _ flightID: UInt64, key: ImageCacheKey, with result: Result<RenderedImage, ImageLoadError>, storing data: Data?
  ) {
    if case .success(let image) = result {
      memoryCache.insert(image, for: key)
      if let data { diskCache?.store(data, for: key.url) }
    }
    finish(flightID, with: result)
  }

  /// Reads `url`'s bytes; calls `completion` once, from any thread. Returns a cancel function.
  private func fetchData(
    _ url: URL, completion: @escaping @Sendable (Result<Data, ImageLoadError>) -> Void
  ) -> @Sendable () -> Void {
    switch url.scheme?.lowercased() {
    case "file":
      workQueue.async {
        do {
          completion(.success(try Data(contentsOf: url)))
        } catch {
          completion(.failure(.fileUnreadable(path: url.path, reason: (error as NSError).localizedDescription)))
        }
      }
      // A local read is short and cannot be interrupted; an abandoned flight drops its result.
      return {}
    case "http", "https":
      var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
      request.httpMethod = "GET"
      let timeout = self.timeout
      // On a failure FoundationNetworking passes no response; the task still knows the announced length,
      // which is what tells a body cut short from other failures.
      let taskBox = DataTaskBox()
      let task = session.dataTask(with: request) { data, response, error in
        let task = taskBox.task.withLock { $0 }
        completion(
          Self.interpret(
            data: data, response: response, error: error,
            announcedBytes: task.map { Int($0.countOfBytesExpectedToReceive) } ?? -1, timeout: timeout))
      }
      taskBox.task.withLock { $0 = task }
      task.resume()
      return { task.cancel() }
    default:
      completion(.failure(.unsupportedScheme(url.scheme ?? "")))
      return {}
    }
  }

  private static func interpret(
    data: Data?, response: URLResponse?, error: (any Error)?, announcedBytes: Int, timeout: Double
  ) -> Result<Data, ImageLoadError> {
    if let error {
      let code = (error as? URLError)?.code
      if code == .cancelled { return .failure(.cancelled) }
      if code == .timedOut { return .failure(.timedOut(seconds: timeout)) }
      // The connection failed after a Content-Length was announced: the body was cut short. (How
      // much arrived is not reported on this path.)
      if announcedBytes > 0 {
        return .failure(.truncated(expectedBytes: announcedBytes, receivedBytes: nil))
      }
      return .failure(.transport((error as NSError).localizedDescription))
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
}

/// Lets a data task's completion handler reach the task itself (declared after the handler).
private final class DataTaskBox: Sendable {
  let task = Mutex<URLSessionDataTask?>(nil)
}
