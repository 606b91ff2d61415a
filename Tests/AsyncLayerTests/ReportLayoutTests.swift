import AsyncLayer
import Foundation
import Testing

/// Pagination: paragraphs split between lines, tables repeat their header, rows move whole,
/// images fit the width, headings stay with what follows.
@Suite struct ReportLayoutTests {
  /// "w0001 w0002 …": words whose order can be checked after extraction.
  static func numberedWords(_ count: Int, prefix: String = "w") -> [String] {
    (1...count).map { prefix + String(repeating: "0", count: 4 - String($0).count) + String($0) }
  }

  static let smallPage = Size(width: 300, height: 320)

  @Test func paragraphLongerThanAPageContinuesWithoutLosingOrRepeatingLines() throws {
    let words = Self.numberedWords(700)
    var document = ReportDocument(pageSize: Self.smallPage, margins: EdgeInsets(all: 30))
    document.addHeading("Flow")
    document.addParagraph(words.joined(separator: " "))
    let layout = try ReportLayout(document)
    let runs = layout.pages.flatMap(\.textRuns).filter { $0.role == .paragraph }
    #expect(layout.pages.count >= 3)
    // The paragraph appears on several pages, its line ranges contiguous from 0 to the last line.
    let whole = try TextLayout(
      .plain(words.joined(separator: " ")), style: document.style.body,
      width: layout.contentRect.width)
    #expect(Set(runs.map { run in layout.pages.firstIndex { $0.textRuns.contains(run) }! }).count >= 3)
    #expect(runs.first?.lines.lowerBound == 0)
    #expect(runs.last?.lines.upperBound == whole.lines.count)
    for (previous, next) in zip(runs, runs.dropFirst()) {
      #expect(previous.lines.upperBound == next.lines.lowerBound)
    }
    // Every line stays inside the content area.
    for run in runs {
      #expect(run.frame.minY >= layout.contentRect.minY - 0.01)
      #expect(run.frame.maxY <= layout.contentRect.maxY + 0.01)
    }
  }

  @Test func tableHeaderRepeatsAndRowsAreNotSplit() throws {
    let rows = (0..<60).map { row in ["r\(row)a", "row \(row) of the table", "\(row * 7)"] }
    var document = ReportDocument(pageSize: Self.smallPage, margins: EdgeInsets(all: 30))
    document.addParagraph("Before the table.")
    document.addTable(ReportTable(columns: ["Alpha", "Beta", "Gamma"], widths: [1, 2, 1], rows: rows))
    let layout = try ReportLayout(document)
    #expect(layout.pages.count >= 3)
    var pagesOfRow: [Int: Set<Int>] = [:]
    for page in layout.pages {
      let runs = page.textRuns
      let headers = runs.filter { if case .tableHeader = $0.role { return true } else { return false } }
      let cells = runs.filter { if case .tableCell = $0.role { return true } else { return false } }
      guard !cells.isEmpty else { continue }
      // The header row is on this page, above every cell.
      #expect(headers.count == 3, "page \(page.number) lacks the header row")
      #expect(headers.map(\.frame.maxY).max()! <= cells.map(\.frame.minY).min()!)
      for cell in cells {
        if case .tableCell(let row, _) = cell.role { pagesOfRow[row, default: []].insert(page.number) }
        #expect(cell.lines == 0..<1, "a one-line cell was split")
      }
    }
    #expect(pagesOfRow.count == rows.count)
    #expect(pagesOfRow.values.allSatisfy { $0.count == 1 }, "a row that fits a page was split across pages")
  }

  @Test func rowTallerThanAPageIsSplitBetweenLinesUnderARepeatedHeader() throws {
    let words = Self.numberedWords(400, prefix: "c")
    var document = ReportDocument(pageSize: Self.smallPage, margins: EdgeInsets(all: 30))
    document.addTable(
      ReportTable(
        columns: ["Key", "Text"], widths: [1, 3],
        rows: [["short", "one line"], ["tall", words.joined(separator: " ")], ["after", "the end"]]))
    let layout = try ReportLayout(document)
    let tallRuns = layout.pages.flatMap(\.textRuns).filter { $0.role == .tableCell(row: 1, column: 1) }
    #expect(tallRuns.count >= 2)
    let whole = try TextLayout(
      .plain(words.joined(separator: " ")), style: document.style.tableCell,
      width: tallRuns[0].width)
    #expect(tallRuns.first?.lines.lowerBound == 0)
    #expect(tallRuns.last?.lines.upperBound == whole.lines.count)
    for (previous, next) in zip(tallRuns, tallRuns.dropFirst()) {
      #expect(previous.lines.upperBound == next.lines.lowerBound)
    }
    for page in layout.pages {
      #expect(page.textRuns.contains { $0.role == .tableHeader(column: 1) }, "page \(page.number) lacks the header")
      for run in page.textRuns where run.role != .footer {
        #expect(run.frame.maxY <= layout.contentRect.maxY + 0.01)
      }
    }
  }

  @Test func imagesAreScaledDownToTheContentWidthButNotUp() throws {
    let wide = try ImageRenderer(size: Size(width: 1000, height: 100)).render { $0.clear(to: .blue) }
    let small = try ImageRenderer(size: Size(width: 50, height: 20)).render { $0.clear(to: .red) }
    var document = ReportDocument(pageSize: .letter, margins: EdgeInsets(all: 72))
    document.addImage(wide)
    document.addImage(small)
    let layout = try ReportLayout(document)
    let frames = layout.pages[0].elements.compactMap { element -> Rect? in
      if case .image(_, let frame) = element { return frame }
      return nil
    }
    try #require(frames.count == 2)
    #expect(abs(frames[0].width - layout.contentRect.width) < 0.001)
    #expect(abs(frames[0].height - 100 * layout.contentRect.width / 1000) < 0.001)
    #expect(frames[1].size == Size(width: 50, height: 20))
  }

  @Test func headingMovesToTheNextPageWithWhatFollows() throws {
    let document = ReportDocument(pageSize: Self.smallPage, margins: EdgeInsets(all: 30))
    // Fill the first page to within a heading's height of its bottom.
    var filler = ReportLayoutTests.numberedWords(10).joined(separator: " ")
    while true {
      var probe = document
      probe.addParagraph(filler)
      probe.addHeading("Lonely heading")
      probe.addParagraph("The paragraph that must start on the heading's page.")
      let layout = try ReportLayout(probe)
      let heading = layout.pages.flatMap(\.textRuns).first { $0.role == .heading(level: 1) }!
      if layout.pages[0].textRuns.contains(heading) {
        filler += " more words to push the heading down"
        continue
      }
      // The heading left page 1 although it alone would have fitted there…
      let lastOnFirstPage = layout.pages[0].textRuns.filter { $0.role != .footer }.map(\.frame.maxY).max()!
      let spacing = document.style.blockSpacing + document.style.headingSpacing
      #expect(layout.contentRect.maxY - lastOnFirstPage >= spacing + heading.frame.height)
      // …and the paragraph after it starts on the heading's page.
      let page = layout.pages.firstIndex { $0.textRuns.contains(heading) }!
      let following = layout.pages[page].textRuns.filter { $0.role == .paragraph && $0.blockIndex == 2 }
      #expect(!following.isEmpty)
      #expect(following.first?.lines.lowerBound == 0)
      break
    }
  }

  @Test func footerNumbersEveryPage() throws {
    var document = ReportDocument(pageSize: Self.smallPage, margins: EdgeInsets(all: 30))
    document.addParagraph(Self.numberedWords(400).joined(separator: " "))
    let layout = try ReportLayout(document)
    for page in layout.pages {
      let footer = page.textRuns.filter { $0.role == .footer }
      #expect(footer.map(\.content) == [.plain("Page \(page.number) of \(layout.pages.count)")])
      #expect(footer[0].frame.minY >= layout.contentRect.maxY)
      #expect(footer[0].frame.maxY <= Self.smallPage.height)
    }
  }

  @Test func malformedDocumentsThrowTypedErrors() throws {
    #expect(throws: ReportError.pageTooSmall(pageSize: Size(width: 100, height: 100), margins: EdgeInsets(all: 60))) {
      try ReportLayout(ReportDocument(pageSize: Size(width: 100, height: 100), margins: EdgeInsets(all: 60)))
    }
    var tooWide = ReportDocument()
    tooWide.addTable(ReportTable(columns: ["A"], rows: [["1", "2"]]))
    #expect(throws: ReportError.tooManyCells(block: 0, row: 0, cells: 2, columns: 1)) { try ReportLayout(tooWide) }
    var badWidths = ReportDocument()
    badWidths.addTable(ReportTable(columns: ["A", "B"], widths: [1], rows: []))
    #expect(throws: ReportError.invalidColumnWidths(block: 0, widths: [1], columns: 2)) {
      try ReportLayout(badWidths)
    }
    var badMarkup = ReportDocument()
    badMarkup.addParagraph(.markup("<b>unclosed"))
    #expect(throws: RenderError.self) { try ReportLayout(badMarkup) }
  }
}
