import AsyncLayer
import Foundation

/// An in-memory ``ImageTransport`` for loader tests: answers by URL path, counts requests, and can
/// hold a response until the test releases it (a gate), so nothing waits for the network or the clock.
///
/// A held request that is cancelled (its flight's last waiter left, or the timeout passed) throws
/// `.cancelled` and is counted, like a client hanging up.
final class FakeImageTransport: ImageTransport {
  enum Response: Sendable {
    /// The bytes, at once.
    case ok(Data)
    /// The bytes, once `release(path)` is called (at once if it already was).
    case held(Data)
    /// This failure, at once.
    case failure(ImageLoadError)
  }

  private struct State {
    var routes: [String: Response] = [:]
    var released: Set<String> = []
    var held: [Int: (path: String, continuation: CheckedContinuation<Result<Data, ImageLoadError>, Never>)] = [:]
    var cancelledEarly: Set<Int> = []
    var nextID = 0
  }

  private let state = Mutex(State())
  private let events = EventCounter()

  /// `https://fake.test<path>`.
  func url(_ path: String) -> URL { URL(string: "https://fake.test\(path)")! }

  func route(_ path: String, _ response: Response) { state.withLock { $0.routes[path] = response } }

  /// Opens the gate of `path`: every held request for it (now or later) gets its bytes.
  func release(_ path: String) {
    let ready = state.withLock { state in
      state.released.insert(path)
      let ready = state.held.filter { $0.value.path == path }
      for id in ready.keys { state.held[id] = nil }
      return ready.values.map(\.continuation)
    }
    guard case .held(let data) = state.withLock({ $0.routes[path] }) else { return }
    for continuation in ready { continuation.resume(returning: .success(data)) }
  }

  func requestCount(_ path: String) -> Int { events.count("request " + path) }
  func cancellationCount(_ path: String) -> Int { events.count("cancel " + path) }

  /// Returns once `count` requests for `path` have arrived.
  func waitForRequests(_ path: String, count: Int = 1) async { await events.waitFor("request " + path, count: count) }

  /// Returns once `count` held requests for `path` have been cancelled.
  func waitForCancellations(_ path: String, count: Int = 1) async {
    await events.waitFor("cancel " + path, count: count)
  }

  func data(from url: URL) async throws(ImageLoadError) -> Data {
    let path = url.path
    let (response, id) = state.withLock { state in
      defer { state.nextID += 1 }
      return (state.routes[path], state.nextID)
    }
    events.record("request " + path)
    switch response {
    case nil:
      throw .httpStatus(404)
    case .ok(let data):
      return data
    case .failure(let error):
      throw error
    case .held(let data):
      return try await hold(id, path: path, data: data).get()
    }
  }

  private func hold(_ id: Int, path: String, data: Data) async -> Result<Data, ImageLoadError> {
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let answer: Result<Data, ImageLoadError>? = state.withLock { state in
          if state.cancelledEarly.remove(id) != nil { return .failure(.cancelled) }
          if state.released.contains(path) { return .success(data) }
          state.held[id] = (path, continuation)
          return nil
        }
        if answer == .failure(.cancelled) { events.record("cancel " + path) }
        if let answer { continuation.resume(returning: answer) }
      }
    } onCancel: {
      let continuation = state.withLock { state in
        guard let held = state.held.removeValue(forKey: id) else {
          state.cancelledEarly.insert(id)
          return CheckedContinuation<Result<Data, ImageLoadError>, Never>?.none
        }
        return held.continuation
      }
      guard let continuation else { return }
      events.record("cancel " + path)
      continuation.resume(returning: .failure(.cancelled))
    }
  }
}
