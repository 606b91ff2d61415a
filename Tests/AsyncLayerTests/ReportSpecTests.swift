import AsyncLayer
import Foundation
import Testing

/// The JSON report spec: decoding, errors naming the JSON path at fault, images read from disk.
@Suite struct ReportSpecTests {
  static func error(decoding json: String) -> ReportSpecError? {
    do {
      _ = try ReportSpec(jsonData: Data(json.utf8))
      return nil
    } catch let error as ReportSpecError {
      return error
    } catch {
      Issue.record("unexpected error type: \(error)")
      return nil
    }
  }

  static let table = #"{"table": {"columns": ["A", "B"], "rows": [["1", "2"], ["3", "4"], ["5", "6"], ["7", 8]]}}"#

  @Test(arguments: [
    (
      #"{"content": [{"paragraph": "ok"}, \#(table)]}"#,
      "spec.content[1].table.rows[3][1]: expected a string, found a number"
    ),
    (#"{"content": [{"heading": 3}]}"#, "spec.content[0].heading: expected a string, found a number"),
    (#"{"title": "x"}"#, "spec.content: missing (required)"),
    (#"{"content": [{"paragrph": "typo"}]}"#, "spec.content[0].paragrph: unknown key"),
    (
      #"{"content": [{}]}"#,
      "spec.content[0]: expected one of heading, paragraph, markup, spans, table, image, pageBreak, contents"
    ),
    (#"{"content": [{"heading": "a", "paragraph": "b"}]}"#, "spec.content[0]: expected only one of"),
    (#"{"page": "a5", "content": []}"#, #"spec.page: expected "a4", "letter""#),
    (#"{"page": {"width": 300, "height": -1}, "content": []}"#, "spec.page.height: expected a size in points"),
    (#"{"margins": {"top": "1"}, "content": []}"#, "spec.margins.top: expected a number, found a string"),
    (
      #"{"content": [{"table": {"columns": ["A"], "widths": [1, 2], "rows": []}}]}"#,
      "spec.content[0].table.widths: expected 1 widths, one per column (got 2)"
    ),
    (
      #"{"content": [{"table": {"columns": ["A"], "rows": [["1"], ["2", "3"]]}}]}"#,
      "spec.content[0].table.rows[1]: 2 cells, but the table has 1 columns"
    ),
    (
      #"{"content": [{"image": "x.png", "scale": 0}]}"#,
      "spec.content[0].scale: expected pixels per point from 0.001 to 1000"
    ),
    (#"{"content": [{"heading": "x", "level": 9}]}"#, "spec.content[0].level: expected a level from 1 to 6"),
    (#"{"content": [{"pageBreak": false}]}"#, "spec.content[0].pageBreak: expected true"),
    (#"{"content": [{"paragraph": null}]}"#, "spec.content[0].paragraph: expected a string, found null"),
    (#"{"content": ["#, "spec: not valid JSON at line 1, column 14: the text ends early; expected a value"),
    ("{\n  \"content\": [1 2]\n}", "spec: not valid JSON at line 2, column 17: expected ',' or ']'"),
    (#"{"content": {}}"#, "spec.content: expected an array, found an object"),
  ])
  func badSpecNamesTheJSONPath(json: String, expected: String) {
    let error = Self.error(decoding: json)
    #expect(error?.description.hasPrefix(expected) == true, "got: \(error?.description ?? "no error")")
  }

  /// Each `DecodingError` case Foundation throws becomes the path in the spec and what was
  /// expected there, read from the error's structure and the JSON itself.
  @Test(arguments: [
    // typeMismatch: the found value is described from the JSON at the path.
    (#"{"title": true, "content": []}"#, "spec.title: expected a string, found true or false"),
    (#"{"title": [1], "content": []}"#, "spec.title: expected a string, found an array"),
    (#"{"title": {"a": 1}, "content": []}"#, "spec.title: expected a string, found an object"),
    (#"{"pageNumbers": "yes", "content": []}"#, "spec.pageNumbers: expected true or false, found a string"),
    (#"{"fontSize": "9", "content": []}"#, "spec.fontSize: expected a number, found a string"),
    (#"{"content": [{"heading": "H", "level": "2"}]}"#, "spec.content[0].level: expected a number, found a string"),
    (#"{"content": "none"}"#, "spec.content: expected an array, found a string"),
    (
      #"{"content": [{"table": {"columns": ["A"], "rows": {"x": 1}}}]}"#,
      "spec.content[0].table.rows: expected an array, found an object"
    ),
    // valueNotFound: a null where a value is required.
    (#"{"content": [{"spans": [{"text": null}]}]}"#, "spec.content[0].spans[0].text: expected a string, found null"),
    (#"{"fonts": [null], "content": []}"#, "spec.fonts[0]: expected a string, found null"),
    // keyNotFound: the missing key is part of the path.
    (#"{"content": [{"table": {"columns": ["A"]}}]}"#, "spec.content[0].table.rows: missing (required)"),
    (#"{"content": [{"spans": [{"bold": true}]}]}"#, "spec.content[0].spans[0].text: missing (required)"),
    // dataCorrupted: syntax errors point at the line and column, in characters.
    (#"{"title": "ü", "content": [}"#, "spec: not valid JSON at line 1, column 28: expected a value"),
    (#"{"content": [], 3}"#, "spec: not valid JSON at line 1, column 17: expected a key in double quotes"),
    // A trailing comma (which JSONDecoder accepts) is not blamed for the error after it.
    (#"{"fonts": ["a",], "content": [1 2]}"#, "spec: not valid JSON at line 1, column 33: expected ',' or ']'"),
    (#"{"content" []}"#, "spec: not valid JSON at line 1, column 12: expected ':' after the key"),
    (#"{"content": []} x"#, "spec: not valid JSON at line 1, column 17: unexpected text after the end"),
    (#"{"title": "a\qb", "content": []}"#, "spec: not valid JSON at line 1, column 13: invalid escape"),
    (#"{"title": "open, "content": []}"#, "spec: not valid JSON at line 1, column 19: expected ',' or '}'"),
    (#"{"fontSize": 01, "content": []}"#, "spec: not valid JSON at line 1, column 15: expected ',' or '}'"),
    (#"{"fontSize": -, "content": []}"#, "spec: not valid JSON at line 1, column 14: invalid number"),
    ("{\"title\": \"a\nb\", \"content\": []}", "spec: not valid JSON at line 1, column 13: a control character"),
    (#"{"content": [], "title": "never ends}"#, "spec: not valid JSON at line 1, column 26: a string that never ends"),
    ("", "spec: not valid JSON at line 1, column 1: the text ends early"),
    // dataCorrupted from the spec's own checks keeps their message, and whole numbers are checked
    // here rather than by Foundation (which calls 2.5 for an Int invalid JSON, with no path).
    (#"{"content": [{"heading": "H", "level": 2.5}]}"#, "spec.content[0].level: expected a whole number (got 2.5)"),
    (
      #"{"content": [{"heading": "H", "level": 1e300}]}"#, "spec.content[0].level: expected a whole number (got 1e+300)"
    ),
    (
      #"{"content": [{"spans": [{"text": "a", "weight": 1.5}]}]}"#,
      "spec.content[0].spans[0].weight: expected a whole number (got 1.5)"
    ),
    (
      #"{"content": [{"table": {"columns": ["A"], "rows": [], "formats": [{"format": "number", "decimals": -0.5}]}}]}"#,
      "spec.content[0].table.formats[0].decimals: expected a whole number (got -0.5)"
    ),
  ])
  func decodingErrorCasesNameThePathAndWhatWasExpected(json: String, expected: String) {
    let error = Self.error(decoding: json)
    #expect(error?.description.hasPrefix(expected) == true, "got: \(error?.description ?? "no error")")
  }

  /// Deep nesting is described without descending into it, and nesting deeper than the JSON
  /// parser takes is reported, not a crash.
  @Test func deeplyNestedValuesAreReported() {
    let nested = String(repeating: "[", count: 400) + String(repeating: "]", count: 400)
    let error = Self.error(decoding: #"{"title": \#(nested), "content": []}"#)
    #expect(error?.description == "spec.title: expected a string, found an array")
    let tooDeep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    let deepError = Self.error(decoding: #"{"title": \#(tooDeep), "content": []}"#)
    #expect(deepError?.path == "spec")
    #expect(deepError?.message.hasPrefix("cannot read this value") == true, "got: \(String(describing: deepError))")
  }

  @Test func missingImageFileIsNamedWithItsPath() throws {
    let spec = try ReportSpec(
      jsonData: Data(#"{"content": [{"paragraph": "a"}, {"image": "nope/chart.png"}]}"#.utf8),
      baseDirectory: "/tmp/report-spec-base")
    #expect(
      throws: ReportSpecError(
        path: "spec.content[1].image",
        message: "image file not found: /tmp/report-spec-base/nope/chart.png")
    ) {
      try spec.makeDocument()
    }
  }

  @Test func fontFilesAreRegisteredRelativeToTheSpec() throws {
    let fonts = FontFileTests.fonts.path
    let spec = try ReportSpec(
      jsonData: Data(
        #"{"fonts": ["blocks.ttf"], "font": "AsyncLayer Test Blocks", "content": [{"paragraph": "AB"}]}"#.utf8),
      baseDirectory: fonts)
    let layout = try ReportLayout(try spec.makeDocument())
    let run = try #require(layout.pages[0].textRuns.first { $0.role == .paragraph })
    // Two 0.6-em boxes at the body size of 11 points.
    #expect(abs(run.lineFrames[0].width - 2 * 0.6 * 11) < 0.01)

    let missing = try ReportSpec(
      jsonData: Data(#"{"fonts": ["blocks.ttf", "nope.otf"], "content": []}"#.utf8), baseDirectory: fonts)
    let error = #expect(throws: ReportSpecError.self) { try missing.makeDocument() }
    #expect(error?.path == "spec.fonts[1]")
    #expect(error?.message.contains("nope.otf: no such file") == true)
  }

  @Test func undecodableImageAndBadMarkupNameTheItem() throws {
    try withTemporaryDirectory { directory in
      let file = directory.appendingPathComponent("not-a-png.png")
      try Data("hello".utf8).write(to: file)
      let spec = try ReportSpec(jsonData: Data(#"{"content": [{"image": "\#(file.path)"}]}"#.utf8))
      let imageError = #expect(throws: ReportSpecError.self) { try spec.makeDocument() }
      #expect(imageError?.path == "spec.content[0].image")
      #expect(imageError?.message.contains(file.path) == true)

      let markup = try ReportSpec(jsonData: Data(#"{"content": [{"markup": "<b>open"}]}"#.utf8))
      let markupError = #expect(throws: ReportSpecError.self) { try markup.makeDocument() }
      #expect(markupError?.path == "spec.content[0].markup")
      #expect(markupError?.message.hasPrefix("invalid markup") == true)
    }
  }

  @Test func validSpecBuildsTheDocument() throws {
    let json = #"""
      {"title": "T", "page": {"width": 400, "height": 500}, "margins": 20, "fontSize": 9, "pageNumbers": false,
       "content": [{"heading": "H", "level": 2}, {"paragraph": "P"}, {"markup": "<i>M</i>"},
                   {"table": {"columns": ["A", "B"], "widths": [2, 1], "rows": [["1"]]}}, {"pageBreak": true}]}
      """#
    let document = try ReportSpec(jsonData: Data(json.utf8)).makeDocument()
    #expect(document.title == "T")
    #expect(document.pageSize == Size(width: 400, height: 500))
    #expect(document.margins == EdgeInsets(all: 20))
    #expect(document.style.body.fontSize == 9)
    #expect(!document.showsPageNumbers)
    #expect(
      document.blocks == [
        .heading("H", level: 2), .paragraph(.plain("P")), .paragraph(.markup("<i>M</i>")),
        .table(ReportTable(columns: ["A", "B"], widths: [2, 1], rows: [["1"]])), .pageBreak,
      ])
    let letter = try ReportSpec(jsonData: Data(json.utf8)).makeDocument(pageSize: .letter)
    #expect(letter.pageSize == .letter)
  }

  /// The sample in `samples/report.json` (used by the README) lays out and prints to PDF.
  @Test func sampleSpecRendersToAMultiPagePDF() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let spec = try ReportSpec(contentsOfFile: root.appendingPathComponent("samples/report.json").path)
    let layout = try ReportLayout(try spec.makeDocument())
    #expect(layout.pages.count >= 2)
    #expect(layout.pages[0].elements.contains { if case .image = $0 { return true } else { return false } })
    try Poppler.withPDF(layout.pdfData()) { pdf in
      #expect(try Poppler.pageCount(pdf) == layout.pages.count)
      let text = try Poppler.run("pdftotext", [pdf, "-"])
      #expect(text.contains("Quarterly sales report"))
      #expect(text.contains("Highlands"))
    }
  }
}
