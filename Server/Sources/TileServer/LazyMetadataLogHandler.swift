public import Logging

/// A log handler that writes as swift-log's `StreamLogHandler` does, but formats its metadata only
/// when it logs.
///
/// Hummingbird gives every request a logger with its own `hb.request.id` metadata. Setting metadata on
/// a `StreamLogHandler` formats all of it at once (the request id's description, sorted key-value
/// text), on every request, though a tile request logs nothing at the default level: 1.7% of the
/// server's CPU under `wrk -c64` (perf, 2026-11-26). This handler keeps the metadata as values and
/// passes them to the stream handler with the message, when there is one.
///
/// ```swift
/// var logger = Logger(label: "asynclayer-server") { LazyMetadataLogHandler(StreamLogHandler.standardError(label: $0)) }
/// logger[metadataKey: "hb.request.id"] = "42"   // stored, not formatted
/// logger.info("started")                          // formatted here
/// ```
public struct LazyMetadataLogHandler: LogHandler {
  private var stream: StreamLogHandler
  /// The logger's own metadata; the stream handler's stays empty (setting it is what costs).
  public var metadata: Logger.Metadata = [:]

  /// Writes through `stream`.
  public init(_ stream: StreamLogHandler) {
    self.stream = stream
  }

  public var logLevel: Logger.Level {
    get { stream.logLevel }
    set { stream.logLevel = newValue }
  }

  public var metadataProvider: Logger.MetadataProvider? {
    get { stream.metadataProvider }
    set { stream.metadataProvider = newValue }
  }

  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  public func log(event: LogEvent) {
    guard !metadata.isEmpty else { return stream.log(event: event) }
    var event = event
    // The message's own metadata wins over the logger's, as in StreamLogHandler.
    event.metadata = metadata.merging(event.metadata ?? [:]) { _, explicit in explicit }
    stream.log(event: event)
  }
}
