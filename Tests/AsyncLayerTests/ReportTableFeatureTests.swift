import AsyncLayer
import Foundation
import Testing

/// Column formats and alignments, stripes and rules of report tables.
@Suite("Report tables: formats, alignment, stripes, rules")
struct ReportTableFeatureTests {
  @Test(
    "formats write numbers, money, percentages and dates; what does not parse stays as given",
    arguments: [
      (ReportColumnFormat.number(decimals: 2), "1234.5", "1,234.50"),
      (.number(decimals: 0), "1234567", "1,234,567"),
      (.number(decimals: 2), "-0.001", "0.00"),
      (.number(decimals: 99), "1", "1.0000000000"),
      (.currency(symbol: "€", decimals: 2), "-3", "-€3.00"),
      (.currency(symbol: "$", decimals: 0), "999.6", "$1,000"),
      (.percent(decimals: 1), "0.125", "12.5%"),
      (.number(decimals: 2), "123456.789", "123,456.79"),
      (.number(decimals: 1), "-1234567.891", "-1,234,567.9"),
      (.number(decimals: 0), "100", "100"),
      (.number(decimals: 0), "-0.4", "0"),
      (.number(decimals: 2), "0.07", "0.07"),
      (.currency(symbol: "€", decimals: 2), "0", "€0.00"),
      (.currency(symbol: "€", decimals: 2), "99999.994", "€99,999.99"),
      (.number(decimals: 0), "999999999999999", "999,999,999,999,999"),
      (.date(pattern: "d MMM yyyy"), "2024-03-05", "5 Mar 2024"),
      (.date(pattern: "yyyy"), "2024-03-05T23:59:00Z", "2024"),
      (.date(pattern: "d MMM yyyy"), "2024-02-29", "29 Feb 2024"),
      (.date(pattern: "d MMM yyyy"), "1969-12-31", "31 Dec 1969"),
      (.date(pattern: "d MMM yyyy"), "2023-02-29", "2023-02-29"),
      (.date(pattern: "d MMM yyyy"), "2024-13-01", "2024-13-01"),
      (.number(decimals: 2), "n/a", "n/a"),
      (.number(decimals: 2), "1e300", "1e300"),
      (.number(decimals: 2), "nan", "nan"),
      (.percent(decimals: 0), "inf", "inf"),
      (.number(decimals: 0), "1,5", "1,5"),
      (.date(pattern: "yyyy"), "yesterday", "yesterday"),
      (.text, " as is ", " as is "),
    ])
  func formats(format: ReportColumnFormat, cell: String, expected: String) {
    #expect(format.format(cell) == expected)
  }

  static func layout(_ table: ReportTable, style: (inout ReportStyle) -> Void = { _ in }) throws -> ReportLayout {
    var document = ReportDocument(pageSize: Size(width: 400, height: 600), margins: EdgeInsets(all: 20))
    style(&document.style)
    document.showsPageNumbers = false
    document.addTable(table)
    return try ReportLayout(document)
  }

  static func cells(_ layout: ReportLayout, column: Int) -> [ReportTextRun] {
    layout.pages[0].textRuns.filter {
      if case .tableCell(_, let c) = $0.role { return c == column }
      return false
    }
  }

  @Test("right and centred columns; the header follows its column")
  func alignments() throws {
    var table = ReportTable(columns: ["Name", "Qty", "Note"], rows: [["a", "1", "x"], ["bb", "22", "yyyy"]])
    table.alignments = [.natural, .right, .center]
    let layout = try Self.layout(table)
    let columnWidth = 360.0 / 3
    for run in Self.cells(layout, column: 1) {
      #expect(abs(run.lineFrames[0].maxX - (20 + 2 * columnWidth - 4)) < 0.5)
    }
    for run in Self.cells(layout, column: 2) {
      #expect(abs(run.lineFrames[0].midX - (20 + 2.5 * columnWidth)) < 0.5)
    }
    let header = try #require(layout.pages[0].textRuns.first { $0.role == .tableHeader(column: 1) })
    #expect(abs(header.lineFrames[0].maxX - (20 + 2 * columnWidth - 4)) < 0.5)
  }

  @Test("a decimal column lines up the points, formatted or not")
  func decimalColumn() throws {
    var table = ReportTable(columns: ["Amount"], rows: [["1.5"], ["1234.25"], ["7"], ["12.125"]])
    table.alignments = [.decimal]
    let layout = try Self.layout(table)
    let runs = Self.cells(layout, column: 0)
    try #require(runs.count == 4)
    // Where each cell's "." is on the page (the end of the cell for "7").
    let points = try runs.map { run -> Double in
      let text = try TextLayout(run.content, style: run.style, width: run.width)
      let line = try #require(text.lines.first)
      guard let dot = text.text.utf8.firstIndex(of: UInt8(ascii: ".")) else { return run.frame.minX + line.frame.maxX }
      let offset = text.text.utf8.distance(from: text.text.utf8.startIndex, to: dot)
      return run.frame.minX + (try #require(text.characterFrame(atUTF8Offset: offset))).minX
    }
    #expect(points.allSatisfy { abs($0 - points[0]) < 0.05 }, "\(points)")
    // The widest fraction ("12.125") ends at the column's right padding.
    #expect(abs(runs[3].lineFrames[0].maxX - (400 - 20 - 4)) < 0.5)
  }

  @Test("formats apply to body cells, not to the header")
  func formatsInTable() throws {
    var table = ReportTable(columns: ["Price"], rows: [["1234.5"]])
    table.formats = [.currency(symbol: "€", decimals: 2)]
    let layout = try Self.layout(table)
    #expect(Self.cells(layout, column: 0).first?.content == .plain("€1,234.50"))
    #expect(layout.pages[0].textRuns.first { $0.role == .tableHeader(column: 0) }?.content == .plain("Price"))
  }

  @Test("stripes fill every other row; rules draw a grid, horizontal lines or nothing")
  func stripesAndRules() throws {
    let table = ReportTable(columns: ["A", "B"], rows: (0..<6).map { ["r\($0)", "\($0)"] })
    let stripe = Color(red8: 0xf0, green8: 0xf0, blue8: 0xf0)
    func count(_ layout: ReportLayout, _ predicate: (ReportElement) -> Bool) -> Int {
      layout.pages[0].elements.filter(predicate).count
    }
    let striped = try Self.layout(table) { $0.tableStripeBackground = stripe }
    #expect(count(striped) { if case .fill(_, stripe) = $0 { return true } else { return false } } == 3)
    #expect(count(striped) { if case .stroke = $0 { return true } else { return false } } == 2 * 7)
    let horizontal = try Self.layout(table) { $0.tableRules = .horizontal }
    #expect(count(horizontal) { if case .stroke = $0 { return true } else { return false } } == 0)
    #expect(
      count(horizontal) { if case .fill(let rect, _) = $0 { return rect.height == 0.5 } else { return false } } == 7)
    let bare = try Self.layout(table) { $0.tableRules = .none }
    #expect(count(bare) { if case .stroke = $0 { return true } else { return false } } == 0)
    #expect(count(bare) { if case .fill(let rect, _) = $0 { return rect.height == 0.5 } else { return false } } == 0)
  }
}

/// The new spec keys: what they build and how their errors are named.
@Suite("Report spec: alignment, formats, spans, contents, templates, metadata")
struct ReportSpecFeatureTests {
  @Test("every new key decodes into the document")
  func decodes() throws {
    let json = #"""
      {"title": "T", "header": "{title}", "footer": "{page}", "date": "2024-03-05", "author": "A", "subject": "S",
       "keywords": ["k1", "k2"], "align": "justify", "stripes": "#eeeeee", "rules": "horizontal",
       "content": [
         {"contents": true},
         {"spans": [{"text": "plain "}, {"text": "bold", "bold": true, "color": "#c00", "underline": "double"},
                    {"text": " link", "link": "https://example.com", "underline": true, "size": 12, "italic": true}]},
         {"table": {"columns": ["A", "B"], "align": ["natural", "decimal"],
                    "formats": ["text", {"format": "currency", "symbol": "$", "decimals": 1}], "rows": [["x", "2"]]}}
       ]}
      """#
    let document = try ReportSpec(jsonData: Data(json.utf8)).makeDocument()
    #expect(document.header == "{title}" && document.footer == "{page}")
    #expect(ISO8601DateFormatter().string(from: document.date) == "2024-03-05T00:00:00Z")
    #expect(document.metadata == ReportMetadata(author: "A", subject: "S", keywords: ["k1", "k2"]))
    #expect(document.style.body.alignment == .justify)
    #expect(document.style.tableRules == .horizontal)
    #expect(document.style.tableStripeBackground == (try Color(parsing: "#eeeeee")))
    #expect(document.blocks.first == .tableOfContents)
    guard case .paragraph(.attributed(let text)) = document.blocks[1] else {
      Issue.record("expected an attributed paragraph, got \(document.blocks[1])")
      return
    }
    #expect(text.string == "plain bold link")
    #expect(text.spans.count == 2)
    #expect(text.spans[0].attributes.weight == .bold && text.spans[0].attributes.underline == .double)
    #expect(text.spans[1].attributes.link == "https://example.com" && text.spans[1].attributes.underline == .single)
    guard case .table(let table) = document.blocks[2] else {
      Issue.record("expected a table")
      return
    }
    #expect(table.alignments == [.natural, .decimal])
    #expect(table.formats == [.text, .currency(symbol: "$", decimals: 1)])
  }

  @Test(
    "bad values name their path",
    arguments: [
      (#"{"align": "start", "content": []}"#, "spec.align: expected one of natural, leading"),
      (#"{"rules": "dotted", "content": []}"#, "spec.rules: expected one of grid, horizontal, none"),
      (##"{"stripes": "#zz", "content": []}"##, "spec.stripes:"),
      (#"{"date": "5 March", "content": []}"#, "spec.date: expected an ISO 8601 date"),
      (#"{"content": [{"contents": false}]}"#, "spec.content[0].contents: expected true"),
      (#"{"content": [{"spans": [{"txt": "a"}]}]}"#, "spec.content[0].spans[0].txt: unknown key"),
      (
        #"{"content": [{"spans": [{"text": "a", "weight": 450}]}]}"#,
        "spec.content[0].spans[0].weight: expected a weight"
      ),
      (
        #"{"content": [{"table": {"columns": ["a"], "rows": [], "align": ["right", "left"]}}]}"#,
        "spec.content[0].table.align: expected at most 1 entries"
      ),
      (
        #"{"content": [{"table": {"columns": ["a"], "rows": [], "formats": ["money"]}}]}"#,
        "spec.content[0].table.formats[0]: expected a format of text, number"
      ),
      (
        #"{"content": [{"table": {"columns": ["a"], "rows": [], "formats": [{"format": "number", "decimals": 99}]}}]}"#,
        "spec.content[0].table.formats[0].decimals: expected 0 to 10 decimals"
      ),
    ])
  func badValues(json: String, expected: String) {
    let error = ReportSpecTests.error(decoding: json)
    #expect(error?.description.hasPrefix(expected) == true, "\(String(describing: error))")
  }

  @Test("a span with a hostile size fails at its path when the document is made")
  func hostileSpan() throws {
    let spec = try ReportSpec(jsonData: Data(#"{"content": [{"spans": [{"text": "a", "size": 1e300}]}]}"#.utf8))
    let error = #expect(throws: ReportSpecError.self) { try spec.makeDocument() }
    #expect(error?.path == "spec.content[0].spans")
    #expect(error?.message.contains("span 0 font size") == true)
  }
}
