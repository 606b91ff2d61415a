// The least a Hummingbird 2 server costs per request: one route answering the PNG read once.
import Foundation
import Hummingbird

let png = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
let body = ByteBuffer(bytes: png)
let router = Router()
router.get("tile.png") { _, _ -> Response in
  Response(status: .ok, headers: [.contentType: "image/png"], body: .init(byteBuffer: body))
}
let app = Application(
  router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
  onServerRunning: { channel in
    print("listening on 127.0.0.1:\(channel.localAddress!.port!)"); fflush(nil)
  })
try await app.runService()
