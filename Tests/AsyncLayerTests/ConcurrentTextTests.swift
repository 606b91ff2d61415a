import AsyncLayerTestSupport
import Dispatch
import Foundation
import Testing

@_spi(Benchmarks) @testable import AsyncLayer

/// Text drawn on several threads at once must be exactly what one thread alone draws, whatever the
/// fonts and scripts. Before the thread-safe font map these tests crashed the process (cairo 1.16
/// closes and reopens FreeType faces shared by every thread; see `Text/FontFaceStore.swift`).
@Suite("Concurrent text")
struct ConcurrentTextTests {
  /// TSan slows the Swift side ~10×: fewer tiles there, the same mix.
  static let underThreadSanitizer = dlsym(nil, "__tsan_acquire") != nil

  /// What identifies a rendered tile: size, a hash of every pixel, and the layout's answers.
  struct Fingerprint: Hashable, CustomStringConvertible {
    var pixelWidth: Int
    var pixelHeight: Int
    var pixelHash: Int
    var lineCount: Int
    var unknownGlyphs: Int

    init(_ result: RenderedText) {
      pixelWidth = result.image.pixelWidth
      pixelHeight = result.image.pixelHeight
      var hasher = Hasher()
      result.image.pixels.withUnsafeBytes { hasher.combine(bytes: $0) }
      pixelHash = hasher.finalize()
      lineCount = result.lineCount
      unknownGlyphs = result.unknownGlyphCount
    }

    var description: String { "\(pixelWidth)×\(pixelHeight) px, \(lineCount) lines, hash \(pixelHash)" }
  }

  /// Tile `index` of the mixed workload, through cairo's glyph path for every third tile.
  static func tile(_ index: Int) -> TextTile {
    var tile = MixedTextWorkload.tile(index)
    tile.glyphCompositing = index % 3 == 0 ? .cairo : .threadCache
    return tile
  }

  /// Runs `body(thread)` on `count` new threads at once and waits for all of them.
  static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
      group.enter()
      let thread = Thread {
        body(index)
        group.leave()
      }
      thread.stackSize = 4 << 20
      thread.start()
    }
    group.wait()
  }

  @Test("thousands of mixed-font, mixed-script tiles on 4 threads equal the single-thread render")
  func mixedTilesOnFourThreads() throws {
    let distinct = Self.underThreadSanitizer ? 80 : 300
    let passes = Self.underThreadSanitizer ? 1 : 2
    let threadCount = 4
    // The reference: every tile rendered alone, one after another, on a thread of its own.
    let reference = Mutex([Fingerprint?](repeating: nil, count: distinct))
    Self.onThreads(1) { _ in
      for index in 0..<distinct {
        let fingerprint = (try? Self.tile(index).render()).map(Fingerprint.init)
        reference.withLock { $0[index] = fingerprint }
      }
    }
    let expected = reference.withLock { $0 }
    #expect(expected.allSatisfy { $0 != nil }, "every tile renders alone")
    #expect(Set(expected.compactMap { $0?.pixelHash }).count > distinct * 9 / 10, "the tiles differ")
    #expect(expected.contains { ($0?.unknownGlyphs ?? 1) == 0 })

    // Each thread walks every tile `passes` times in its own order, so different fonts, sizes
    // and scales meet on different threads at the same moment.
    let mismatches = Mutex<[String]>([])
    let rendered = Mutex(0)
    Self.onThreads(threadCount) { thread in
      var random = SplitMix64(seed: UInt64(thread) &* 7919 &+ 1)
      for _ in 0..<passes {
        for index in (0..<distinct).shuffled(using: &random) {
          let got = (try? Self.tile(index).render()).map(Fingerprint.init)
          rendered.withLock { $0 += 1 }
          if got != expected[index] {
            let message = "tile \(index) on thread \(thread): \(got.map(\.description) ?? "error")"
            mismatches.withLock { $0.append(message + ", expected \(expected[index]!)") }
          }
        }
      }
    }
    #expect(rendered.withLock { $0 } == distinct * passes * threadCount)
    let failures = mismatches.withLock { $0 }
    #expect(failures.isEmpty, "\(failures.count) tiles differ, first: \(failures.prefix(3))")
  }
}

extension ConcurrentTextTests {
  /// Gives `layer` the text, style, width and scale of workload tile `index`.
  static func configure(_ layer: TextLayer, tile index: Int) {
    let tile = MixedTextWorkload.tile(index)
    layer.text = tile.content
    layer.style = tile.style
    layer.contentsScale = tile.scale
    layer.size = Size(width: tile.width, height: 120)
  }

  @Test("text layers on a 2-queue pool, changed while their draws run, settle to the synchronous render")
  func layersChangedMidDrawSettleToTheirSynchronousRender() throws {
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let steps = Self.underThreadSanitizer ? 60 : 300
    let layers = (0..<12).map { _ in
      let layer = TextLayer(loop: loop, pool: pool)
      layer.isOpaque = true
      layer.padding = EdgeInsets(all: 4)
      return layer
    }
    var random = SplitMix64(seed: 2026)
    for layer in layers { Self.configure(layer, tile: random.next(below: 10_000)) }
    // Each turn starts the draws of the layers changed in the one before; the next changes land
    // while those draws run on the pool, cancelling some mid-draw.
    // Every fourth turn lets all draws finish, so that both queues also draw side by side to the end.
    for step in 0..<steps {
      for _ in 0..<3 {
        Self.configure(layers[random.next(below: layers.count)], tile: random.next(below: 10_000))
      }
      loop.runOnce()
      if step % 4 == 3 { #expect(loop.run(until: { layers.allSatisfy { !$0.isDisplayPending } })) }
    }
    #expect(loop.run(until: { layers.allSatisfy { !$0.isDisplayPending } }))
    let cancelled = layers.map { $0.statistics }.reduce(0) {
      $0 + $1.cancelledMidDraw + $1.cancelledBeforeStart + $1.discardedAtCommit
    }
    let committed = layers.map { $0.statistics.committed }.reduce(0, +)
    #expect(cancelled > 0, "some draws were cancelled in flight")
    #expect(committed >= steps / 4, "draws ran to the end too")
    for (index, layer) in layers.enumerated() {
      let twin = TextLayer(loop: loop, pool: pool)
      twin.displaysAsynchronously = false
      twin.isOpaque = true
      twin.padding = layer.padding
      twin.text = layer.text
      twin.style = layer.style
      twin.contentsScale = layer.contentsScale
      twin.size = layer.size
      loop.runOnce()
      let expected = try #require(twin.contents)
      #expect(layer.contents == expected, "layer \(index) differs from its synchronous render")
    }
  }
}

extension ConcurrentTextTests {
  @Test("report pages in mixed scripts rendered in parallel equal the pages rendered one by one")
  func reportPagesInParallelEqualSequentialPages() async throws {
    var report = ReportDocument(title: "Mixed", pageSize: .a4, margins: EdgeInsets(all: 40))
    for index in 0..<(Self.underThreadSanitizer ? 12 : 40) {
      report.addHeading("Section \(index) — 节 \(index)", level: index % 3 == 0 ? 1 : 2)
      report.addParagraph(MixedTextWorkload.texts[index % MixedTextWorkload.texts.count])
      if index % 5 == 0 {
        report.addTable(
          ReportTable(columns: ["Item", "数量", "السعر"], rows: (0..<6).map { ["Row \($0) 行", "\($0)", "\($0 * 3)"] }))
      }
    }
    let layout = try ReportLayout(report)
    #expect(layout.pages.count >= (Self.underThreadSanitizer ? 2 : 4))
    let sequential = try layout.pages.indices.map { try layout.renderPage($0, scale: 1.5) }
    for _ in 0..<(Self.underThreadSanitizer ? 1 : 3) {
      let parallel = try await layout.renderPages(scale: 1.5)
      #expect(parallel == sequential)
    }
  }
}
