import AsyncLayer
import AsyncLayerTestSupport
import Dispatch
import Foundation
import Testing

/// ImageLayer on the manual loop. The tests run synchronously on the loop's thread; they wait on
/// events (a loader callback, a loop wake-up), never on time.
@Suite("Image layers", .timeLimit(.minutes(1)))
struct ImageLayerTests {
  static func solidPNG(_ color: Color, width: Double = 40, height: Double = 20) throws -> Data {
    try ImageRenderer(size: Size(width: width, height: height)).render { $0.clear(to: color) }.pngData()
  }

  @Test("a visible layer loads its URL and draws it with rounded corners; an invisible one does not load")
  func loadsWhileVisible() throws {
    let loop = MainLoop(clock: .manual)
    let loader = ImageLoader()
    try withTemporaryDirectory { directory in
      let file = directory.appendingPathComponent("blue.png")
      try Self.solidPNG(.blue).write(to: file)
      let layer = ImageLayer(loop: loop, loader: loader)
      layer.size = Size(width: 40, height: 20)
      layer.cornerRadius = 6
      layer.url = file
      loop.runOnce()
      #expect(!layer.isLoading)
      #expect(loader.statistics.fetches == 0)
      layer.isVisible = true
      #expect(loop.run(until: { layer.image != nil && layer.contents.map { $0.color(x: 20, y: 10) } == .blue }))
      let contents = try #require(layer.contents)
      #expect(contents.color(x: 20, y: 10).isClose(to: .blue))
      #expect(contents.color(x: 0, y: 0).alpha < 0.1)  // the rounded corner is clipped away
      #expect(layer.loadsDelivered == 1)
    }
  }

  @Test("before the image arrives the placeholder shows")
  func placeholder() throws {
    let loop = MainLoop(clock: .manual)
    let layer = ImageLayer(loop: loop, loader: ImageLoader())
    layer.size = Size(width: 10, height: 10)
    layer.placeholderColor = .green
    #expect(loop.run(until: { layer.contents != nil }))
    #expect(layer.contents?.color(x: 5, y: 5).isClose(to: .green) == true)
  }

  @Test("a reused layer never commits the previous URL's image")
  func reuseNeverShowsOldImage() throws {
    let server = FakeImageTransport()
    server.route("/old.png", .held(try Self.solidPNG(.red)))
    server.route("/new.png", .ok(try Self.solidPNG(.blue)))
    let loop = MainLoop(clock: .manual)
    let loader = ImageLoader(transport: server)
    let layer = ImageLayer(loop: loop, loader: loader)
    layer.size = Size(width: 40, height: 20)
    var committedColors: [Color] = []
    layer.onDidDisplay = { layer, finished in
      if finished, let contents = layer.contents { committedColors.append(contents.color(x: 20, y: 10)) }
    }
    layer.isVisible = true
    layer.url = server.url("/old.png")
    // Another client keeps the old fetch alive, so its image really arrives after the reuse.
    let oldArrived = DispatchSemaphore(value: 0)
    let keeper = loader.load(server.url("/old.png")) { _ in oldArrived.signal() }
    layer.url = server.url("/new.png")  // the cell is reused for another row
    #expect(loop.run(until: { layer.image != nil }))
    server.release("/old.png")
    #expect(oldArrived.wait(timeout: .now() + 30) == .success)
    for _ in 0..<5 { loop.runOnce() }
    #expect(loop.run(until: { !layer.isDisplayPending && !layer.needsDisplay }))
    #expect(layer.contents?.color(x: 20, y: 10).isClose(to: .blue) == true)
    #expect(!committedColors.contains { $0.isClose(to: .red) })
    #expect(layer.loadsDelivered == 1)
    keeper.cancel()
  }

  @Test("leaving visibility withdraws the layer's wait, and only its own")
  func invisibleWithdraws() throws {
    let server = FakeImageTransport()
    server.route("/slow.png", .held(try Self.solidPNG(.red)))
    let loop = MainLoop(clock: .manual)
    let loader = ImageLoader(transport: server)
    let first = ImageLayer(loop: loop, loader: loader)
    let second = ImageLayer(loop: loop, loader: loader)
    for layer in [first, second] {
      layer.size = Size(width: 40, height: 20)
      layer.url = server.url("/slow.png")
      layer.isVisible = true
    }
    #expect(loader.pendingWaiterCount == 2)
    #expect(first.isLoading)
    first.isVisible = false
    #expect(!first.isLoading)
    #expect(loader.pendingWaiterCount == 1)
    server.release("/slow.png")
    #expect(loop.run(until: { second.image != nil }))
    #expect(first.image == nil)
    #expect(server.requestCount("/slow.png") == 1)
  }

  @Test("content modes place the image", arguments: [ImageLayer.ContentMode.fit, .fill, .center])
  func contentModes(mode: ImageLayer.ContentMode) {
    let bounds = Rect(x: 0, y: 0, width: 100, height: 50)
    let frame = ImageLayer.frame(of: Size(width: 20, height: 20), in: bounds, mode: mode)
    switch mode {
    case .fit: #expect(frame == Rect(x: 25, y: 0, width: 50, height: 50))
    case .fill: #expect(frame == Rect(x: 0, y: -25, width: 100, height: 100))
    case .center: #expect(frame == Rect(x: 40, y: 15, width: 20, height: 20))
    }
  }
}
