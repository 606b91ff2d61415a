import AsyncLayer
import Foundation
import Testing

/// The JSON spec of lists, spanned tables and page flow: decoding and errors with their paths.
@Suite("Report spec: lists, spans, page flow")
struct ReportElementSpecTests {
  static func error(_ json: String) -> String? {
    do {
      _ = try ReportSpec(jsonData: Data(json.utf8)).makeDocument()
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test(
    "bad values name their path",
    arguments: [
      (
        #"{"content": [{"paragraph": "a"}, {"table": {"columns": ["A", "B"], "rows": [["x", "y"], ["x", {"text": "y", "colspan": 2}]]}}]}"#,
        "spec.content[1].table.rows[1][1].colspan: spans 2 columns from column 2, past the table's 2"
      ),
      (
        #"{"content": [{"table": {"columns": ["A"], "rows": [[{"text": "y", "rowspan": 3}], ["z"]]}}]}"#,
        "spec.content[0].table.rows[0][0].rowspan: spans 3 rows from this one, past the 2 left in the rows"
      ),
      (
        #"{"content": [{"table": {"columns": ["A"], "rows": [[{"text": "y", "colspan": 0}]]}}]}"#,
        "spec.content[0].table.rows[0][0].colspan: expected a span of at least 1 (got 0)"
      ),
      (
        #"{"content": [{"table": {"columns": ["A"], "rows": [[{"text": "y", "colspan": 1e300}]]}}]}"#,
        "spec.content[0].table.rows[0][0].colspan: expected a whole number (got 1e+300)"
      ),
      (
        #"{"content": [{"table": {"columns": ["A"], "rows": [[{"text": "y", "fill": "nocolour"}]]}}]}"#,
        "spec.content[0].table.rows[0][0].fill"
      ),
      (
        #"{"content": [{"table": {"columns": ["A"], "rows": [["a", {"text": "b"}]]}}]}"#,
        "spec.content[0].table.rows[0][1]: no column left for this cell"
      ),
      (
        #"{"content": [{"table": {"columns": ["A"], "rows": [["a"]], "footer": [[{"text": "t", "rowspan": 2}]]}}]}"#,
        "spec.content[0].table.footer[0][0].rowspan"
      ),
      (
        #"{"content": [{"table": {"columns": ["A"], "rows": [[3]]}}]}"#,
        "spec.content[0].table.rows[0][0]: expected a string, found a number"
      ),
      (
        #"{"content": [{"list": {"items": [{"text": "a", "colour": 1}]}}]}"#,
        "spec.content[0].list.items[0].colour: unknown key"
      ),
      (
        #"{"content": [{"list": {"items": [{"list": {"items": []}}]}}]}"#,
        "spec.content[0].list.items[0]: expected one of text and markup"
      ),
      (
        #"{"content": [{"list": {"items": ["a"], "start": 1e12}}]}"#,
        "spec.content[0].list.start: expected a start number"
      ),
      (#"{"widows": 0, "content": []}"#, "spec.widows: expected from 1 to 100 lines (got 0)"),
      (#"{"orphans": 2.5, "content": []}"#, "spec.orphans: expected a whole number (got 2.5)"),
      (
        #"{"content": [{"paragraph": "a", "keepTogether": 1}]}"#, "spec.content[0].keepTogether: expected true or false"
      ),
    ])
  func badValues(json: String, expected: String) {
    let message = Self.error(json)
    #expect(message?.hasPrefix(expected) == true, "\(message ?? "no error")")
  }

  @Test("a list nested past the limit is refused at the level past it")
  func deepList() {
    var json = #"{"items": ["leaf"]}"#
    for _ in 0..<ReportList.maximumDepth { json = #"{"items": [{"text": "x", "list": \#(json)}]}"# }
    let message = Self.error(#"{"content": [{"list": \#(json)}]}"#)
    let path = "spec.content[0].list" + String(repeating: ".items[0].list", count: ReportList.maximumDepth)
    #expect(
      message?.hasPrefix(path + ": lists nest at most 8 levels deep (this is level 9)") == true, "\(message ?? "")")
  }

  @Test("a list of more items than the limit is refused from its count, before its items decode")
  func longList() {
    // Numbers, not strings: decoding them as items would fail on the first, so the count check
    // must come first for this message.
    let items = Array(repeating: "0", count: ReportList.maximumItems + 1).joined(separator: ",")
    let message = Self.error(#"{"content": [{"list": {"items": [\#(items)]}}]}"#)
    #expect(message?.hasPrefix("spec.content[0].list.items: expected at most 100000 items") == true)
  }

  @Test("the new keys decode into the document")
  func decodes() throws {
    let json = #"""
      {"widows": 3, "orphans": 4, "firstHeader": "", "firstFooter": "f", "contentsLeaders": true,
       "content": [
         {"list": {"numbered": true, "start": 3, "items": ["a", {"markup": "<b>b</b>", "list": {"items": ["c"]}}]}},
         {"paragraph": "p", "keepTogether": true, "keepWithNext": true},
         {"table": {"columns": ["A", "B"], "rows": [[{"text": "x", "colspan": 2, "fill": "#ff0", "bold": true}],
           [{"text": "y", "rowspan": 2, "color": "red", "align": "right"}, "z"], ["w"]],
           "footer": [["t", "u"]]}}
       ]}
      """#
    let document = try ReportSpec(jsonData: Data(json.utf8)).makeDocument()
    #expect(document.style.widows == 3 && document.style.orphans == 4 && document.style.contentsLeaders)
    #expect(document.firstPageHeader == "" && document.firstPageFooter == "f")
    let list = ReportList(
      numbered: true, start: 3,
      items: [
        ReportListItem("a"),
        ReportListItem(.markup("<b>b</b>"), sublist: ReportList(items: [ReportListItem("c")])),
      ])
    #expect(document.blocks[0] == .list(list))
    #expect(document.blocks[1] == .flow(.paragraph(.plain("p")), [.keepTogether, .keepWithNext]))
    guard case .table(let table) = document.blocks[2] else {
      Issue.record("not a table")
      return
    }
    // "w" goes to column 1: column 0 is covered by the rowspan from above.
    #expect(table.rows == [["x", ""], ["y", "z"], ["", "w"]])
    #expect(table.footerRows == [["t", "u"]])
    #expect(
      table.cellOptions == [
        ReportTableCellIndex(row: 0, column: 0): ReportTableCell(
          columnSpan: 2, fill: Color(red8: 0xff, green8: 0xff, blue8: 0), isBold: true),
        ReportTableCellIndex(row: 1, column: 0): ReportTableCell(
          rowSpan: 2, color: try Color(parsing: "red"), alignment: .right),
      ])
    _ = try ReportLayout(document)
  }

  @Test("the elements sample renders, to PDF with its list markers and leader dots as text")
  func sample() throws {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "../../samples/report-elements.json"
    ).standardized.path
    let layout = try ReportLayout(try ReportSpec(contentsOfFile: path).makeDocument())
    #expect(layout.pages.count >= 3)
    let roles = layout.pages.flatMap(\.textRuns).map(\.role)
    #expect(roles.contains(.listMarker(item: 0)) && roles.contains(.contentsLeader(entry: 0)))
    let pdf = try layout.pdfData()
    #expect(pdf.count > 1000)
  }
}
