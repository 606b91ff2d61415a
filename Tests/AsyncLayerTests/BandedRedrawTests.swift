import AsyncLayerTestSupport
import Foundation
import Synchronization
import Testing

@testable import AsyncLayer

/// A large text layer redrawn over its previous pixels draws only the lines that changed, and every
/// result equals a full draw of the same state, pixel for pixel: across scripts, markup, edits at
/// the end, the start and the middle, draws on different threads and draws cancelled part-way.
@Suite("Banded redraw")
struct BandedRedrawTests {
  // MARK: The record

  static func band(_ signature: Int, _ rows: Range<Int>) -> BandRecord.Band {
    BandRecord.Band(signature: signature, rows: rows)
  }

  @Test("the damage covers the bands that differ, old and new, and nothing else")
  func damageOfAnAppend() throws {
    let old = BandRecord(key: 1, bands: [Self.band(1, 0..<10), Self.band(2, 12..<22), Self.band(3, 24..<34)])
    var new = old
    new.bands[2] = Self.band(4, 24..<34)
    new.bands.append(Self.band(5, 36..<46))
    let damage = try #require(BandRecord.damage(from: old, to: new, height: 100))
    #expect(damage == BandRecord.Damage(rows: 24..<46, oldBands: 2..<3, newBands: 2..<4))
    #expect(BandRecord.damage(from: old, to: old, height: 100)?.rows.isEmpty == true)
    #expect(BandRecord.damage(from: old, to: BandRecord(key: 2, bands: old.bands), height: 100) == nil)
  }

  @Test("a kept band whose ink reaches into the damage is drawn again, with every band between")
  func keptBandsReachingIn() throws {
    // Band 0's ink (a tall mark) reaches down to row 30, past band 1 and into band 2's rows.
    let old = BandRecord(
      key: 1,
      bands: [Self.band(1, 0..<30), Self.band(2, 12..<22), Self.band(3, 24..<34), Self.band(6, 36..<46)])
    var new = old
    new.bands[2] = Self.band(4, 25..<34)
    let damage = try #require(BandRecord.damage(from: old, to: new, height: 100))
    #expect(damage == BandRecord.Damage(rows: 0..<34, oldBands: 0..<3, newBands: 0..<3))
  }

  @Test("a change in the middle keeps the bands below it; rows past the image are not drawn")
  func middleChangeAndClamping() throws {
    let old = BandRecord(key: 1, bands: [Self.band(1, 0..<10), Self.band(2, 12..<22), Self.band(3, 24..<34)])
    var new = old
    new.bands[1] = Self.band(9, 12..<22)
    #expect(
      BandRecord.damage(from: old, to: new, height: 100)
        == BandRecord.Damage(rows: 12..<22, oldBands: 1..<2, newBands: 1..<2))
    new = old
    new.bands.append(Self.band(7, 120..<130))  // below the image's 100 rows
    #expect(BandRecord.damage(from: old, to: new, height: 100)?.rows.isEmpty == true)
  }

  @Test("rows a cancelled draw wrote match nothing: the next draw redraws them")
  func garbageRows() throws {
    let old = BandRecord(key: 1, bands: [Self.band(1, 0..<10), Self.band(2, 12..<22), Self.band(3, 24..<34)])
    var new = old
    new.bands[2] = Self.band(4, 24..<34)
    let damage = try #require(BandRecord.damage(from: old, to: new, height: 100))
    let partWritten = old.invalidating(damage)
    #expect(partWritten.bands.count == 3)
    #expect(partWritten.bands[2].isGarbage)
    // Back to the old state: the rows the cancelled draw touched are drawn again.
    #expect(BandRecord.damage(from: partWritten, to: old, height: 100)?.rows == 24..<34)
  }

  @Test(
    "every line's drawn ink lies inside its band's rows: 120 tiles of mixed families, weights, sizes, scales, scripts")
  func bandsHoldTheInk() throws {
    var lines = 0
    for index in 0..<120 {
      let tile = MixedTextWorkload.tile(index)
      let origin = Point(x: 4, y: 4)
      let layout = try TextLayout(tile.content, style: tile.style, width: tile.width - 8, scale: tile.scale)
      let bands = layout.bands(origin: origin, scale: tile.scale)
      #expect(bands.count == layout.lines.count)
      let renderer = try ImageRenderer(
        size: Size(width: tile.width, height: (layout.size.height + 8).rounded(.up)), scale: tile.scale)
      for (line, band) in bands.enumerated() {
        let image = try renderer.render { context in _ = context.draw(layout, at: origin, lines: line..<(line + 1)) }
        let inked = (0..<image.pixelHeight).filter { y in
          (0..<image.pixelWidth).contains { x in image.pixel(x: x, y: y) != 0 }
        }
        guard let first = inked.first, let last = inked.last else { continue }
        lines += 1
        #expect(
          band.rows.contains(first) && band.rows.contains(last),
          "tile \(index) line \(line): ink rows \(first)…\(last) outside \(band.rows)")
      }
    }
    #expect(lines > 150)
  }

  // MARK: Layers

  /// A document of every script the workload has, one paragraph per text, repeated.
  static let document: String = {
    var paragraphs: [String] = []
    for _ in 0..<3 {
      for content in MixedTextWorkload.texts {
        if case .plain(let text) = content { paragraphs.append(text) }
      }
    }
    return paragraphs.joined(separator: "\n")
  }()

  /// 600 × 1 800 points at 2×: 17.3 MB, over the recycler's minimum, so draws reuse the spare.
  static let documentHeight: Double = 1800

  static func documentLayer(loop: MainLoop, pool: QueuePool? = nil, async: Bool = false) -> TextLayer {
    let layer = pool.map { TextLayer(loop: loop, pool: $0) } ?? TextLayer(loop: loop)
    // Tall enough for the whole document with room to spare: with 1,400 pt its last line (44 lines of
    // mixed scripts) sat within a line of the bottom edge, so a fallback font registered by a test running
    // beside it could push that line out of view, and the last edit ("x" appended) then drew nothing.
    layer.size = Size(width: 600, height: Self.documentHeight)
    layer.contentsScale = 2
    layer.backgroundColor = .white
    layer.isOpaque = true
    layer.padding = EdgeInsets(top: 8, left: 12, bottom: 8, right: 12)
    layer.style = TextStyle(fontFamily: "Sans", fontSize: 15)
    layer.displaysAsynchronously = async
    return layer
  }

  /// A full draw of `text` in a layer with no previous pixels.
  static func fullDraw(_ text: TextContent, loop: MainLoop) throws -> RenderedImage {
    let layer = documentLayer(loop: loop)
    layer.text = text
    loop.runOnce()
    return try #require(layer.contents)
  }

  /// Expects equal images, naming the rows that differ (printing megapixel images helps no one).
  static func expectSame(
    _ image: RenderedImage, _ expected: RenderedImage, _ comment: some StringProtocol,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    guard image.pixelWidth == expected.pixelWidth, image.pixelHeight == expected.pixelHeight else {
      Issue.record("sizes differ: \(comment)", sourceLocation: sourceLocation)
      return
    }
    let width = image.pixelWidth
    let rows = (0..<image.pixelHeight).filter { y in
      image.pixels[(y * width)..<((y + 1) * width)] != expected.pixels[(y * width)..<((y + 1) * width)]
    }
    #expect(
      rows.isEmpty, "rows \(rows.first ?? 0)…\(rows.last ?? 0) differ (\(rows.count)): \(comment)",
      sourceLocation: sourceLocation)
  }

  /// Edits of every kind, each a new text state.
  static let edits: [@Sendable (String) -> String] = [
    { $0 + " typed" },
    { $0 + " 🎉" },
    { $0 + " 描画" },
    { $0 + " العربية" },
    { $0 + "\nA new paragraph हिन्दी ไทย" },
    { String($0.dropLast(3)) },
    { "Inserted at the start. " + $0 },
    { text in  // a word in the middle
      let middle = text.index(text.startIndex, offsetBy: text.count / 2)
      return String(text[..<middle]) + " wörd " + String(text[middle...])
    },
    { text in  // a character in the middle removed
      var text = text
      text.remove(at: text.index(text.startIndex, offsetBy: text.count / 3))
      return text
    },
    { $0 + "x" },
  ]

  @Test("typing, inserting and deleting: each draw equals a full draw, and later draws redraw few lines")
  func editsMatchFullDraws() throws {
    let fonts = FontRegistrationWatch()
    let loop = MainLoop(clock: .manual)
    let layer = Self.documentLayer(loop: loop)
    let reports = Mutex<[TextDrawReport]>([])
    layer.drawReportHandler = { report in reports.withLock { $0.append(report) } }
    var text = Self.document
    layer.text = .plain(text)
    loop.runOnce()
    for (index, edit) in Self.edits.enumerated() {
      text = edit(text)
      layer.text = .plain(text)
      loop.runOnce()
      Self.expectSame(try #require(layer.contents), try Self.fullDraw(.plain(text), loop: loop), "edit \(index)")
    }
    let all = reports.withLock { $0 }
    // Every edit is in view only while the whole text fits: the premise of the counts below.
    let whole = try TextLayout(.plain(text), style: layer.style, width: 600 - 24, scale: 2)
    #expect(whole.size.height < Self.documentHeight - 16 - 200)
    try #require(all.count == Self.edits.count + 1)
    // The first draw drew everything. The second had no spare yet: it copied the shown contents
    // and drew what changed. Typing at the end redraws a few lines.
    #expect(all[0].linesToDraw == all[0].lineCount)
    let typed = all[3]  // " 描画" after " 🎉": the spare shows the state before " typed"
    #expect(typed.lineCount > 40)
    guard fonts.fontsUnchanged else { return }
    #expect(all[1].linesToDraw >= 1 && all[1].linesToDraw <= 4, "\(all[1])")
    #expect(typed.linesToDraw >= 1 && typed.linesToDraw <= 4, "\(typed)")
    #expect(all.last!.linesToDraw <= 4)
  }

  @Test("markup with colours, underlines and fonts: edits match full draws")
  func markupEditsMatchFullDraws() throws {
    let loop = MainLoop(clock: .manual)
    let layer = Self.documentLayer(loop: loop)
    let base =
      "<span foreground=\"#b01010\">red</span> <u>underlined</u> <b>bold</b> <span font_family=\"Serif\">serif</span> "
    var body = String(repeating: base + "العربية 描画 हिन्दी ", count: 30)
    for edit in [
      { (body: String) in body + "<span foreground=\"#1010b0\">blue</span>" },
      { body in body + " <s>struck</s>" },
      { body in body.replacingFirst("red", with: "RED") },
      { body in body + " <span background=\"#ffe080\">highlighted</span>" },
    ] {
      body = edit(body)
      layer.text = .markup(body)
      loop.runOnce()
      Self.expectSame(try #require(layer.contents), try Self.fullDraw(.markup(body), loop: loop), body.suffix(40))
    }
  }

  @Test("a line's signature is the same on another thread (another font map)")
  func signaturesAcrossThreads() throws {
    @Sendable func signatures() throws -> [Int] {
      let layout = try TextLayout(
        .plain(Self.document), style: TextStyle(fontFamily: "Sans", fontSize: 15), width: 576, scale: 2)
      return layout.bands(origin: Point(x: 12, y: 8), scale: 2).map(\.signature)
    }
    let here = try signatures()
    let there = Mutex<[Int]>([])
    let done = Gate()
    let thread = Thread {
      there.withLock { $0 = (try? signatures()) ?? [] }
      done.open()
    }
    thread.start()
    #expect(done.enter())
    #expect(here.count > 40)
    #expect(there.withLock { $0 } == here)
  }

  /// A full draw of `layer`'s current state, on this thread, in a layer with no previous pixels.
  static func fullDraw(like layer: TextLayer) throws -> RenderedImage {
    let twin = layer.synchronousTwin()
    twin.display()
    return try #require(twin.contents)
  }

  @Test("four layers of different families, weights, sizes and scales, edited together on two queues, match full draws")
  func concurrentLayersMatchFullDraws() throws {
    let fonts = FontRegistrationWatch()
    let loop = MainLoop(clock: .manual)
    let pool = QueuePool(queueCount: 2)
    defer { pool.shutdown() }
    let styles = [
      (TextStyle(fontFamily: "Serif", fontSize: 14, weight: .bold), 2.0),
      (TextStyle(fontFamily: "Noto Sans CJK SC", fontSize: 17), 1.5),
      (TextStyle(fontFamily: "DejaVu Sans", fontSize: 13, isItalic: true), 2.5),
      (TextStyle(fontFamily: "Sans", fontSize: 18, weight: .light), 2.0),
    ]
    let reports = Mutex<[TextDrawReport]>([])
    var texts: [String] = []
    var layers: [TextLayer] = []
    for (index, (style, scale)) in styles.enumerated() {
      let layer = Self.documentLayer(loop: loop, pool: pool, async: true)
      layer.size = Size(width: 600, height: 2000)
      layer.contentsScale = scale
      layer.style = style
      layer.drawReportHandler = { report in reports.withLock { $0.append(report) } }
      texts.append(String(Self.document.dropFirst(index * 40)))
      layer.text = .plain(texts[index])
      layers.append(layer)
    }
    for round in 0..<8 {
      for (index, layer) in layers.enumerated() {
        texts[index] = Self.edits[(round + index) % Self.edits.count](texts[index])
        layer.text = .plain(texts[index])
      }
      loop.runOnce()
      #expect(loop.run(until: { layers.allSatisfy { !$0.isDisplayPending } }))
      for (index, layer) in layers.enumerated() {
        Self.expectSame(
          try #require(layer.contents), try Self.fullDraw(like: layer), "round \(round), layer \(index)")
      }
    }
    // Most draws after the first rounds were banded: fewer lines drawn than the layout has.
    let banded = reports.withLock { $0.filter { $0.linesToDraw < $0.lineCount }.count }
    if fonts.fontsUnchanged { #expect(banded >= 16, "\(banded) banded draws") }
  }

  @Test("a draw cancelled part-way leaves rows that the next draw redraws, even back to the old text")
  func cancelledDrawLeavesNoTrace() throws {
    let fonts = FontRegistrationWatch()
    let loop = MainLoop(clock: .manual)
    // One queue: the next draw starts after the cancelled one has given the spare back.
    let pool = QueuePool(queueCount: 1)
    defer { pool.shutdown() }
    let layer = Self.documentLayer(loop: loop, pool: pool, async: true)
    let reports = Mutex<[TextDrawReport]>([])
    layer.drawReportHandler = { report in reports.withLock { $0.append(report) } }
    let original = Self.document
    for text in [original, original + " b"] {
      layer.text = .plain(text)
      loop.runOnce()
      #expect(loop.run(until: { !layer.isDisplayPending }))
    }
    // The spare shows `original`. A long addition is drawn over it and stopped after two of its
    // lines (poll 1 follows the layout, poll n + 1 precedes line n); then the text goes back.
    let polls = Atomic<Int>(0)
    let reached = Gate()
    let resume = Gate()
    layer.cancellationPollHook = {
      if polls.add(1, ordering: .relaxed).newValue == 4 {
        reached.open()
        resume.enter()
      }
    }
    layer.text = .plain(original + String(repeating: " a long addition of several lines", count: 12))
    loop.runOnce()
    #expect(reached.enter())
    layer.text = .plain(original)
    resume.open()
    #expect(loop.run(until: { !layer.isDisplayPending }))
    Self.expectSame(
      try #require(layer.contents), try Self.fullDraw(.plain(original), loop: loop), "back to the original")
    let all = reports.withLock { $0 }
    try #require(all.count == 4)
    #expect(all[2].wasCancelled && all[2].linesDrawn == 2 && all[2].linesToDraw > 3, "\(all[2])")
    // The last draw redrew the rows the cancelled one wrote, not the whole document.
    if fonts.fontsUnchanged {
      #expect(all[3].linesToDraw >= 1 && all[3].linesToDraw < all[3].lineCount / 2, "\(all[3])")
    }
    #expect(layer.statistics.cancelledMidDraw == 1)
  }
}

extension String {
  fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
    var copy = self
    if let range = copy.firstRange(of: target) { copy.replaceSubrange(range, with: replacement) }
    return copy
  }
}
