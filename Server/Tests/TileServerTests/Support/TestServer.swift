import AsyncLayer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Prometheus
import Testing
import TileServer

/// A server on a free loopback port, its pool and its metrics, for one test.
struct TestServer {
  let server: TileServer
  let pool: QueuePool
  let metrics: ServerMetrics

  init(
    queues: Int = 2, pendingLimit: Int? = nil, limits: ServerLimits = ServerLimits(), filesRoot: String? = nil,
    cancellation: Bool = true, skipDraw: ServerConfiguration.SkipDraw? = nil
  ) {
    let metrics = ServerMetrics()
    pool = QueuePool(
      queueCount: queues, name: "tile-server-test", pendingLimit: pendingLimit, onRunEnded: { metrics.record($0) })
    self.metrics = metrics
    var configuration = ServerConfiguration(
      host: "127.0.0.1", port: 0, queueCount: queues, limits: limits, filesRoot: filesRoot, cancellation: cancellation)
    configuration.skipDraw = skipDraw
    server = TileServer(configuration: configuration, pool: pool, metrics: metrics)
  }

  func test<T: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
    try await server.application().test(.ahc(.http), body)
  }
}

extension ServerMetrics {
  /// The registry's Prometheus text now (without a request).
  var text: String {
    var buffer: [UInt8] = []
    registry.emit(into: &buffer)
    return String(decoding: buffer, as: UTF8.self)
  }
}

extension TestResponse {
  /// The JSON error body: `field` and `error`.
  var errorBody: (field: String?, error: String) {
    let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
    return (object["field"] as? String, object["error"] as? String ?? "<no error message>")
  }

  var bytes: Data { Data(body.readableBytesView) }
}

extension ByteBuffer {
  init(_ text: String) { self.init(string: text) }
}

/// A query value, percent-encoded.
func q(_ value: String) -> String {
  value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
}
