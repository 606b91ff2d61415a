import AsyncLayer
import AsyncLayerTestSupport
import Foundation
import Testing

/// Lists (markers, hanging indent, pagination, limits) and tables with spans, cell styles and
/// footer rows.
@Suite("Report lists and spanned tables")
struct ReportListTableTests {
  static func document(height: Double = 400) -> ReportDocument {
    ReportDocument(
      pageSize: Size(width: 300, height: height), margins: EdgeInsets(all: 20),
      style: ReportStyle(fontFamily: "DejaVu Sans", bodySize: 10), showsPageNumbers: false)
  }

  static let wrapping = "an item long enough to wrap onto a second and a third line of this narrow page"

  @Test("each marker is left of its item's text, on its first line; wrapped lines keep the hanging indent")
  func markersAndHangingIndent() throws {
    var document = Self.document()
    document.addList(
      ReportList(
        numbered: true,
        items: [
          ReportListItem(Self.wrapping),
          ReportListItem(.plain("nested below"), sublist: ReportList(items: [ReportListItem(Self.wrapping)])),
        ]))
    let layout = try ReportLayout(document)
    let runs = layout.pages[0].textRuns
    for item in 0..<3 {
      let marker = try #require(runs.first { $0.role == .listMarker(item: item) })
      let text = try #require(runs.first { if case .listItem(item, _) = $0.role { true } else { false } })
      #expect(marker.lineFrames[0].maxX < text.lineFrames[0].minX, "item \(item)")
      #expect(abs(marker.frame.minY - text.frame.minY) < 1, "item \(item)")
      // Every line of the text starts at the first line's left edge (natural alignment, LTR).
      #expect(text.lineFrames.allSatisfy { abs($0.minX - text.lineFrames[0].minX) < 0.5 }, "item \(item)")
      if item != 1 { #expect(text.lineFrames.count >= 2) }
    }
    let nested = try #require(runs.first { $0.role == .listItem(item: 2, level: 1) })
    let outer = try #require(runs.first { $0.role == .listItem(item: 0, level: 0) })
    #expect(nested.frame.minX > outer.frame.minX + 10)
    #expect(runs.first { $0.role == .listMarker(item: 0) }?.content == .plain("1."))
    // A nested bulleted list: the second level's bullet.
    #expect(runs.first { $0.role == .listMarker(item: 2) }?.content == .plain("◦"))

    // In pixels: on the first item's first line, ink starts left of the text (the number) and
    // there is blank space between the number and the text.
    let image = try layout.renderPage(0, scale: 2)
    let line = outer.lineFrames[0]
    let rows = Int(line.minY * 2)..<Int(line.maxY * 2)
    let ink = try #require(image.inkColumns(rows: rows, background: .white))
    #expect(Double(ink.minX) < line.minX * 2 - 4)
    let marker = try #require(runs.first { $0.role == .listMarker(item: 0) })
    let gap = Int(marker.lineFrames[0].maxX * 2 + 1)..<Int(line.minX * 2 - 1)
    #expect(!gap.isEmpty)
    #expect(!rows.contains { y in gap.contains { x in image.isInkAt(x: x, y: y) } })
  }

  @Test("a list breaks between items and lines; a continued item keeps its indent on the next page")
  func listAcrossPages() throws {
    var document = Self.document(height: 160)
    document.addList(ReportList(items: (0..<8).map { ReportListItem("\($0) " + Self.wrapping) }))
    let layout = try ReportLayout(document)
    try #require(layout.pages.count >= 2)
    let items = layout.pages.flatMap(\.textRuns).filter { if case .listItem = $0.role { true } else { false } }
    let left = try #require(items.first?.frame.minX)
    #expect(items.allSatisfy { abs($0.frame.minX - left) < 0.01 })
    #expect(items.reduce(0) { $0 + $1.lines.count } >= 16)
    // Every item's marker is on the page of its first line.
    for page in layout.pages {
      for run in page.textRuns where run.lines.lowerBound == 0 {
        guard case .listItem(let item, _) = run.role else { continue }
        #expect(page.textRuns.contains { $0.role == .listMarker(item: item) })
      }
    }
  }

  @Test("a list deeper than the limit, or longer, is refused before layout")
  func listLimits() throws {
    var deep = ReportList(items: [ReportListItem("leaf")])
    for _ in 0..<ReportList.maximumDepth { deep = ReportList(items: [ReportListItem(.plain("x"), sublist: deep)]) }
    var document = Self.document()
    document.addList(deep)
    #expect(throws: ReportError.listTooDeep(block: 0, limit: ReportList.maximumDepth)) { try ReportLayout(document) }
    document.blocks = [
      .list(ReportList(items: Array(repeating: ReportListItem("x"), count: ReportList.maximumItems + 1)))
    ]
    #expect(throws: ReportError.listTooLong(block: 0, limit: ReportList.maximumItems)) { try ReportLayout(document) }
  }

  /// A table whose first cell spans two columns and two rows, filled yellow.
  static func spannedTable() -> ReportTable {
    var table = ReportTable(
      columns: ["A", "B", "C"], rows: [["span", "", "c1"], ["", "", "c2"], ["a3", "b3", "c3"]])
    table.cellOptions[ReportTableCellIndex(row: 0, column: 0)] = ReportTableCell(
      columnSpan: 2, rowSpan: 2, fill: Color(red: 1, green: 1, blue: 0))
    table.cellOptions[ReportTableCellIndex(row: 2, column: 2)] = ReportTableCell(isBold: true, alignment: .right)
    table.footerRows = [["Total", "", "9"]]
    return table
  }

  @Test("a spanning cell's fill covers its whole area, and covered cells draw nothing")
  func spanFill() throws {
    var document = Self.document()
    document.addTable(Self.spannedTable())
    let layout = try ReportLayout(document)
    let runs = layout.pages[0].textRuns
    let cells = runs.filter { if case .tableCell = $0.role { true } else { false } }
    // 3 body rows × 3 columns and the footer's 3, less the 3 positions the span covers.
    #expect(cells.count == 9)
    let span = try #require(cells.first { $0.role == .tableCell(row: 0, column: 0) })
    let c2 = try #require(cells.first { $0.role == .tableCell(row: 1, column: 2) })
    let a3 = try #require(cells.first { $0.role == .tableCell(row: 2, column: 0) })
    let image = try layout.renderPage(0, scale: 2)
    // Sample the middle of the covered cell (row 1, column 1): yellow.
    let x = Int((20 + 260 * 1.5 / 3) * 2)
    let y = Int((c2.frame.midY) * 2)
    let pixel = image.color(x: x, y: y)
    #expect(pixel.red > 0.9 && pixel.green > 0.9 && pixel.blue < 0.1, "\(pixel)")
    // Below the span (row 2) it is not.
    let below = image.color(x: x, y: Int(a3.frame.midY * 2))
    #expect(below.blue > 0.9)
    #expect(span.frame.width > 260 * 2 / 3 - 10)
    // The footer row comes last, in the header's bold style.
    let footer = try #require(cells.first { $0.role == .tableCell(row: 3, column: 0) })
    #expect(footer.style.weight == .bold && footer.frame.minY > a3.frame.maxY)
    let bold = try #require(cells.first { $0.role == .tableCell(row: 2, column: 2) })
    #expect(bold.style.weight == .bold && bold.style.alignment == .right)
  }

  @Test("rows joined by a rowspan move to the next page together, under the repeated header")
  func rowspanAtAPageEnd() throws {
    var moved = 0
    for fillers in 0..<20 {
      var document = Self.document(height: 200)
      for _ in 0..<fillers { document.addParagraph("filler") }
      var table = ReportTable(columns: ["Group", "Row"], rows: (0..<6).map { ["g\($0)", "r\($0)"] })
      table.cellOptions[ReportTableCellIndex(row: 2, column: 0)] = ReportTableCell(rowSpan: 3)
      document.addTable(table)
      let layout = try ReportLayout(document)
      let pageOfRow = { (row: Int) in
        layout.pages.firstIndex { $0.textRuns.contains { $0.role == .tableCell(row: row, column: 1) } }
      }
      #expect(pageOfRow(2) == pageOfRow(3) && pageOfRow(3) == pageOfRow(4), "fillers \(fillers)")
      if let page = pageOfRow(2), page > 0, pageOfRow(1) == page - 1 {
        moved += 1
        #expect(layout.pages[page].textRuns.contains { $0.role == .tableHeader(column: 0) })
      }
    }
    #expect(moved > 0, "no layout put the group at a page end: the test would prove nothing")
  }

  @Test("bad spans are refused naming the cell")
  func badSpans() throws {
    var table = ReportTable(columns: ["A", "B"], rows: [["x", "y"]])
    table.cellOptions[ReportTableCellIndex(row: 0, column: 1)] = ReportTableCell(columnSpan: 2)
    var document = Self.document()
    document.addTable(table)
    #expect(throws: ReportError.self) { try ReportLayout(document) }
    table.cellOptions = [ReportTableCellIndex(row: 0, column: 0): ReportTableCell(rowSpan: 2)]
    document.blocks = [.table(table)]
    #expect(throws: ReportError.self) { try ReportLayout(document) }
    table.cellOptions = [ReportTableCellIndex(row: 5, column: 0): ReportTableCell(fill: .black)]
    document.blocks = [.table(table)]
    #expect(throws: ReportError.self) { try ReportLayout(document) }
    table.cellOptions = [ReportTableCellIndex(row: 0, column: 0): ReportTableCell(columnSpan: Int.min)]
    document.blocks = [.table(table)]
    #expect(throws: ReportError.self) { try ReportLayout(document) }
  }
}
