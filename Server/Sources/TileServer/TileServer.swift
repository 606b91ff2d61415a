public import AsyncLayer
import CoreMetrics
import Foundation
import HTTPTypes
public import Hummingbird
import Logging
import NIOCore
import Synchronization

/// The tile and report server: its pool, its metrics and its routes.
///
/// ```swift
/// let server = TileServer(configuration: ServerConfiguration(port: 8080))
/// try await server.application().runService()
/// ```
public final class TileServer: Sendable {
  /// How the server runs.
  public let configuration: ServerConfiguration
  /// The server's metrics (`GET /metrics`).
  public let metrics: ServerMetrics
  /// Runs the draws on the pool.
  public let runner: DrawRunner
  /// The hang-up signal of each open connection (filled by ``HangUpHandler``).
  let connections = ConnectionRegistry()
  /// The first tile's PNG, answered to every later tile request under `--bench-skip-draw`.
  let skippedDrawPNG = Mutex<Data?>(nil)

  /// A server with its own pool of `configuration.queueCount` queues, at most
  /// `configuration.pendingLimit` draws waiting, counted in ``metrics``. `pool` replaces that pool
  /// (tests hold one with a gate).
  public init(configuration: ServerConfiguration, pool: QueuePool? = nil, metrics: ServerMetrics = ServerMetrics()) {
    self.configuration = configuration
    self.metrics = metrics
    let drawPool =
      pool
      ?? QueuePool(
        queueCount: configuration.queueCount, name: "tile-draw", niceness: 0,
        pendingLimit: configuration.pendingLimit, onRunEnded: { metrics.record($0) })
    runner = DrawRunner(pool: drawPool, metrics: metrics, cancellation: configuration.cancellation)
  }

  /// The routes: `GET /tile.png`, `POST /tile.png`, `POST /report`, `GET /metrics`, `GET /health`.
  public func router() -> Router<TileRequestContext> {
    let router = Router(context: TileRequestContext.self)
    router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
    router.get("tile.png") { request, context in
      await self.respond {
        let query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        let tile = try TileRequest(query: query, limits: self.configuration.limits)
        return try await self.png(tile, hangUp: self.hangUp(context))
      }
    }
    router.post("tile.png") { request, context in
      await self.respond {
        let timeout = try self.queryTimeout(request)
        var tile = try TileRequest(
          json: Data(try await self.collect(request.body, request).readableBytesView),
          limits: self.configuration.limits)
        if tile.timeoutMilliseconds == nil { tile.timeoutMilliseconds = timeout }
        return try await self.png(tile, hangUp: self.hangUp(context))
      }
    }
    router.post("report") { request, context in
      await self.respond {
        let options = try ReportOptions(
          request.uri.queryParameters.map { ($0.key, $0.value) }, limits: self.configuration.limits)
        let json = try await self.collect(request.body, request)
        return try await self.report(json, options, hangUp: self.hangUp(context))
      }
    }
    router.get("metrics") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
        body: ResponseBody(
          byteBuffer: ByteBuffer(bytes: self.metrics.exposition(pendingCount: self.runner.pool.pendingCount))))
    }
    router.get("health") { _, _ in
      Self.json(
        .ok,
        [
          "status": "ok", "queues": self.runner.pool.queueCount, "pending": self.runner.pool.pendingCount,
          "cancellation": self.configuration.cancellation,
        ])
    }
    return router
  }

  /// The application on `configuration.host`:`configuration.port`. `onServerRunning` gets the
  /// channel once it listens (its local address holds the port when `port` is 0).
  ///
  /// With cancellation on, each connection gets a ``HangUpHandler``: a client that hangs up cancels
  /// the draw of its request in flight, and connections stay open between requests (keep-alive).
  public func application(
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
  ) -> some ApplicationProtocol {
    let connections = connections
    let watch = configuration.cancellation
    return Application(
      router: router(),
      server: .http1(
        configuration: .init(additionalChannelHandlers: watch ? [HangUpHandler(registry: connections)] : [])),
      configuration: ApplicationConfiguration(
        address: .hostname(configuration.host, port: configuration.port), serverName: "asynclayer-server"),
      onServerRunning: onServerRunning,
      logger: Self.logger())
  }

  /// Hummingbird's default logger (standard error, `LOG_LEVEL` from the environment) with metadata
  /// formatted only when something is logged: Hummingbird sets a request id on every request's logger
  /// (see ``LazyMetadataLogHandler``).
  static func logger() -> Logger {
    var logger = Logger(label: "asynclayer-server") {
      LazyMetadataLogHandler(StreamLogHandler.standardError(label: $0))
    }
    if let level = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap({ Logger.Level(rawValue: $0) }) {
      logger.logLevel = level
    }
    return logger
  }

  // MARK: Drawing

  /// The tile as PNG: rendered and encoded in one run on the pool (encoding is CPU work too).
  func png(_ request: TileRequest, hangUp: ConnectionHangUp?) async throws -> Response {
    if let skip = configuration.skipDraw, let data = skippedDrawPNG.withLock({ $0 }) {
      return try await skippedDraw(data, skip, request, hangUp: hangUp)
    }
    let tile = request.tile
    let cap = configuration.limits.memoryCap
    let data = try await runner.draw(deadline: deadline(request.timeoutMilliseconds), hangUp: hangUp) { isCancelled in
      let rendered = try tile.render(isCancelled: isCancelled)
      if isCancelled() { throw CancellationError() }
      return try PNGEncoder(memoryCap: cap).encode(rendered.image)
    }
    if configuration.skipDraw != nil { skippedDrawPNG.withLock { $0 = $0 ?? data } }
    return Response(
      status: .ok, headers: [.contentType: "image/png"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
  }

  /// A tile request under `--bench-skip-draw`: `data` answered as a drawn tile is (copied into the
  /// response's buffer), after a pool run that returns it (``ServerConfiguration/SkipDraw/pool``).
  func skippedDraw(
    _ data: Data, _ skip: ServerConfiguration.SkipDraw, _ request: TileRequest, hangUp: ConnectionHangUp?
  ) async throws -> Response {
    var body = data
    if skip == .pool {
      body = try await runner.draw(deadline: deadline(request.timeoutMilliseconds), hangUp: hangUp) { _ in data }
    }
    return Response(
      status: .ok, headers: [.contentType: "image/png"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
  }

  func report(_ json: ByteBuffer, _ options: ReportOptions, hangUp: ConnectionHangUp?) async throws -> Response {
    let limits = configuration.limits
    let pool = runner.pool
    let prepared = try ReportRequest(
      json: Data(json.readableBytesView), filesRoot: configuration.filesRoot, limits: limits)
    let data = try await runner.within(deadline(options.timeoutMilliseconds), hangUp: hangUp) {
      // Reading images and checking markup are blocking work: on the pool as well.
      let document = try await pool.run { _ in try prepared.makeDocument(limits: limits) }
      if options.format == .png {
        let pixels =
          (document.pageSize.width * options.scale).rounded(.up)
          * (document.pageSize.height * options.scale).rounded(.up)
        guard pixels <= Double(limits.maximumPixels) else {
          throw RequestError.bad(
            "scale",
            "a page at scale \(options.scale) is \(Int(pixels)) pixels, over the server's limit of \(limits.maximumPixels)"
          )
        }
      }
      let layout = try await ReportLayout.make(document, on: pool)
      guard layout.pages.count <= limits.maximumPages else {
        throw RequestError.bad(
          "spec", "\(layout.pages.count) pages exceed the server's limit of \(limits.maximumPages)")
      }
      switch options.format {
      case .pdf: return try await layout.pdfData(on: pool)
      case .svg: return try await layout.svgData(on: pool)
      case .png:
        guard options.page <= layout.pages.count else {
          throw RequestError.bad("page", "the report has \(layout.pages.count) pages (got page \(options.page))")
        }
        let image = try await layout.renderPage(options.page - 1, scale: options.scale, on: pool)
        return try await pool.run { _ in try PNGEncoder(memoryCap: limits.memoryCap).encode(image) }
      }
    }
    return Response(
      status: .ok, headers: [.contentType: options.format.contentType],
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
  }

  // MARK: Plumbing

  func deadline(_ milliseconds: Int?) -> Duration {
    .milliseconds(
      min(
        milliseconds ?? configuration.limits.defaultTimeoutMilliseconds, configuration.limits.maximumTimeoutMilliseconds
      ))
  }

  func queryTimeout(_ request: Request) throws(RequestError) -> Int? {
    for (key, value) in request.uri.queryParameters {
      guard key == "timeout" else { throw .bad(String(key), "unknown query item (known: timeout)") }
      return try TileRequest.timeout(value, limits: configuration.limits)
    }
    return nil
  }

  /// The hang-up signal of the request's connection, with cancellation on (nil in HummingbirdTesting's
  /// router mode, which has no connection).
  func hangUp(_ context: TileRequestContext) -> ConnectionHangUp? {
    configuration.cancellation ? connections.hangUp(of: context.channel) : nil
  }

  /// The body, up to the limit: a declared length over it fails before anything is read.
  func collect(_ body: RequestBody, _ request: Request) async throws -> ByteBuffer {
    let limit = configuration.limits.maximumBodyBytes
    if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
      throw RequestError(.contentTooLarge, field: "body", "\(length) bytes exceed the server's limit of \(limit) bytes")
    }
    do {
      return try await body.collect(upTo: limit)
    } catch let error as HTTPError where error.status == .contentTooLarge {
      throw RequestError(.contentTooLarge, field: "body", "the body exceeds the server's limit of \(limit) bytes")
    } catch {
      // The body's stream ends in an error when the connection closes before the declared length
      // arrived: a client that gave up, counted as a hang-up (499), not as the server's fault (500).
      throw RequestError(
        .clientClosedRequest, field: "body", "the client closed the connection before sending the whole body")
    }
  }

  /// The response of `operation`, or of the error it threw.
  func respond(_ operation: () async throws -> Response) async -> Response {
    do {
      return try await operation()
    } catch {
      return errorResponse(error)
    }
  }

  /// The JSON error response for `error`, counted.
  func errorResponse(_ error: any Error) -> Response {
    let failure = Self.requestError(error)
    switch failure.status {
    case .serviceUnavailable: metrics.overloaded.increment()
    case .gatewayTimeout: metrics.deadlines.increment()
    case .clientClosedRequest: metrics.hangUps.increment()
    default: break
    }
    var body: [String: Any] = ["error": failure.description]
    if let field = failure.field { body["field"] = field }
    var response = Self.json(failure.status, body)
    if let seconds = failure.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
    return response
  }

  /// The status and message of any error a route meets.
  static func requestError(_ error: any Error) -> RequestError {
    switch error {
    case let error as RequestError: return error
    case is DeadlineExceeded:
      return RequestError(.gatewayTimeout, "the request's deadline passed before its drawing finished")
    case is CancellationError: return RequestError(.clientClosedRequest, "the client closed the connection")
    case let error as QueuePoolError:
      if case .overloaded = error {
        return RequestError(.serviceUnavailable, "\(error)", retryAfterSeconds: 1)
      }
      return RequestError(.serviceUnavailable, "\(error)", retryAfterSeconds: 5)
    case let error as RenderError: return RequestError.bad(Self.field(of: error), error.description)
    case let error as ReportSpecError: return RequestError.bad(error.path, error.message)
    case let error as any HTTPResponseError: return RequestError(error.status, "\(error)")
    default: return RequestError(.internalServerError, "\(error)")
    }
  }

  /// The request field a library error is about.
  static func field(of error: RenderError) -> String {
    switch error {
    case .invalidMarkup: return "markup"
    case .emptyText, .textTooLong, .tooManyParagraphs, .layoutTooLarge: return "text"
    case .memoryCapExceeded, .surfaceTooLarge: return "height"
    case .invalidDimension(let name, _), .invalidValue(let name, _, _):
      if name.contains("font") { return "font" }
      for field in ["width", "height", "scale", "lineSpacing", "line spacing", "padding"] where name.contains(field) {
        return field == "line spacing" ? "lineSpacing" : field
      }
      return name
    default: return "request"
    }
  }

  static func json(_ status: HTTPResponse.Status, _ object: [String: Any]) -> Response {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    return Response(
      status: status, headers: [.contentType: "application/json"],
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
  }
}

extension HTTPResponse.Status {
  /// nginx's 499: the client closed the connection before the response (never reaches it; counted).
  static let clientClosedRequest = HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")
}
