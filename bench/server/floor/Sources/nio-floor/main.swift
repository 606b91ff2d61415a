// The least a SwiftNIO HTTP/1 server costs per request: the PNG read once, answered to every request
// from a channel handler on the event loop (no Swift concurrency, no routing, no parsing).
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

let png = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
let threads = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2])! : 1

final class Responder: ChannelInboundHandler, Sendable {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart
  let body: ByteBuffer
  init(body: ByteBuffer) { self.body = body }
  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard case .end = unwrapInboundIn(data) else { return }
    var head = HTTPResponseHead(version: .http1_1, status: .ok)
    head.headers.add(name: "Content-Type", value: "image/png")
    head.headers.add(name: "Content-Length", value: String(body.readableBytes))
    context.write(wrapOutboundOut(.head(head)), promise: nil)
    context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
  }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
let body = ByteBuffer(bytes: png)
let channel = try ServerBootstrap(group: group)
  .serverChannelOption(.backlog, value: 1024)
  .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
  .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
  .childChannelInitializer { channel in
    channel.eventLoop.makeCompletedFuture {
      try channel.pipeline.syncOperations.configureHTTPServerPipeline()
      try channel.pipeline.syncOperations.addHandler(Responder(body: body))
    }
  }
  .bind(host: "127.0.0.1", port: 0).wait()
print("listening on 127.0.0.1:\(channel.localAddress!.port!)")
fflush(nil)
try channel.closeFuture.wait()
