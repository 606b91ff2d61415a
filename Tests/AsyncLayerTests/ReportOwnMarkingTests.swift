import Foundation
import Testing

@testable import AsyncLayer

/// Marking the content of an untagged PDF ourselves (issue 29, goal 6, first step): the drawing
/// record's glyph counts put each run's `BDC … EMC` exactly around the run's glyphs, read back
/// through the fonts' ToUnicode maps, for Latin, Arabic, CJK and emoji cells, and the pages are
/// otherwise unchanged (same text extracted and same pixels by poppler, qpdf clean).
@Suite(.enabled(if: QPDF.isInstalled, "qpdf is not installed: `make deps` (or `apt-get install qpdf`) installs it"))
struct ReportOwnMarkingTests {
  /// A table over several pages with a Latin, an Arabic, a CJK and an emoji column, a heading and
  /// a paragraph, page header and footer.
  static func scriptsLayout(rows: Int = 90) throws -> ReportLayout {
    var document = ReportDocument(
      title: "Scripts", pageSize: Size(width: 420, height: 420), margins: EdgeInsets(all: 30))
    document.header = "{title}"
    document.footer = "Page {page} of {pages}"
    document.addHeading("Every script")
    document.addParagraph("A paragraph before the table, long enough to wrap over two or three lines of the page.")
    let latin = ["café", "Grüße (x)", "naïve\\path", "A&B ƒ"]
    let arabic = ["مرحبا بالعالم", "سلام", "العربية", "كتاب ٣٤"]
    let cjk = ["日本語の表", "中文字符", "한국어", "漢字かな"]
    let emoji = ["🎉 party", "ok 😀", "🚀", "a 🎉 b 😀"]
    let table = ReportTable(
      columns: ["#", "Latin", "Arabic", "CJK", "Emoji"], widths: [0.6, 1.2, 1.4, 1.2, 1.2],
      rows: (0..<rows).map { row in
        ["\(row)", latin[row % 4], arabic[row % 4], cjk[row % 4], emoji[row % 4]]
      })
    document.addTable(table)
    return try ReportLayout(document)
  }

  /// The text pagination placed for `run`: its lines of its plain text (nil for markup).
  static func expectedText(of run: ReportTextRun, in layout: TextLayout) -> String? {
    guard case .plain(let text) = run.content else { return nil }
    let bytes = Array(text.utf8)
    let lines = layout.lines
    guard run.lines.upperBound <= lines.count else { return nil }
    let start = lines[run.lines.lowerBound].utf8Offset
    let last = lines[run.lines.upperBound - 1]
    let end = min(bytes.count, last.utf8Offset + last.utf8Length)
    return String(decoding: bytes[start..<end], as: UTF8.self)
  }

  /// Whether `text` has right-to-left letters and digits or left-to-right letters (pango lays it
  /// out as more than one run).
  static func mixesDirections(_ text: String) -> Bool {
    let scalars = text.unicodeScalars
    let rtl = scalars.contains { (0x0600...0x06FF).contains($0.value) && !(0x0660...0x0669).contains($0.value) }
    let other = scalars.contains { $0.properties.numericType != nil || ($0.isASCII && $0.properties.isAlphabetic) }
    return rtl && other
  }

  /// Marks `layout`'s PDF, checks every marked run's text and that pages read and look the same.
  static func checkMarking(_ layout: ReportLayout, minimumRuns: Int) throws -> (runs: Int, cells: Int) {
    let marking = try layout.ownMarking()
    let reader = try MarkedContentReader(marking.data, bytesPerGlyph: marking.contents.bytesPerGlyph)
    let layouts = ReportRunLayouts()
    var checkedRuns = 0
    var checkedCells = 0
    var replaced: [Int: [UInt8]] = [:]
    for (pageIndex, page) in marking.pages.enumerated() {
      let drawn = marking.record.pages[pageIndex]
      replaced[marking.contents.pages[pageIndex].contentObject] = page.stream
      let texts = try reader.texts(of: page.stream, ids: Set(page.markedContents.map(\.id)))
      // A run's text is its marked contents' texts in stream order (several when split by ET … BT).
      var byRun: [Int: String] = [:]
      for content in page.markedContents { byRun[content.run, default: ""] += texts[content.id] ?? "" }
      #expect(Set(page.markedContents.map(\.id)).count == page.markedContents.count, "MCIDs repeat")
      for (index, runInfo) in drawn.runs.enumerated() where runInfo.structureType != nil {
        guard case .text(let run) = layout.pages[pageIndex].elements[drawn.elements[index]] else { continue }
        guard let expected = expectedText(of: run, in: try layouts.layout(for: run, scale: 1)) else { continue }
        let found = byRun[index] ?? ""
        if runInfo.paintsInside || Self.mixesDirections(expected) {
          // Colour glyphs: drawn blank in the line, their text over each image afterwards. A line
          // of mixed direction: cairo gets pango's runs in visual order (each run's glyphs in
          // logical order), so the digits of "كتاب ٣٤" come before its word.
          #expect(found.sorted() == expected.sorted(), "page \(pageIndex + 1) run \(index): \(found) vs \(expected)")
        } else if run.lines.count == 1 {
          #expect(found == expected, "page \(pageIndex + 1) run \(index): \(found) vs \(expected)")
        } else {
          #expect(
            found.filter { !$0.isWhitespace } == expected.filter { !$0.isWhitespace },
            "page \(pageIndex + 1) run \(index): \(found) vs \(expected)")
        }
        checkedRuns += 1
        if case .tableCell = run.role { checkedCells += 1 }
      }
    }
    #expect(checkedRuns >= minimumRuns)
    // Poppler reads the same text and draws the same pixels from the marked streams.
    let marked = reader.replacing(replaced)
    try Poppler.withPDF(marking.data) { original in
      try Poppler.withPDF(marked) { rewritten in
        let check = try QPDF.check(rewritten)
        #expect(check.status == 0, "qpdf --check: \(check.output)")
        #expect(!check.output.contains("WARNING"), "qpdf --check: \(check.output)")
        #expect(try Poppler.run("pdftotext", [original, "-"]) == Poppler.run("pdftotext", [rewritten, "-"]))
        let before = try Poppler.grayPages(original, dpi: 36)
        let after = try Poppler.grayPages(rewritten, dpi: 36)
        #expect(before.count == after.count)
        for (a, b) in zip(before, after) { #expect(a.bytes == b.bytes) }
      }
    }
    return (checkedRuns, checkedCells)
  }

  @Test func scriptsTableIsMarkedCellExactly() throws {
    let layout = try Self.scriptsLayout()
    #expect(layout.pages.count >= 3)
    let checked = try Self.checkMarking(layout, minimumRuns: 400)
    #expect(checked.cells >= 90 * 5)
  }

  @Test func sampleReportIsMarked() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let spec = try ReportSpec(contentsOfFile: root.appendingPathComponent("samples/report.json").path)
    let layout = try ReportLayout(try spec.makeDocument())
    _ = try Self.checkMarking(layout, minimumRuns: 20)
  }

  /// bench/report-table.sh's full-feature spec (formats, decimal column, stripes, rules, header,
  /// footer, contents) with `rows` rows.
  static func featureTableLayout(rows count: Int) throws -> ReportLayout {
    let regions = ["North", "South", "East", "West", "Islands"]
    let rows: [[String]] = (0..<count).map { (i: Int) -> [String] in
      let date = String(format: "2024-%02d-%02d", i % 12 + 1, i % 28 + 1)
      let share = String(format: "%.4f", Double(i * 37 % 1000) / 1000)
      let amount = String(format: "%.2f", Double(i) * 123.457)
      return [String(format: "#%05d", i), regions[i % 5], date, share, amount]
    }
    let formats: [Any] = [
      "text", "text", ["format": "date", "pattern": "d MMM yyyy"] as [String: Any],
      ["format": "percent", "decimals": 1] as [String: Any],
      ["format": "currency", "symbol": "€", "decimals": 2] as [String: Any],
    ]
    var table: [String: Any] = [:]
    table["columns"] = ["Order", "Region", "Date", "Share", "Amount"]
    table["widths"] = [1, 1.4, 1.4, 1, 1.4]
    table["align"] = ["natural", "natural", "natural", "right", "decimal"]
    table["formats"] = formats
    table["rows"] = rows
    var spec: [String: Any] = [:]
    spec["title"] = "Orders"
    spec["header"] = "{title} — {date}"
    spec["footer"] = "Page {page} of {pages}"
    spec["date"] = "2024-03-05"
    spec["stripes"] = "#f2f4f7"
    spec["rules"] = "horizontal"
    let content: [[String: Any]] = [["contents": true], ["heading": "All orders"], ["table": table]]
    spec["content"] = content
    let data = try JSONSerialization.data(withJSONObject: spec)
    return try ReportLayout(try ReportSpec(jsonData: data).makeDocument())
  }

  @Test func featureTableIsMarked() throws {
    let layout = try Self.featureTableLayout(rows: 150)
    let checked = try Self.checkMarking(layout, minimumRuns: 750)
    #expect(checked.cells == 750)
  }
}
