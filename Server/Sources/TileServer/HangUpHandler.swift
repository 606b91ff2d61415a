import NIOCore

/// Watches one connection for its peer's hang-up and fires the connection's ``ConnectionHangUp``,
/// which the server's ``ConnectionRegistry`` hands to the requests of that connection.
///
/// Why a handler and not `RequestBody.consumeWithCancellationOnInboundClose`: that Hummingbird call
/// reads the connection's request parts itself while the handler runs, so it may take the head of
/// the next request, and Hummingbird then has to close the connection after every response (no
/// keep-alive). This handler only sees the events as they pass: the server keeps reading ahead
/// (NIOAsyncChannel asks for more while its buffer is under its high watermark, and a waiting
/// handler leaves it nearly empty), so a peer's FIN arrives as `ChannelEvent.inputClosed` (servers
/// allow half-closure) and a reset as `channelInactive`, while the draw is still running.
///
/// A client that half-closes on purpose after its request (`shutdown(SHUT_WR)`) is taken as gone,
/// as Hummingbird's own call takes it.
final class HangUpHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = NIOAny

  private let registry: ConnectionRegistry
  private let hangUp = ConnectionHangUp()

  init(registry: ConnectionRegistry) {
    self.registry = registry
  }

  func handlerAdded(context: ChannelHandlerContext) {
    registry.register(context.channel, hangUp)
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    hangUp.fire()
    registry.unregister(context.channel)
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case .some(.inputClosed) = event as? ChannelEvent { hangUp.fire() }
    context.fireUserInboundEventTriggered(event)
  }

  func channelInactive(context: ChannelHandlerContext) {
    hangUp.fire()
    context.fireChannelInactive()
  }
}
