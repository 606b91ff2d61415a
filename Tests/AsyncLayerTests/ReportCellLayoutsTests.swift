import Foundation
import Testing

@testable import AsyncLayer

/// A large table's distinct cell texts are laid out on two threads (``ReportCellLayouts``); the
/// layouts and what is drawn with them must be those of one thread.
@Suite struct ReportCellLayoutsTests {
  private struct Refused: Error, Equatable {
    let index: Int
  }

  @Test("results come back in order, each layout or its own error, from both halves")
  func resultsInOrder() throws {
    let count = ReportCellLayouts.parallelMinimum + 88
    let failing: Set<Int> = [3, count / 2 + 5, count - 1]
    let results = ReportCellLayouts.layOut(count: count) { index in
      if failing.contains(index) { throw Refused(index: index) }
      return try TextLayout(.plain("cell \(index)"), style: TextStyle(font: "Sans 9"), width: 200)
    }
    #expect(results.count == count)
    for (index, result) in results.enumerated() {
      switch result {
      case .success(let layout):
        #expect(!failing.contains(index))
        #expect(layout.content == .plain("cell \(index)"))
        #expect(layout.lines.count == 1)
      case .failure(let error):
        #expect(error as? Refused == Refused(index: index))
      }
    }
  }

  /// A table of `rows` rows with a distinct text in two columns of each row.
  static func document(rows: Int) -> ReportDocument {
    var document = ReportDocument(
      title: "Cells", pageSize: Size(width: 420, height: 520), margins: EdgeInsets(all: 36))
    document.date = Date(timeIntervalSince1970: 1_709_596_800)
    document.addTableOfContents()
    document.addHeading("Orders")
    var table = ReportTable(
      columns: ["Order", "Region", "Amount", "Due"],
      rows: (0..<rows).map {
        ["#\(10_000 + $0)", ["North", "South", "East"][$0 % 3], "\(Double($0) * 17.25)", "2024-03-\(10 + $0 % 19)"]
      })
    table.alignments = [.natural, .natural, .decimal, .right]
    table.formats = [.text, .text, .currency(symbol: "€", decimals: 2), .date(pattern: "d MMM yyyy")]
    document.addTable(table)
    return document
  }

  @Test("a table laid out on two threads draws the PDF of one laid out again on this thread")
  func twoThreadsDrawAsOne() throws {
    // Over the threshold: 2 × 400 distinct texts besides the 3 regions and 19 dates.
    let layout = try ReportLayout(Self.document(rows: 400))
    let reusing = try layout.pdfData()  // the layouts pagination made, half of them on the helper
    let fresh = try layout.pdfData()  // every text laid out again on this thread
    #expect(reusing == fresh)
    let cells = layout.pages.flatMap(\.textRuns).filter {
      if case .tableCell = $0.role { return true } else { return false }
    }
    #expect(cells.count == 400 * 4)
    #expect(cells.contains { $0.content == .plain("€6,882.75") })
    #expect(cells.contains { $0.content == .plain("28 Mar 2024") })
  }

  @Test("the first failing cell in reading order is the error thrown, wherever it was laid out")
  func firstErrorInReadingOrder() throws {
    func document(tooLong cells: [(row: Int, column: Int, bytes: Int)]) throws -> ReportDocument {
      var document = Self.document(rows: 400)
      guard case .table(var table) = document.blocks.last else { throw Refused(index: -1) }
      document.textLimits.maximumBytes = 64
      for cell in cells { table.rows[cell.row][cell.column] = String(repeating: "x", count: cell.bytes) }
      document.blocks[document.blocks.count - 1] = .table(table)
      return document
    }
    // Row 390's order number is among the last distinct texts, laid out on the helper; row 20's
    // region is laid out on this thread.
    #expect(throws: RenderError.textTooLong(bytes: 70, limit: 64)) {
      try ReportLayout(document(tooLong: [(390, 0, 70)]))
    }
    #expect(throws: RenderError.textTooLong(bytes: 66, limit: 64)) {
      try ReportLayout(document(tooLong: [(390, 0, 70), (20, 1, 66)]))
    }
  }
}
