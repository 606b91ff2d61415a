import Testing

@testable import AsyncLayer

/// A large layer's draw writes over the contents its previous commit replaced, never over pixels
/// someone still holds, and its results equal fresh draws.
@Suite("Pixel recycler")
struct PixelRecyclerTests {
  /// 1 600 × 1 400 px at 1×: 8.96 MB, over the recycler's minimum.
  static func largeLayer(loop: MainLoop, pool: QueuePool) -> TextLayer {
    let layer = TextLayer(loop: loop, pool: pool)
    layer.size = Size(width: 1600, height: 1400)
    layer.backgroundColor = .white
    layer.isOpaque = true
    layer.padding = EdgeInsets(all: 10)
    return layer
  }

  static func address(of image: RenderedImage?) -> Int {
    image?.pixels.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) } ?? 0
  }

  @Test("the third draw of a large layer writes over the first draw's buffer, and matches a fresh draw")
  func reusesTheReplacedContents() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let layer = Self.largeLayer(loop: loop, pool: pool)
    var addresses: [Int] = []
    for text in ["first", "second", "third: a longer line of text"] {
      layer.text = .plain(text)
      loop.runOnce()
      #expect(loop.run(until: { !layer.isDisplayPending }))
      addresses.append(Self.address(of: layer.contents))
      // From the second commit on, the replaced contents wait as the spare.
      #expect(layer.pixelRecycler.hasSpare == (addresses.count >= 2))
    }
    #expect(addresses[0] != addresses[1])
    #expect(addresses[2] == addresses[0], "the spare (the first contents) was not written over")
    #expect(layer.pixelRecycler.hasSpare)  // the second contents, kept for the fourth draw

    let fresh = Self.largeLayer(loop: loop, pool: pool)
    fresh.text = layer.text
    fresh.displaysAsynchronously = false
    loop.runOnce()
    #expect(layer.contents == fresh.contents)
  }

  @Test("contents someone still holds are copied, not written over")
  func keptContentsStayIntact() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let layer = Self.largeLayer(loop: loop, pool: pool)
    layer.text = .plain("kept by the caller")
    loop.runOnce()
    #expect(loop.run(until: { !layer.isDisplayPending }))
    let kept = try #require(layer.contents)
    let before = kept.pixels.reduce(0) { $0 &+ UInt64($1) }
    for text in ["replaced once", "replaced twice, over the spare"] {
      layer.text = .plain(text)
      loop.runOnce()
      #expect(loop.run(until: { !layer.isDisplayPending }))
    }
    #expect(kept.pixels.reduce(0) { $0 &+ UInt64($1) } == before)
    #expect(Self.address(of: layer.contents) != Self.address(of: kept))
  }

  @Test("small buffers are not kept; a spare of another size is dropped; a given-back buffer is kept once")
  func keepsOnlyLargeBuffersOfTheRightSize() {
    let recycler = PixelRecycler()
    let small = RenderedImage(pixelWidth: 100, pixelHeight: 100, pixels: [UInt32](repeating: 0, count: 10_000))
    #expect(recycler.keep(small) != nil)  // handed back to the caller
    #expect(!recycler.hasSpare)
    let count = PixelRecycler.minimumBytes / 4
    let large = RenderedImage(pixelWidth: count, pixelHeight: 1, pixels: [UInt32](repeating: 7, count: count))
    #expect(recycler.keep(large) == nil)
    #expect(recycler.take(count: count - 1) == nil)  // another size: dropped
    #expect(!recycler.hasSpare)
    recycler.giveBack([UInt32](repeating: 1, count: count))
    recycler.giveBack([UInt32](repeating: 2, count: count))  // a spare is there: not replaced
    #expect(recycler.take(count: count)?.pixels.first == 1)
  }
}
