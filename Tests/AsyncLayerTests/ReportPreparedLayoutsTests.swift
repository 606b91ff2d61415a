import Foundation
import Testing

@testable import AsyncLayer

/// The first PDF or SVG drawn on the thread that paginated reuses pagination's text layouts
/// (``ReportPreparedLayouts``); the output must be the same as with every text laid out again.
@Suite struct ReportPreparedLayoutsTests {
  /// A report with what repeats (a column of a few values, a header template on every page), a
  /// table of contents, formats, a link and a paragraph across pages.
  static func document() -> ReportDocument {
    var document = ReportDocument(
      title: "Prepared", pageSize: Size(width: 360, height: 420), margins: EdgeInsets(all: 36))
    document.header = "{title} — {date}"
    document.date = Date(timeIntervalSince1970: 1_709_596_800)
    document.addTableOfContents()
    document.addHeading("Words")
    document.addParagraph(ReportLayoutTests.numberedWords(300).joined(separator: " "))
    var note = AttributedText("See ")
    note.append("the method", TextAttributes(underline: .single, link: "https://example.com/method"))
    document.addParagraph(.attributed(note))
    document.addHeading("Orders", level: 2)
    let regions = ["North", "South", "East"]
    var table = ReportTable(
      columns: ["Order", "Region", "Amount"],
      rows: (0..<60).map { ["#\($0)", regions[$0 % 3], "\(Double($0) * 12.5)"] })
    table.alignments = [.natural, .natural, .decimal]
    table.formats = [.text, .text, .currency(symbol: "€", decimals: 2)]
    document.addTable(table)
    return document
  }

  @Test("pagination leaves its layouts for one output on its own thread only")
  func layoutsAreTakenOnceOnTheirThread() throws {
    // Synchronous: the whole test runs on one thread, as a pagination and its output would.
    let layout = try ReportLayout(Self.document())
    let token = layout.preparedLayouts
    let elsewhere = Mutex(-1)
    let done = DispatchSemaphore(value: 0)
    Thread {
      elsewhere.withLock { $0 = ReportPreparedLayouts.take(for: token).count }
      done.signal()
    }.start()
    done.wait()
    #expect(elsewhere.withLock { $0 } == 0)
    let runs = layout.pages.flatMap(\.textRuns)
    let taken = ReportPreparedLayouts.take(for: token)
    // Every run finds its layout; repeated texts (regions, the header) share one.
    #expect(runs.allSatisfy { taken[ReportRunLayouts.Key($0, scale: 1)] != nil })
    #expect(taken.count < runs.count)
    #expect(ReportPreparedLayouts.take(for: token).isEmpty)
    // A later pagination on this thread replaces an earlier one's layouts.
    let earlier = try ReportLayout(Self.document())
    let later = try ReportLayout(Self.document())
    #expect(ReportPreparedLayouts.take(for: earlier.preparedLayouts).isEmpty)
    #expect(!ReportPreparedLayouts.take(for: later.preparedLayouts).isEmpty)
  }

  @Test("a PDF and an SVG drawn with pagination's layouts equal those drawn with fresh ones")
  func outputsEqualFreshLayouts() async throws {
    let pdfLayout = try ReportLayout(Self.document())
    // The synchronous outputs, on this thread (in async code a bare `pdfData()` is the async one).
    func pdfHere() throws -> Data { try pdfLayout.pdfData() }
    let reusing = try pdfHere()  // takes pagination's layouts
    let fresh = try pdfHere()  // lays every text out again
    let otherThread = try await Task.detached { try pdfLayout.pdfData() }.value
    #expect(reusing == fresh)
    #expect(otherThread == fresh)
    try Poppler.withPDF(reusing) { pdf in
      #expect(try Poppler.pageCount(pdf) == pdfLayout.pages.count)
      #expect(try Poppler.run("pdftotext", [pdf, "-"]).contains("Prepared — 2024-03-05"))

      let svgLayout = try ReportLayout(Self.document())
      // cairo numbers its SVG surfaces process-wide: the ids differ from one SVG to the next.
      func normalized(_ svg: Data) -> String {
        String(decoding: svg, as: UTF8.self).replacingOccurrences(
          of: #"id="surface[0-9]+""#, with: #"id="surface""#, options: .regularExpression)
      }
      let reusingSVG = try svgLayout.svgData()
      #expect(normalized(reusingSVG) == normalized(try svgLayout.svgData()))
    }
  }
}
