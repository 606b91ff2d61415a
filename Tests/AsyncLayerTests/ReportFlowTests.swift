import AsyncLayer
import Foundation
import Testing

/// Page flow: widow and orphan control, keep-together, a heading never ending a page, forced
/// breaks and first-page templates.
@Suite("Report page flow")
struct ReportFlowTests {
  static let long = Array(repeating: "words that wrap onto several lines of a small page", count: 12)
    .joined(separator: " ")

  /// A small page with `fillers` one-line paragraphs, then the paragraph under test (block `fillers`).
  static func document(fillers: Int, widows: Int = 2, orphans: Int = 2) -> ReportDocument {
    var style = ReportStyle(fontFamily: "DejaVu Sans", bodySize: 10)
    style.widows = widows
    style.orphans = orphans
    var document = ReportDocument(
      pageSize: Size(width: 300, height: 220), margins: EdgeInsets(all: 20), style: style, showsPageNumbers: false)
    for _ in 0..<fillers { document.addParagraph("filler") }
    document.addParagraph(long)
    return document
  }

  /// The number of lines block `index` has on each page it is on, in page order.
  static func slices(of index: Int, in layout: ReportLayout) -> [Int] {
    layout.pages.compactMap { page in
      let lines = page.textRuns.filter { $0.blockIndex == index }.reduce(0) { $0 + $1.lines.count }
      return lines > 0 ? lines : nil
    }
  }

  @Test("no break leaves fewer than 2 lines of a paragraph at a page's bottom or top; with 1 and 1 some do")
  func widowsAndOrphans() throws {
    var controlledBreaks = 0
    var loneLines = 0
    for fillers in 0..<14 {
      let controlled = Self.slices(of: fillers, in: try ReportLayout(Self.document(fillers: fillers)))
      if controlled.count > 1 {
        controlledBreaks += 1
        #expect(controlled.first! >= 2 && controlled.last! >= 2, "fillers \(fillers): \(controlled)")
      }
      let free = Self.slices(of: fillers, in: try ReportLayout(Self.document(fillers: fillers, widows: 1, orphans: 1)))
      if free.count > 1, free.first! == 1 || free.last! == 1 { loneLines += 1 }
      // No line lost or repeated either way.
      #expect(controlled.reduce(0, +) == free.reduce(0, +))
    }
    #expect(controlledBreaks > 3)
    #expect(loneLines > 0, "the uncontrolled layout never left a lone line: the test would prove nothing")
  }

  @Test("a kept-together paragraph moves whole to the next page; without the option it breaks")
  func keepTogether() throws {
    var tried = 0
    for fillers in 0..<14 {
      var document = Self.document(fillers: fillers)
      let broken = Self.slices(of: fillers, in: try ReportLayout(document))
      guard broken.count == 2 else { continue }
      tried += 1
      document.blocks[fillers] = .flow(document.blocks[fillers], .keepTogether)
      let layout = try ReportLayout(document)
      #expect(Self.slices(of: fillers, in: layout) == [broken.reduce(0, +)])
      // It starts the page it is on.
      let page = try #require(layout.pages.first { $0.textRuns.contains { $0.blockIndex == fillers } })
      #expect(page.textRuns.first?.blockIndex == fillers)
    }
    #expect(tried > 2)
  }

  @Test("a heading never ends a page, whatever follows it")
  func headingNeverEndsAPage() throws {
    let image = try ImageRenderer(size: Size(width: 100, height: 60), scale: 1).render { $0.clear(to: .black) }
    let followers: [ReportBlock] = [
      .paragraph(.plain(Self.long)), .image(image),
      .list(ReportList(items: [ReportListItem(Self.long)])),
      .table(ReportTable(columns: ["A", "B"], rows: [["1", "2"], ["3", "4"]])),
    ]
    var checked = 0
    for follower in followers {
      for fillers in 0..<14 {
        var document = Self.document(fillers: fillers)
        document.blocks[fillers] = .heading("Heading", level: 2)
        document.blocks.append(follower)
        let layout = try ReportLayout(document)
        for page in layout.pages.dropLast() {
          let last = page.textRuns.last { $0.role != .footer && $0.role != .header }
          #expect(last?.role != .heading(level: 2), "\(follower) after \(fillers) fillers")
        }
        checked += 1
      }
    }
    #expect(checked == 56)
  }

  @Test("keepWithNext keeps any block on the page of the next one's start")
  func keepWithNext() throws {
    var moved = 0
    for fillers in 0..<14 {
      var document = Self.document(fillers: fillers)
      document.blocks[fillers] = .flow(.paragraph(.plain("Label")), .keepWithNext)
      document.blocks.append(.paragraph(.plain(Self.long)))
      let layout = try ReportLayout(document)
      let labelPage = layout.pages.firstIndex { $0.textRuns.contains { $0.blockIndex == fillers } }
      let nextPage = layout.pages.firstIndex { $0.textRuns.contains { $0.blockIndex == fillers + 1 } }
      #expect(labelPage == nextPage, "fillers \(fillers)")
      if labelPage ?? 0 > 0 && fillers < 12 { moved += 1 }
    }
    #expect(moved > 0)
  }

  @Test("a page break starts the next block on a new page, and adds no blank page at a page's top")
  func forcedBreak() throws {
    var document = Self.document(fillers: 1)
    document.blocks = [.paragraph(.plain("one")), .pageBreak, .pageBreak, .paragraph(.plain("two"))]
    let layout = try ReportLayout(document)
    try #require(layout.pages.count == 2)
    #expect(layout.pages[1].textRuns.first?.blockIndex == 3)
    #expect(layout.pages[1].textRuns.first?.frame.minY == 20)
  }

  @Test("the first page has its own header and footer; the others the document's")
  func firstPageTemplates() throws {
    var document = Self.document(fillers: 20)
    document.showsPageNumbers = true
    document.header = "running {page}"
    document.footer = "p{page}"
    document.firstPageHeader = ""
    document.firstPageFooter = "cover"
    let layout = try ReportLayout(document)
    try #require(layout.pages.count >= 2)
    #expect(!layout.pages[0].textRuns.contains { $0.role == .header })
    #expect(layout.pages[0].textRuns.first { $0.role == .footer }?.content == .plain("cover"))
    #expect(layout.pages[1].textRuns.first { $0.role == .header }?.content == .plain("running 2"))
    #expect(layout.pages[1].textRuns.first { $0.role == .footer }?.content == .plain("p2"))
  }

  @Test("contents lines with leaders draw dots between the title and the page number")
  func leaderDots() throws {
    var document = ReportDocument(pageSize: Size(width: 300, height: 300), margins: EdgeInsets(all: 20))
    document.style = ReportStyle(fontFamily: "DejaVu Sans", bodySize: 10)
    document.style.contentsLeaders = true
    document.addTableOfContents()
    document.addHeading("Intro")
    document.addParagraph("text")
    let layout = try ReportLayout(document)
    let runs = layout.pages[0].textRuns
    let title = try #require(runs.first { $0.role == .tableOfContents(entry: 0) })
    let number = try #require(runs.last { $0.role == .tableOfContents(entry: 0) })
    let leader = try #require(runs.first { $0.role == .contentsLeader(entry: 0) })
    #expect(leader.content.source.contains(". . ."))
    let image = try layout.renderPage(0, scale: 2)
    // Ink in the middle of the gap between "Intro" and the number, on the title's line.
    let lineRows = Int(title.frame.minY * 2)..<Int(title.frame.maxY * 2)
    let gap = Int((title.frame.minX + 60) * 2)..<Int((number.frame.maxX - 40) * 2)
    let inkInGap = lineRows.contains { y in gap.contains { x in image.isInkAt(x: x, y: y) } }
    #expect(inkInGap)
    document.style.contentsLeaders = false
    let plain = try ReportLayout(document).renderPage(0, scale: 2)
    #expect(!lineRows.contains { y in gap.contains { x in plain.isInkAt(x: x, y: y) } })
  }
}

extension RenderedImage {
  /// True where the pixel is noticeably darker than white.
  func isInkAt(x: Int, y: Int) -> Bool {
    let c = color(x: x, y: y)
    return c.red + c.green + c.blue < 2.7
  }
}
