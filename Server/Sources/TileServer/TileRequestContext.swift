public import Hummingbird
public import NIOCore

/// The server's request context: Hummingbird's basic one plus the request's channel, through which a
/// route finds its connection's hang-up signal (``ConnectionRegistry``).
public struct TileRequestContext: RequestContext {
  /// Hummingbird's storage.
  public var coreContext: CoreRequestContextStorage
  /// The connection the request came on.
  public let channel: any Channel

  /// The context of a request that came on `source.channel`.
  public init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    channel = source.channel
  }
}
