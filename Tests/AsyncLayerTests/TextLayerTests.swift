import Foundation
import Synchronization
import Testing

@testable import AsyncLayer

@Suite struct TextLayerTests {
  static let paragraph = String(
    repeating: "A long paragraph wraps over many lines so that a redisplay can stop it part-way. ", count: 40)

  @Test func asynchronousAndSynchronousRendersAgreePixelForPixel() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    func makeLayer() -> TextLayer {
      let layer = TextLayer(loop: loop, pool: pool)
      layer.size = Size(width: 160, height: 60)
      layer.contentsScale = 2
      layer.isOpaque = true
      layer.padding = EdgeInsets(all: 4)
      layer.text = .markup("<b>Bold</b> and <span foreground=\"red\">red</span> text that wraps")
      return layer
    }
    let asynchronous = makeLayer()
    let synchronous = makeLayer()
    synchronous.displaysAsynchronously = false
    loop.runOnce()
    #expect(loop.run(until: { !asynchronous.isDisplayPending }))
    let image = try #require(asynchronous.contents)
    #expect(image == synchronous.contents)
    // Something was drawn: not every pixel is the white background.
    #expect(image.pixels.contains { $0 != 0xffff_ffff })
  }

  @Test func longTextCancelledHalfWayStopsEarly() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 1)
    defer { pool.shutdown() }
    let layer = TextLayer(loop: loop, pool: pool)
    layer.size = Size(width: 200, height: 4000)
    layer.text = .plain(Self.paragraph)
    let reports = Mutex<[TextDrawReport]>([])
    layer.drawReportHandler = { report in reports.withLock { $0.append(report) } }
    // Poll 1 is the check between layout and rendering; poll n + 1 comes before line n. The tenth
    // poll (before line 9) holds the first draw until the test has redisplayed.
    let polls = Atomic<Int>(0)
    let reached = Gate()
    let resume = Gate()
    layer.cancellationPollHook = {
      if polls.add(1, ordering: .relaxed).newValue == 10 {
        reached.open()
        resume.enter()
      }
    }
    loop.runOnce()
    #expect(reached.enter())
    layer.setNeedsDisplay()
    resume.open()
    #expect(loop.run(until: { !layer.isDisplayPending }))

    let all = reports.withLock { $0 }
    try #require(all.count == 2)
    #expect(all[0].lineCount > 30)
    #expect(all[0].linesDrawn == 8)
    #expect(all[0].wasCancelled)
    #expect(all[1].linesDrawn == all[1].lineCount)
    let stats = layer.statistics
    #expect(stats.cancelledMidDraw == 1)
    #expect(stats.committed == 1)
    #expect(stats.cpuTimeCancelledMidDraw > .zero)
  }

  @Test func cancellationBetweenLayoutAndRenderingDrawsNoLine() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 1)
    defer { pool.shutdown() }
    let layer = TextLayer(loop: loop, pool: pool)
    layer.size = Size(width: 200, height: 400)
    layer.text = .plain(Self.paragraph)
    let reports = Mutex<[TextDrawReport]>([])
    layer.drawReportHandler = { report in reports.withLock { $0.append(report) } }
    let polls = Atomic<Int>(0)
    let reached = Gate()
    let resume = Gate()
    layer.cancellationPollHook = {
      if polls.add(1, ordering: .relaxed).newValue == 1 {
        reached.open()
        resume.enter()
      }
    }
    loop.runOnce()
    #expect(reached.enter())
    layer.setNeedsDisplay()
    resume.open()
    #expect(loop.run(until: { !layer.isDisplayPending }))
    // The first draw threw at the check after layout: it never reached the line loop.
    #expect(reports.withLock { $0.count } == 1)
    #expect(layer.statistics.cancelledMidDraw == 1)
    #expect(layer.contents != nil)
  }

  @Test func invalidMarkupFailsWithATypedError() {
    let loop = MainLoop(clock: .manual)
    let layer = TextLayer(loop: loop)
    layer.displaysAsynchronously = false
    layer.size = Size(width: 100, height: 20)
    layer.text = .markup("<b>unclosed")
    loop.runOnce()
    #expect(layer.contents == nil)
    guard case .invalidMarkup = layer.lastError as? RenderError else {
      Issue.record("expected invalidMarkup, got \(String(describing: layer.lastError))")
      return
    }
  }

  /// Many threads change the text and request displays through the loop while draws run; the
  /// final contents equal a synchronous render of the final text.
  @Test func concurrentUpdatesEndWithTheFinalTextPixelForPixel() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let layer = TextLayer(loop: loop, pool: pool)
    layer.size = Size(width: 180, height: 48)
    layer.contentsScale = 2
    layer.isOpaque = true
    let bound = LoopBound(layer, loop: loop)
    let writers = 4
    let updatesPerWriter = 40
    let applied = LoopBound(Box(), loop: loop)
    for writer in 0..<writers {
      Thread.detachNewThread {
        for step in 0..<updatesPerWriter {
          loop.perform {
            bound.value.text = .plain("writer \(writer) step \(step) " + String(repeating: "x", count: step % 7))
            bound.value.setNeedsDisplay()
            applied.value.count += 1
          }
        }
      }
    }
    // Idle: every update applied, the last display committed, and every older draw has reported.
    let finished = loop.run(until: {
      let stats = layer.statistics
      return applied.value.count == writers * updatesPerWriter && !layer.isDisplayPending
        && stats.displays == stats.finished
    })
    #expect(finished)

    let reference = TextLayer(loop: loop)
    reference.displaysAsynchronously = false
    reference.size = layer.size
    reference.contentsScale = layer.contentsScale
    reference.isOpaque = true
    reference.text = layer.text
    reference.display()
    let contents = try #require(layer.contents)
    #expect(contents == reference.contents)
    let stats = layer.statistics
    #expect(stats.requested >= writers * updatesPerWriter)
    #expect(stats.committed >= 1)
  }
}
