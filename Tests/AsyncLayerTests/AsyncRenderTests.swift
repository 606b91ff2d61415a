import Foundation
import Synchronization
import Testing

@testable import AsyncLayer

/// The async faces of tiles, images and reports on a pool, and the cancellation rule they share
/// with the synchronous renders.
@Suite struct AsyncRenderTests {
  typealias Records = QueuePoolAsyncTests.Records

  static let tile = TextTile(
    .plain(
      "The quick brown fox jumps over the lazy dog. " + String(repeating: "Lorem ipsum dolor sit amet. ", count: 20)),
    style: TextStyle(font: "DejaVu Sans 14"), width: 300, scale: 2, background: .white)

  @Test("an async tile equals the synchronous one")
  func asyncTileEqualsSync() async throws {
    // On dispatch threads: the cooperative pool may be busy with the suite's other tests.
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let pool = QueuePool(queueCount: 1, name: "test.tile")
      defer { pool.shutdown() }
      let async = try await Self.tile.render(on: pool)
      let sync = try Self.tile.render(isCancelled: { false })
      #expect(async == sync)
      #expect(async.linesDrawn == async.lineCount)
    }
  }

  @Test("a queued tile cancelled leaves the queue and throws")
  func queuedTileCancelled() async throws {
    // On dispatch threads: the cooperative pool may be busy with the suite's other tests.
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let records = Records()
      let pool = QueuePool(queueCount: 1, name: "test.tileq", onRunEnded: records.add)
      defer { pool.shutdown() }
      let release = await QueuePoolAsyncTests.hold(pool)
      let task = Task(executorPreference: QueuePoolAsyncTests.executor) { try await Self.tile.render(on: pool) }
      #expect(await QueuePoolAsyncTests.until { pool.pendingCount == 2 })
      task.cancel()
      await #expect(throws: CancellationError.self) { try await task.value }
      #expect(pool.pendingCount == 1)
      release.open()
      #expect(records.outcomes == [.cancelledWhileQueued])
    }
  }

  @Test("a running tile cancelled between lines throws instead of returning part of it")
  func runningTileCancelled() async throws {
    // On dispatch threads: the cooperative pool may be busy with the suite's other tests.
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let records = Records()
      let pool = QueuePool(queueCount: 1, name: "test.tiler", onRunEnded: records.add)
      defer { pool.shutdown() }
      let atCheck = Gate()
      let proceed = Gate()
      let checks = Atomic<Int>(0)
      let tile = Self.tile
      let task = Task(executorPreference: QueuePoolAsyncTests.executor) {
        try await pool.run { isCancelled in
          // Held at the tile's fourth check (past the layout, inside the draw), until the test cancels.
          try tile.render(isCancelled: {
            if checks.add(1, ordering: .relaxed).newValue == 4 {
              atCheck.open()
              proceed.enter()
            }
            return isCancelled()
          })
        }
      }
      await atCheck.enterAsync()
      task.cancel()
      proceed.open()
      await #expect(throws: CancellationError.self) { try await task.value }
      #expect(records.outcomes == [.cancelledWhileRunning])
    }
  }

  @Test("the synchronous rule: a tile whose isCancelled turned true throws, even when drawing just stopped")
  func synchronousTileCancelled() throws {
    var checks = 0
    let lines = try Self.tile.render().lineCount
    #expect(lines > 3)
    // True from the third check on: the draw stops between lines (it does not throw) — the tile must.
    #expect(throws: CancellationError.self) {
      try Self.tile.render(isCancelled: {
        checks += 1
        return checks >= 3
      })
    }
    #expect(checks >= 3)
    #expect(throws: CancellationError.self) { try Self.tile.render(isCancelled: { true }) }
  }

  @Test("a large buffer is not filled once cancelled: the check comes every few megabytes")
  func largeBufferFillStops() throws {
    let renderer = try ImageRenderer(size: Size(width: 4096, height: 4096))
    var checks = 0
    var drew = false
    #expect(throws: CancellationError.self) {
      try renderer.render(isCancelled: {
        checks += 1
        return checks > 3  // before allocating, then twice while filling 64 MiB
      }) { _ in drew = true }
    }
    #expect(!drew)
    #expect(checks == 4)
  }

  @Test("an async image render runs the draw on the pool")
  func asyncImage() async throws {
    // On dispatch threads: the cooperative pool may be busy with the suite's other tests.
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let pool = QueuePool(queueCount: 1, name: "test.image")
      defer { pool.shutdown() }
      let workers = await QueuePoolAsyncTests.workerThreads(of: pool)
      let thread = Mutex<pthread_t?>(nil)
      let image = try await ImageRenderer(size: Size(width: 4, height: 4)).render(on: pool) { context in
        thread.withLock { $0 = pthread_self() }
        context.clear(to: .white)
      }
      #expect(image.pixels.allSatisfy { $0 == 0xFFFF_FFFF })
      #expect(thread.withLock { $0 }.map(workers.contains) == true)
    }
  }

  @Test("report pages on a pool equal the synchronous ones; PDF and SVG too")
  func asyncReport() async throws {
    // On dispatch threads: the cooperative pool may be busy with the suite's other tests.
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let pool = QueuePool(queueCount: 2, name: "test.report")
      defer { pool.shutdown() }
      let (sync, _, _) = try ReportOutputTests.sampleLayout()
      let layout = try await ReportLayout.make(Self.sampleDocument(), on: pool)
      #expect(layout.pages == sync.pages)
      let pages = try await layout.renderPages(scale: 1, on: pool)
      #expect(pages.count == layout.pages.count)
      for index in layout.pages.indices {
        #expect(pages[index] == (try layout.renderPage(index, scale: 1, isCancelled: { false })))
      }
      #expect(try await layout.renderPage(1, on: pool) == pages[1])
      func syncPDF() throws -> Data { try layout.pdfData() }
      func syncSVG() throws -> Data { try layout.svgData(pageGap: 10) }
      // The PDF carries its creation time only from the document: equal bytes.
      #expect(try await layout.pdfData(on: pool) == syncPDF())
      // cairo names an SVG's glyph symbols per surface and its surfaces, images and clips by a
      // process-wide counter, so the ids (and their digit counts) depend on what ran before:
      // compare what is drawn, with the numbers taken out of the ids.
      let asyncSVG = try await layout.svgData(pageGap: 10, on: pool)
      let svg = Self.withoutIDNumbers(String(decoding: asyncSVG, as: UTF8.self))
      let syncSVGText = Self.withoutIDNumbers(String(decoding: try syncSVG(), as: UTF8.self))
      #expect(svg == syncSVGText)
      #expect(svg.components(separatedBy: "<use").count > 100)
    }
  }

  /// `id="surface12"`, `href="#glyph0-3"` → `id="surface"`, `href="#glyph"`.
  static func withoutIDNumbers(_ svg: String) -> String {
    svg.replacing(/(id="|#)(glyph|surface|image|clip|pattern|mask|source)[0-9-]+/) { match in
      "\(match.output.1)\(match.output.2)"
    }
  }

  static func sampleDocument() -> ReportDocument {
    let words = ReportLayoutTests.numberedWords(600)
    let rows = (0..<45).map { row in ["k\(1000 + row)", "value \(row)"] }
    var document = ReportDocument(
      title: "Output test", pageSize: Size(width: 360, height: 400), margins: EdgeInsets(all: 36))
    document.addHeading("Words")
    document.addParagraph(words.joined(separator: " "))
    document.addHeading("Table", level: 2)
    document.addTable(ReportTable(columns: ["Keycol", "Valuecol"], rows: rows))
    return document
  }

  @Test("a multi-page report cancelled after its first page: the rest leave the queue, the call throws")
  func reportCancelledPartWay() async throws {
    // On dispatch threads: the cooperative pool may be busy with the suite's other tests.
    try await withTaskExecutorPreference(QueuePoolAsyncTests.executor) { () async throws -> Void in
      let records = Records()
      let task = Mutex<Task<[RenderedImage], any Error>?>(nil)
      // The observer runs on the worker before it takes the next page: cancelling there is
      // deterministic — the first page completed, every other one still queued.
      let pool = QueuePool(queueCount: 1, name: "test.pages") { record in
        records.add(record)
        if record.outcome == .completed { task.withLock { $0 }?.cancel() }
      }
      defer { pool.shutdown() }
      let (layout, _, _) = try ReportOutputTests.sampleLayout()
      let count = layout.pages.count
      #expect(count >= 4)
      let release = await QueuePoolAsyncTests.hold(pool)
      task.withLock {
        $0 = Task(executorPreference: QueuePoolAsyncTests.executor) { try await layout.renderPages(scale: 1, on: pool) }
      }
      #expect(await QueuePoolAsyncTests.until { pool.pendingCount == 1 + count })
      release.open()
      await #expect(throws: CancellationError.self) { try await task.withLock { $0 }!.value }
      #expect(records.outcomes.first == .completed)
      #expect(records.outcomes.dropFirst().allSatisfy { $0 == .cancelledWhileQueued })
      #expect(records.outcomes.count == count)
    }
  }

  @Test("PDF and SVG writing stop at the check after a cancel")
  func vectorOutputsStop() throws {
    let (layout, _, _) = try ReportOutputTests.sampleLayout()
    for output in ["pdf", "svg"] {
      var checks = 0
      let isCancelled = {
        checks += 1
        return checks > 5
      }
      #expect(throws: CancellationError.self) {
        _ =
          output == "pdf"
          ? try layout.pdfData(isCancelled: isCancelled) : try layout.svgData(pageGap: 0, isCancelled: isCancelled)
      }
      #expect(checks == 6, "\(output)")
    }
  }

  @Test("pagination stops before its next block once cancelled")
  func paginationStops() throws {
    var checks = 0
    #expect(throws: CancellationError.self) {
      try ReportLayout(
        Self.sampleDocument(),
        isCancelled: {
          checks += 1
          return checks > 1
        })
    }
    #expect(checks == 2)
  }

  @Test("a long run wrapped between characters is refused before Pango, naming the limit")
  func unbrokenRunsAreRefused() throws {
    let khmerWords = ["ភាសា", "ខ្មែរ", "មិន", "ដក", "ឃ្លា", "រវាង", "ពាក្យ"]
    let joined = String(repeating: khmerWords.joined(), count: 20)  // about 2 KiB, no space
    var limits = TextLimits()
    limits.maximumUnbrokenBytes = 1024
    func tile(_ text: String, wrap: WrapMode = .word) -> TextTile {
      var style = TextStyle(font: "Khmer OS 14")
      style.wrap = wrap
      var tile = TextTile(.plain(text), style: style, width: 200, height: 100)
      tile.limits = limits
      return tile
    }
    do {
      _ = try tile(joined).render()
      Issue.record("a 2 KiB Khmer run without a space was laid out")
    } catch RenderError.invalidValue(let name, let value, let expected) {
      #expect(name == "text" && value.contains("without a space"))
      #expect(expected.contains("TextLimits.maximumUnbrokenBytes") && expected.contains("1024"))
    }
    // Zero-width spaces between words, as Khmer is usually typed: accepted.
    _ = try tile(String(repeating: khmerWords.joined(separator: "\u{200B}") + "\u{200B}", count: 20)).render()
    // Latin letters wrap between characters only in .wordChar.
    let letters = String(repeating: "abcdefghij", count: 200)
    #expect(throws: RenderError.self) { try tile(letters, wrap: .wordChar).render() }
    _ = try tile(letters, wrap: .word).render()
    _ = try tile(letters, wrap: .char).render()
    #expect(TextLimits.longestUnbrokenRun("ab cd\u{200B}efg\u{2029}h") == 3)
    #expect(TextLimits.longestUnbrokenRun("漢字漢字") == 0)
    #expect(TextLimits().maximumUnbrokenBytes == 16 << 10)
  }
}
