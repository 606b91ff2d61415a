import Foundation
import Testing

@testable import AsyncLayer

/// Our own structure tree (issue 29, goal 6) against cairo's tags, on the same layouts: the same
/// element types in the same nesting with the same text (`pdfinfo -struct-text`), the parent tree
/// and `/StructParents` consistent with every element's marked content, qpdf clean, and the same
/// text and pixels as cairo's tagged PDF.
///
/// The one difference allowed, and counted: cairo 1.16 marks no content of an element that also
/// holds a link (a contents entry `TOCI`, a paragraph with a linked span), so such an element has
/// no text in cairo's tree and its text in ours. A run that `ET … BT` splits (a styled span,
/// emoji) is several marked contents in ours and one in cairo's: compared as their joined text.
@Suite(.enabled(if: QPDF.isInstalled, "qpdf is not installed: `make deps` (or `apt-get install qpdf`) installs it"))
struct ReportOwnStructureTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// One element line of `pdfinfo -struct-text`: depth, type, attributes, its own text (its
  /// quoted lines joined) and whether it holds a Link element.
  struct Element: CustomStringConvertible {
    var depth: Int
    var type: String
    var attributes: [String] = []
    var text = ""
    var holdsLink = false
    var description: String { "\(String(repeating: "  ", count: depth))\(type) \(attributes) \"\(text)\"" }
  }

  static func structure(_ pdf: String) throws -> [Element] {
    let output = try Poppler.run("pdfinfo", ["-struct-text", pdf])
    var elements: [Element] = []
    var stack: [Int] = []  // indices of the open elements by depth
    var pendingText: String?
    for rawLine in output.split(separator: "\n", omittingEmptySubsequences: false) {
      let line = String(rawLine)
      // A text that runs over several lines (a newline inside the marked content's text).
      if var text = pendingText {
        text += "\n" + line
        if line.hasSuffix("\"") {
          pendingText = nil
          if let owner = stack.last { elements[owner].text += String(text.dropFirst().dropLast()) }
        } else {
          pendingText = text
        }
        continue
      }
      let trimmed = line.drop { $0 == " " }
      guard !trimmed.isEmpty else { continue }
      let depth = (line.count - trimmed.count) / 2
      while stack.count > depth { stack.removeLast() }
      if trimmed.hasPrefix("\"") {
        if trimmed.count >= 2, trimmed.hasSuffix("\"") {
          if let owner = stack.last { elements[owner].text += String(trimmed.dropFirst().dropLast()) }
        } else {
          pendingText = String(trimmed)
        }
      } else if trimmed.hasPrefix("Object ") {
        continue
      } else if trimmed.hasPrefix("/") {
        if let owner = stack.last { elements[owner].attributes.append(String(trimmed)) }
      } else {
        var type = String(trimmed)
        for suffix in [" (block)", " (inline)", ":"] where type.hasSuffix(suffix) { type.removeLast(suffix.count) }
        if type == "Link", let parent = stack.last { elements[parent].holdsLink = true }
        elements.append(Element(depth: depth, type: type))
        stack.append(elements.count - 1)
      }
    }
    return elements
  }

  /// Checks `layout`'s PDF with our tree against its PDF with cairo's tags; returns how many
  /// elements have text only in ours (cairo's linked elements).
  @discardableResult
  static func compare(_ layout: ReportLayout, minimumElements: Int) throws -> Int {
    let cairo = try layout.pdfData(isCancelled: { false }, ownStructure: false)
    let own = try layout.ownTaggedPDFData()
    let untagged = try layout.ownMarking().data
    var textOnlyInOurs = 0
    try Poppler.withPDF(cairo) { cairoPath in
      try Poppler.withPDF(own) { ownPath in
        let check = try QPDF.check(ownPath)
        #expect(check.status == 0, "qpdf --check: \(check.output)")
        #expect(!check.output.contains("WARNING"), "qpdf --check: \(check.output)")
        let expected = try structure(cairoPath)
        let found = try structure(ownPath)
        #expect(found.count == expected.count, "\(found.count) elements, cairo \(expected.count)")
        #expect(found.count >= minimumElements)
        for (index, (ours, theirs)) in zip(found, expected).enumerated() {
          #expect(
            ours.depth == theirs.depth && ours.type == theirs.type && ours.attributes == theirs.attributes,
            "element \(index): \(ours) vs cairo's \(theirs)")
          if ours.text == theirs.text { continue }
          if theirs.text.isEmpty, ours.holdsLink, !ours.text.isEmpty {
            textOnlyInOurs += 1
            continue
          }
          Issue.record("element \(index): text \"\(ours.text)\" vs cairo's \"\(theirs.text)\"")
        }
        #expect(try Poppler.run("pdftotext", [cairoPath, "-"]) == Poppler.run("pdftotext", [ownPath, "-"]))
        // Pixels against the untagged drawing ours marks: cairo's tagged stream places each cell
        // with its own text matrix (a new text object per tag), which moves some glyphs by a
        // fraction of a pixel.
        let before = try Poppler.withPDF(untagged) { try Poppler.grayPages($0, dpi: 36) }
        let after = try Poppler.grayPages(ownPath, dpi: 36)
        #expect(before.count == after.count && before.count == layout.pages.count)
        for (page, (a, b)) in zip(before, after).enumerated() {
          let differing = zip(a.bytes, b.bytes).count { $0 != $1 }
          #expect(a.bytes.count == b.bytes.count && differing == 0, "page \(page + 1): \(differing) pixels differ")
        }
        try checkParentTree(ownPath, language: layout.metadata.language)
      }
    }
    return textOnlyInOurs
  }

  /// Every element's marked content and annotation is found back through its page's
  /// `/StructParents` (or the annotation's `/StructParent`) in the parent tree, the catalog is
  /// marked, and `/Lang` is there when the document has a language.
  static func checkParentTree(_ pdf: String, language: String?) throws {
    let file = try QPDF(pdf)
    let catalog = try #require(file.catalog)
    #expect(file.dictionary(catalog["/MarkInfo"])?["/Marked"] as? Bool == true)
    if let language { #expect(QPDF.text(catalog["/Lang"]) == language || catalog["/Lang"] != nil) }
    let treeRoot = try #require(file.dictionary(catalog["/StructTreeRoot"]))
    let parentTree = try #require(file.dictionary(treeRoot["/ParentTree"]))
    let nums = try #require(file.array(parentTree["/Nums"]))
    var entries: [Int: Any] = [:]
    for pair in stride(from: 0, to: nums.count - 1, by: 2) {
      entries[(nums[pair] as? NSNumber)?.intValue ?? -1] = nums[pair + 1]
    }
    var checkedContents = 0
    var checkedAnnotations = 0
    var stack: [(reference: String, element: [String: Any])] = []
    for kid in file.array(treeRoot["/K"]) ?? [] {
      if let reference = kid as? String, let element = file.dictionary(reference) { stack.append((reference, element)) }
    }
    while let (reference, element) = stack.popLast() {
      let kids: [Any] = file.array(element["/K"]) ?? (element["/K"].map { [$0] } ?? [])
      for kid in kids {
        if let id = (kid as? NSNumber)?.intValue {
          let page = try #require(file.dictionary(element["/Pg"]), "\(reference) has marked content but no /Pg")
          let key = try #require((page["/StructParents"] as? NSNumber)?.intValue)
          let owners = try #require(file.array(entries[key]), "no parent tree entry \(key)")
          #expect(id < owners.count && owners[id] as? String == reference, "MCID \(id) of \(reference)")
          checkedContents += 1
        } else if let kidReference = kid as? String, let child = file.dictionary(kidReference) {
          stack.append((kidReference, child))
        } else if let objr = kid as? [String: Any], objr["/Type"] as? String == "/OBJR" {
          let annotation = try #require(file.dictionary(objr["/Obj"]))
          let key = try #require((annotation["/StructParent"] as? NSNumber)?.intValue)
          #expect(entries[key] as? String == reference, "annotation \(String(describing: objr["/Obj"]))")
          checkedAnnotations += 1
        }
      }
    }
    #expect(checkedContents > 0)
    // Each element's marked content is tagged with its own type in the page's content stream
    // (ours `/TD <</MCID 3>> BDC`, cairo's figures and links `/Figure << /MCID 0 >> BDC`): a
    // link's and a figure's MCIDs on one page are not swapped.
    var tags: [String: String] = [:]  // "page reference/MCID" -> tag
    for page in file.pages {
      guard let contents = file.dictionary(page)?["/Contents"] as? String else { continue }
      let stream = try Self.streamData(pdf, object: contents)
      let pattern = try NSRegularExpression(pattern: "/(\\w+) ?<< ?/MCID (\\d+) ?>> ?BDC")
      let text = stream as NSString
      for match in pattern.matches(in: stream, range: NSRange(location: 0, length: text.length)) {
        tags["\(page)/\(text.substring(with: match.range(at: 2)))"] = text.substring(with: match.range(at: 1))
      }
    }
    var checkedTags = 0
    for (_, value) in file.objects {
      guard let element = file.dictionary(value), element["/Type"] as? String == "/StructElem",
        let type = element["/S"] as? String, let page = element["/Pg"] as? String
      else { continue }
      let kids: [Any] = file.array(element["/K"]) ?? (element["/K"].map { [$0] } ?? [])
      for case let id as NSNumber in kids {
        #expect(tags["\(page)/\(id.intValue)"].map { "/" + $0 } == type, "MCID \(id) on \(page) of a \(type)")
        checkedTags += 1
      }
    }
    #expect(checkedTags == checkedContents)
    // Every page can be looked up.
    for page in file.pages {
      let key = try #require((file.dictionary(page)?["/StructParents"] as? NSNumber)?.intValue, "\(page)")
      #expect(entries[key] != nil)
    }
    _ = checkedAnnotations
  }

  /// The decoded data of stream object `reference` ("12 0 R"), as text.
  static func streamData(_ pdf: String, object reference: String) throws -> String {
    let number = reference.split(separator: " ").first.map(String.init) ?? ""
    return try Poppler.run("qpdf", ["--show-object=\(number)", "--filtered-stream-data", pdf])
  }

  static func layout(json: String) throws -> ReportLayout {
    try ReportLayout(try ReportSpec(jsonData: Data(json.utf8)).makeDocument())
  }

  @Test func smallReportWithEveryElementKind() throws {
    let layout = try Self.layout(
      json: """
        {"title": "Small", "header": "{title}", "footer": "Page {page} of {pages}", "date": "2024-03-05",
         "language": "en-GB",
         "content": [{"contents": true}, {"heading": "First"}, {"paragraph": "Hello paragraph text."},
           {"list": {"items": ["one", {"text": "two", "list": {"numbered": true, "items": ["a", "b"]}}]}},
           {"table": {"columns": ["A", "B"], "rows": [["a1", "b1"], ["a2", ""]]}},
           {"spans": [{"text": "see "}, {"text": "the site", "link": "https://example.com"}, {"text": " now"}]},
           {"heading": "Second", "level": 2}, {"markup": "Bye <b>bold</b> and <i>italic</i>."}]}
        """)
    // The two contents entries and the paragraph with a link: text only in ours.
    #expect(try Self.compare(layout, minimumElements: 20) == 3)
  }

  /// A glyph no font has is drawn by pango as a hex box with a font of its own, which the drawing
  /// record cannot count: our tree refuses the report (a typed failure, never a wrong tree) and the
  /// PDF is drawn again with cairo's tags, tagged all the same, and the fallback is counted.
  @Test func uncountableRunFallsBackToCairosTagsAndIsCounted() throws {
    let layout = try Self.layout(
      json: "{\"title\": \"Boxes\", \"content\": [{\"heading\": \"Unknown\"}, {\"paragraph\": \"a \u{10FFFD} b\"}]}")
    #expect(throws: ReportOwnMarking.Failure.self) { try layout.ownTaggedPDFData() }
    let before = ReportLayout.ownStructureFallbackCount
    let pdf = try layout.pdfData()
    // Other tests may fall back at the same time; this one adds at least its own.
    #expect(ReportLayout.ownStructureFallbackCount > before)
    #expect(String(decoding: pdf, as: UTF8.self).contains("/StructTreeRoot"))
  }

  /// Contents over several pages, a long paragraph across pages, an underlined link (pango paints
  /// the underline after the run's glyphs) and header and footer templates.
  @Test func bookWithContentsAndUnderlinedLink() throws {
    let layout = try ReportLayout(ReportPageFeatureTests.document())
    #expect(layout.pages.count >= 5)
    #expect(try Self.compare(layout, minimumElements: 20) >= 7)
  }

  @Test func scriptsTable() throws {
    let layout = try ReportOwnMarkingTests.scriptsLayout(rows: 40)
    #expect(layout.pages.count >= 2)
    try Self.compare(layout, minimumElements: 200)
  }

  @Test func featureTable() throws {
    let layout = try ReportOwnMarkingTests.featureTableLayout(rows: 150)
    #expect(layout.pages.count >= 4)
    #expect(try Self.compare(layout, minimumElements: 900) >= 1)
  }

  @Test func sampleReportWithoutItsImage() throws {
    let spec = try ReportSpec(contentsOfFile: Self.root.appendingPathComponent("samples/report.json").path)
    var document = try spec.makeDocument()
    let count = document.blocks.count
    document.blocks.removeAll {
      if case .image = $0 { return true }
      return false
    }
    #expect(document.blocks.count == count - 1)
    let layout = try ReportLayout(document)
    try Self.compare(layout, minimumElements: 100)
  }

  @Test func elementsSample() throws {
    let spec = try ReportSpec(contentsOfFile: Self.root.appendingPathComponent("samples/report-elements.json").path)
    let layout = try ReportLayout(try spec.makeDocument())
    try Self.compare(layout, minimumElements: 30)
  }

  /// Figures (an SVG and a JPEG image, two charts with text, a QR code; the sample's PNG image):
  /// drawn inside a cairo `Figure` tag of their own, whose MCID our tree takes, with `/Alt`.
  @Test(arguments: ["samples/report.json", "samples/report-figures.json"])
  func figures(_ path: String) throws {
    let spec = try ReportSpec(contentsOfFile: Self.root.appendingPathComponent(path).path)
    let layout = try ReportLayout(try spec.makeDocument())
    try Self.compare(layout, minimumElements: 10)
    let own = try layout.ownTaggedPDFData()
    try Poppler.withPDF(own) { pdf in
      let figures = try Self.structure(pdf).filter { $0.type == "Figure" }
      #expect(!figures.isEmpty)
      // /Alt is where the spec gave `alt` (pdfinfo prints it as an attribute line).
      let file = try QPDF(pdf)
      let alts = file.objects.values.compactMap { file.dictionary($0) }.filter { $0["/S"] as? String == "/Figure" }
        .compactMap { QPDF.text($0["/Alt"]) }
      #expect(alts.count == (path.hasSuffix("figures.json") ? 5 : 0), "\(alts)")
    }
  }
}
