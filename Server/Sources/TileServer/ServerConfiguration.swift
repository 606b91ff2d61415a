import Foundation

/// How the server runs: where it listens, its draw pool, its limits, and where files may be read.
public struct ServerConfiguration: Sendable {
  /// The address to bind, `127.0.0.1` by default.
  public var host: String
  /// The port; 0 picks a free one.
  public var port: Int
  /// Serial draw queues in the pool (default: the active cores, at most 6, as `QueuePool.shared`).
  public var queueCount: Int
  /// The most draws waiting in the pool; one more gets 503 with `Retry-After`.
  public var pendingLimit: Int
  /// Request limits.
  public var limits: ServerLimits
  /// The only folder whose files (report images, fonts) a request may name; nil refuses every path.
  public var filesRoot: String?
  /// False renders without cancellation (`--no-cancel`): neither a deadline nor a hang-up stops a
  /// draw, as in a handler that calls the synchronous API. For comparisons only.
  public var cancellation: Bool
  /// For benchmarks only (`--bench-skip-draw`): nil draws every tile; otherwise the first tile
  /// request draws and every later one answers with that first PNG, whatever it asks, so that a
  /// load generator measures what a request costs besides its draw (see ``SkipDraw``).
  public var skipDraw: SkipDraw?

  /// Where a tile request stops short of drawing under `--bench-skip-draw`: what is left is the
  /// HTTP work and the server's own plumbing, the floor under a drawn tile's cost.
  public enum SkipDraw: String, Sendable, CaseIterable {
    /// The handler parses the tile and answers at once: the HTTP stack, routing, metrics, parsing.
    case handler
    /// As `handler`, plus a run on the draw pool that returns the PNG (deadline, hang-up watch,
    /// the hop to a draw thread and back): everything a drawn tile costs but the draw.
    case pool
  }

  /// A configuration with the server's defaults.
  public init(
    host: String = "127.0.0.1", port: Int = 8080, queueCount: Int = ServerConfiguration.defaultQueueCount,
    pendingLimit: Int = 256, limits: ServerLimits = ServerLimits(), filesRoot: String? = nil,
    cancellation: Bool = true
  ) {
    self.host = host
    self.port = port
    self.queueCount = queueCount
    self.pendingLimit = pendingLimit
    self.limits = limits
    self.filesRoot = filesRoot
    self.cancellation = cancellation
  }

  /// The active cores, 1 to 6.
  public static var defaultQueueCount: Int { max(1, min(ProcessInfo.processInfo.activeProcessorCount, 6)) }
}
