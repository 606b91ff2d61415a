import AsyncLayer
import Foundation
import Testing

/// What a reader of a report PDF relies on, read back from the written file with qpdf and
/// poppler: contents links and the outline land on their headings, emoji are stored once at their
/// bitmap size and found by text extraction, the structure is tagged, and qpdf finds nothing wrong.
@Suite(.enabled(if: QPDF.isInstalled, "qpdf is not installed: `make deps` (or `apt-get install qpdf`) installs it"))
struct ReportPDFCorrectnessTests {
  static let page = Size(width: 360, height: 400)

  /// Six sections of about two pages each, with a level-2 heading in each, and the table of
  /// contents first or last.
  static func sections(contentsLast: Bool) throws -> ReportLayout {
    var document = ReportDocument(title: "Navigation", pageSize: page, margins: EdgeInsets(all: 36))
    if !contentsLast { document.addTableOfContents() }
    for section in 1...6 {
      document.addHeading("Section \(section)")
      document.addParagraph(ReportLayoutTests.numberedWords(250, prefix: "s\(section)w").joined(separator: " "))
      document.addHeading("Part \(section).1", level: 2)
      document.addParagraph(ReportLayoutTests.numberedWords(40, prefix: "p\(section)w").joined(separator: " "))
    }
    if contentsLast { document.addTableOfContents() }
    return try ReportLayout(document)
  }

  /// Each heading's first line in the layout: title, level, page and top (from the page's top).
  static func headings(of layout: ReportLayout) -> [(title: String, level: Int, page: Int, y: Double)] {
    layout.pages.flatMap { page in
      page.textRuns.compactMap { run in
        guard case .heading(let level) = run.role, run.lines.lowerBound == 0 else { return nil }
        return (run.content.source, level, page.number, run.frame.minY)
      }
    }
  }

  static func assertClean(_ pdf: String) throws {
    let check = try QPDF.check(pdf)
    #expect(check.status == 0, "qpdf --check: \(check.output)")
    #expect(!check.output.contains("WARNING"), "qpdf --check: \(check.output)")
  }

  @Test(arguments: [false, true])
  func contentsLinksLandOnTheirHeadings(contentsLast: Bool) throws {
    let layout = try Self.sections(contentsLast: contentsLast)
    let headings = Self.headings(of: layout)
    #expect(headings.count == 12)
    try Poppler.withPDF(layout.pdfData()) { pdf in
      try Self.assertClean(pdf)
      let reader = try QPDF(pdf)
      #expect(reader.pages.count == layout.pages.count)
      var found: [(page: Int, top: Double)] = []
      var farthest = 0
      for page in 1...reader.pages.count {
        let links = reader.links(onPage: page)
        for link in links {
          found.append((link.page, link.top ?? .nan))
          farthest = max(farthest, abs(link.page - page))
        }
        // Entries on touching lines must not overlap: a click in the overlap could go to either.
        let rects = links.map(\.rect).filter { $0.count == 4 }
        for (index, a) in rects.enumerated() {
          for b in rects[(index + 1)...] {
            let overlapX = min(a[2], b[2]) - max(a[0], b[0])
            let overlapY = min(a[3], b[3]) - max(a[1], b[1])
            #expect(overlapX <= 0 || overlapY <= 0, "link rectangles overlap on page \(page): \(a) and \(b)")
          }
        }
      }
      // One link per heading, each to the heading's page and its top (PDF y grows upwards).
      #expect(found.count == headings.count)
      for heading in headings {
        let hit = found.contains { $0.page == heading.page && abs($0.top - (Self.page.height - heading.y)) < 0.01 }
        #expect(hit, "no contents link lands on \(heading.title) (page \(heading.page), y \(heading.y))")
      }
      // Forward (contents first) or backward (contents last) by several pages.
      #expect(farthest >= 5)
    }
  }

  @Test func outlineMirrorsTheHeadings() throws {
    let layout = try Self.sections(contentsLast: false)
    let headings = Self.headings(of: layout)
    try Poppler.withPDF(layout.pdfData()) { pdf in
      let outline = try QPDF(pdf).outline
      #expect(outline.count == headings.count)
      for (entry, heading) in zip(outline, headings) {
        #expect(entry.title == heading.title)
        #expect(entry.level == heading.level)
        #expect(entry.page == heading.page)
        #expect(abs((entry.top ?? .nan) - (Self.page.height - heading.y)) < 0.01, "\(entry.title)")
      }
      #expect(outline.map(\.level) == Array(repeating: [1, 2], count: 6).flatMap { $0 })
    }
  }

  /// Two emoji, 30 times each, over two pages.
  static func emojiLayout() throws -> ReportLayout {
    var document = ReportDocument(pageSize: Size(width: 300, height: 260), margins: EdgeInsets(all: 30))
    document.addHeading("Emoji")
    document.addParagraph((0..<30).map { "item \($0) 😀 done 🎉" }.joined(separator: ", "))
    return try ReportLayout(document)
  }

  @Test func emojiAreStoredOnceAtTheirBitmapSizeAndExtracted() throws {
    let layout = try Self.emojiLayout()
    #expect(layout.pages.count >= 2)
    try Poppler.withPDF(layout.pdfData()) { pdf in
      try Self.assertClean(pdf)
      let images = try QPDF(pdf).images
      // Noto Color Emoji's strike: 136 × 128 pixels, one image per distinct emoji.
      #expect(images.count == 2, "\(images)")
      #expect(images.allSatisfy { $0.width >= 128 && $0.height >= 128 }, "\(images)")
      let text = try Poppler.run("pdftotext", [pdf, "-"])
      #expect(text.components(separatedBy: "😀").count - 1 == 30)
      #expect(text.components(separatedBy: "🎉").count - 1 == 30)
      #expect(text.contains("item 29"))
    }
  }

  @Test func svgStoresEachEmojiOnce() throws {
    let svg = String(decoding: try Self.emojiLayout().svgData(), as: UTF8.self)
    #expect(svg.components(separatedBy: "<image").count - 1 == 2)
  }

  @Test func pdfIsTagged() throws {
    var document = ReportDocument(title: "Tagged", pageSize: Self.page, margins: EdgeInsets(all: 36))
    document.addTableOfContents()
    document.addHeading("Figures")
    document.addParagraph("A paragraph before the table.")
    document.addHeading("Rows", level: 2)
    document.addTable(ReportTable(columns: ["Key", "Value"], rows: (0..<30).map { ["k\($0)", "v\($0)"] }))
    document.addImage(RenderedImage(pixelWidth: 4, pixelHeight: 4, pixels: Array(repeating: 0xff33_6699, count: 16)))
    let layout = try ReportLayout(document)
    try Poppler.withPDF(layout.pdfData()) { pdf in
      try Self.assertClean(pdf)
      let info = try Poppler.run("pdfinfo", [pdf])
      #expect(info.split(separator: "\n").contains { $0.hasPrefix("Tagged:") && $0.hasSuffix("yes") }, "\(info)")
      let structure = try QPDF(pdf).structure
      let types = Set(structure.map(\.type))
      for type in ["/Document", "/H1", "/H2", "/P", "/Table", "/TR", "/TH", "/TD", "/TOC", "/TOCI", "/Link", "/Figure"]
      {
        #expect(types.contains(type), "no \(type) in \(structure.map(\.type))")
      }
      // Cells sit in rows in tables.
      #expect(structure.contains { $0.type == "/TD" && $0.depth == 3 })
      // The structure tree is in compressed object streams, not one plain object per element.
      let bytes = try Data(contentsOf: URL(fileURLWithPath: pdf))
      #expect(bytes.range(of: Data("/Type /ObjStm".utf8)) != nil)
      #expect(bytes.range(of: Data("/Type /StructElem".utf8)) == nil)
    }
  }

  /// Figures with and without alternative text, the last several pages after the first, and a
  /// table whose header row repeats on each page.
  static func figuresAndTable() throws -> ReportDocument {
    var document = ReportDocument(title: "Figures", pageSize: page, margins: EdgeInsets(all: 36))
    document.metadata = ReportMetadata(language: "en")
    let square = Size(width: 60, height: 60)
    document.addFigure(ReportFigure(.qrCode(try QRCode("https://example.com")), size: square, alternativeText: "Pay"))
    document.addImage(RenderedImage(pixelWidth: 4, pixelHeight: 4, pixels: Array(repeating: 0xff33_6699, count: 16)))
    let chart = Chart(kind: .bar, categories: ["a", "b"], series: [.init(name: "n", values: [1, 2])])
    document.addFigure(ReportFigure(.chart(chart), size: square, alternativeText: "Sales (2024): a 1, b 2 — ü 😀"))
    document.addFigure(ReportFigure(.qrCode(try QRCode("no alt")), size: square))
    document.addTable(ReportTable(columns: ["Key", "Value"], rows: (0..<60).map { ["k\($0)", "v\($0)"] }))
    document.addFigure(ReportFigure(.qrCode(try QRCode("last")), size: square, alternativeText: "Last page's code"))
    return document
  }

  @Test func figuresCarryTheirAlternativeTextAndHeaderCellsTheirScope() throws {
    let layout = try ReportLayout(Self.figuresAndTable())
    #expect(layout.pages.count >= 3)
    try Poppler.withPDF(layout.pdfData()) { pdf in
      try Self.assertClean(pdf)
      let reader = try QPDF(pdf)
      let elements = reader.structureElements
      let figures = elements.filter { $0.type == "/Figure" }
      #expect(
        figures.map { QPDF.text($0.dictionary["/Alt"]) }
          == ["Pay", nil, "Sales (2024): a 1, b 2 — ü 😀", nil, "Last page's code"])
      let headers = elements.filter { $0.type == "/TH" }
      // Two columns, the header row on each page the table spans.
      #expect(headers.count >= 4 && headers.count % 2 == 0, "\(headers.count) TH")
      for header in headers {
        let attributes = reader.dictionary(header.dictionary["/A"])
        #expect(attributes?["/O"] as? String == "/Table" && attributes?["/Scope"] as? String == "/Column")
      }
      #expect(!elements.contains { $0.type == "/TD" && $0.dictionary["/A"] != nil })
      #expect(QPDF.text(reader.catalog?["/Lang"]) == "en")
    }
  }

  @Test func untaggedPDFHasNoStructureAttributes() throws {
    var document = try Self.figuresAndTable()
    document.metadata = ReportMetadata(language: "en", tagged: false)
    try Poppler.withPDF(ReportLayout(document).pdfData()) { pdf in
      try Self.assertClean(pdf)
      let reader = try QPDF(pdf)
      #expect(!reader.structureElements.contains { $0.type == "/Figure" || $0.type == "/TH" })
      #expect(QPDF.text(reader.catalog?["/Lang"]) == "en")
    }
  }

  @Test func untaggedPDFKeepsTheOutlineAndLanguage() throws {
    var document = ReportDocument(title: "Plain", pageSize: Self.page, margins: EdgeInsets(all: 36))
    document.metadata = ReportMetadata(language: "en", tagged: false)
    // Contents links: cairo makes Link structure elements for them even in an untagged PDF.
    document.addTableOfContents()
    document.addHeading("Rows")
    document.addTable(ReportTable(columns: ["Key", "Value"], rows: (0..<30).map { ["k\($0)", "v\($0)"] }))
    try Poppler.withPDF(ReportLayout(document).pdfData()) { pdf in
      try Self.assertClean(pdf)
      let info = try Poppler.run("pdfinfo", [pdf])
      #expect(info.split(separator: "\n").contains { $0.hasPrefix("Tagged:") && $0.hasSuffix("no") }, "\(info)")
      let reader = try QPDF(pdf)
      #expect(reader.catalog?["/MarkInfo"] == nil)
      #expect(QPDF.text(reader.catalog?["/Lang"]) == "en")
      #expect(reader.outline.map(\.title) == ["Rows"])
    }
  }

  @Test(arguments: ["en", "de-CH", "x (odd) ü"])
  func languageIsInTheCatalog(language: String) throws {
    var document = ReportDocument(title: "Sprache", pageSize: Self.page, margins: EdgeInsets(all: 36))
    document.metadata = ReportMetadata(author: "Tests", language: language)
    document.addHeading("Kapitel")
    document.addParagraph("Ein Absatz.")
    try Poppler.withPDF(ReportLayout(document).pdfData()) { pdf in
      try Self.assertClean(pdf)
      let reader = try QPDF(pdf)
      #expect(QPDF.text(reader.catalog?["/Lang"]) == language)
      // The update keeps what cairo wrote: the structure tree, the outline, the information.
      #expect(reader.catalog?["/StructTreeRoot"] != nil)
      #expect(reader.outline.map(\.title) == ["Kapitel"])
      #expect(try Poppler.run("pdfinfo", [pdf]).contains("Tests"))
    }
  }

  @Test func everyReportPDFPassesQPDF() throws {
    let (layout, _, _) = try ReportOutputTests.sampleLayout()
    try Poppler.withPDF(layout.pdfData()) { pdf in try Self.assertClean(pdf) }
  }
}
