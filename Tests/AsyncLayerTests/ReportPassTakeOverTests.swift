import Foundation
import Testing

@testable import AsyncLayer

/// A pass for the table of contents takes over the previous pass's pages from the first step
/// after the contents where its state matches (``ReportPaginator/layOutBlocks(isCancelled:following:)``):
/// the pages must be those of a pass that places every block again.
@Suite struct ReportPassTakeOverTests {
  static let page = Size(width: 300, height: 340)

  /// Contents at `contentsAt` (a block index) among headed sections: paragraphs across pages, a
  /// table after a heading (kept with it) whose rows move to later pages, a row taller than a page
  /// (split, after a header-only page), a list and a page break.
  static func document(contentsAt: Int) -> ReportDocument {
    var document = ReportDocument(title: "Passes", pageSize: page, margins: EdgeInsets(all: 30))
    document.header = "{title} — page {page}"
    document.date = Date(timeIntervalSince1970: 1_709_596_800)
    for section in 1...4 {
      document.addHeading("Section \(section)")
      document.addParagraph(ReportLayoutTests.numberedWords(90, prefix: "s\(section)w").joined(separator: " "))
      document.addHeading("Orders \(section)", level: 2)
      var rows = (0..<25).map { ["#\(section)-\($0)", "\(Double($0) * 12.5)"] }
      if section == 2 { rows[10][0] = ReportLayoutTests.numberedWords(160, prefix: "tall").joined(separator: " ") }
      var table = ReportTable(columns: ["Order", "Amount"], rows: rows)
      table.alignments = [.natural, .decimal]
      document.addTable(table)
      if section == 3 {
        document.addList(ReportList(items: (1...12).map { ReportListItem("item \($0)") }))
        document.addPageBreak()
      }
    }
    document.blocks.insert(.tableOfContents, at: contentsAt)
    return document
  }

  /// The second pass of `document` with and without taking over the first pass, finished; and
  /// where the one that takes over did.
  static func secondPasses(
    of document: ReportDocument
  ) throws -> (takingOver: [ReportPage], placingAll: [ReportPage], tookOverAt: Int?) {
    var first = try ReportPaginator(document: document, headingPages: [:])
    try first.layOutBlocks()
    var takingOver = try ReportPaginator(document: document, headingPages: first.headingPages)
    takingOver.reuseLayouts(of: first)
    let index = try takingOver.layOutBlocks(following: first)
    var placingAll = try ReportPaginator(document: document, headingPages: first.headingPages)
    placingAll.reuseLayouts(of: first)
    #expect(try placingAll.layOutBlocks() == nil)
    #expect(takingOver.headingPages == placingAll.headingPages)
    return (try takingOver.finish(), try placingAll.finish(), index)
  }

  @Test("a contents pass that takes over the previous pass's pages gives the pages of one placing everything")
  func takingOverPlacesAsPlacingAll() throws {
    for contentsAt in [0, 3, 7] {
      let passes = try Self.secondPasses(of: Self.document(contentsAt: contentsAt))
      // It took over right after the contents: the test compares what was taken over.
      #expect(passes.tookOverAt == contentsAt + 1, "contents at \(contentsAt)")
      #expect(passes.takingOver.count > 8, "contents at \(contentsAt): \(passes.takingOver.count) pages")
      #expect(passes.takingOver == passes.placingAll, "contents at \(contentsAt)")
    }
  }

  @Test("contents as the last block: nothing follows it to take over")
  func contentsLastTakesNothingOver() throws {
    var document = Self.document(contentsAt: 0)
    document.blocks.removeFirst()
    document.addTableOfContents()
    let passes = try Self.secondPasses(of: document)
    #expect(passes.tookOverAt == nil)
    #expect(passes.takingOver == passes.placingAll)
  }

  @Test("a whole ReportLayout with the contents first is the same either way")
  func reportLayoutIsTheSame() throws {
    let document = Self.document(contentsAt: 0)
    let takingOver = try ReportLayout(document, isCancelled: { false })
    let placingAll = try ReportLayout(document, isCancelled: { false }, takesOverPasses: false)
    #expect(takingOver.pages == placingAll.pages)
  }
}
