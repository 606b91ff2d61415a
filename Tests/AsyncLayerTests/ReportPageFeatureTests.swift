import AsyncLayer
import Foundation
import Testing

/// Header and footer templates, table of contents, PDF links and metadata.
@Suite("Report pages: templates, contents, links, metadata")
struct ReportPageFeatureTests {
  static let date = ISO8601DateFormatter().date(from: "2024-03-05T10:00:00Z")!

  /// Three chapters on small pages, each long enough to take a page or more, after a contents block.
  static func document() -> ReportDocument {
    var document = ReportDocument(title: "Book", pageSize: Size(width: 300, height: 300), margins: EdgeInsets(all: 30))
    document.date = date
    document.header = "{title} — {date}"
    document.footer = "p{page}/{pages}"
    document.addTableOfContents()
    for chapter in 1...3 {
      document.addHeading("Chapter \(chapter)")
      document.addParagraph(Array(repeating: "words of chapter \(chapter)", count: 60).joined(separator: " "))
      document.addHeading("Section \(chapter).1", level: 2)
      document.addParagraph("short")
    }
    var linked = AttributedText("See ")
    linked.append("the site", TextAttributes(underline: .single, link: "https://example.com/a'b"))
    document.addParagraph(.attributed(linked))
    document.metadata = ReportMetadata(author: "Ada", subject: "Tests", keywords: ["alpha", "beta"])
    return document
  }

  @Test("header and footer fields are filled on every page")
  func templates() throws {
    let layout = try ReportLayout(Self.document())
    for page in layout.pages {
      let header = try #require(page.textRuns.first { $0.role == .header })
      #expect(header.content == .plain("Book — 2024-03-05"))
      #expect(header.frame.maxY <= 30)
      let footer = try #require(page.textRuns.first { $0.role == .footer })
      #expect(footer.content == .plain("p\(page.number)/\(layout.pages.count)"))
    }
  }

  @Test("fields are filled as replacing {page}, {pages}, {date} and {title} in turn would fill them")
  func templateEdges() throws {
    var document = Self.document()
    document.title = "T {page} {pages}"
    document.header = "{{page}} {x} {pa{page}ges} {title}{date}{pages}{"
    document.footer = "{page}{pages}{ {title} }"
    let layout = try ReportLayout(document)
    #expect(layout.pages.count > 2)
    for page in layout.pages {
      // The definition: each field replaced in turn over the whole text.
      func filled(_ template: String) -> String {
        template.replacingOccurrences(of: "{page}", with: "\(page.number)")
          .replacingOccurrences(of: "{pages}", with: "\(layout.pages.count)")
          .replacingOccurrences(of: "{date}", with: "2024-03-05")
          .replacingOccurrences(of: "{title}", with: "T {page} {pages}")
      }
      let header = try #require(page.textRuns.first { $0.role == .header })
      #expect(header.content == .plain(filled(document.header!)))
      let footer = try #require(page.textRuns.first { $0.role == .footer })
      #expect(footer.content == .plain(filled(document.footer)))
    }
  }

  @Test("the contents list each heading with the page it is on, linked to it")
  func contents() throws {
    let layout = try ReportLayout(Self.document())
    var headingPage: [String: Int] = [:]
    for page in layout.pages {
      for run in page.textRuns {
        if case .heading = run.role { headingPage[run.content.source] = page.number }
      }
    }
    try #require(headingPage.count == 6)
    #expect(Set(headingPage.values).count >= 3, "\(headingPage)")
    let entries = layout.pages.flatMap(\.textRuns).filter {
      if case .tableOfContents = $0.role { return true }
      return false
    }
    // Title and number per heading, in order.
    try #require(entries.count == 12)
    for pair in stride(from: 0, to: entries.count, by: 2) {
      let title = entries[pair].content.source
      #expect(entries[pair + 1].content.source == "\(headingPage[title]!)", "\(title)")
    }
    let targets = layout.pages.flatMap(\.elements).compactMap { element -> Int? in
      if case .link(_, .page(let page, _)) = element { return page }
      return nil
    }
    #expect(
      targets
        == ["Chapter 1", "Section 1.1", "Chapter 2", "Section 2.1", "Chapter 3", "Section 3.1"].map {
          headingPage[$0]!
        })
  }

  @Test("the PDF has the links (external and internal) and the metadata")
  func pdf() throws {
    let layout = try ReportLayout(Self.document())
    let external = layout.pages.flatMap(\.elements).compactMap { element -> Rect? in
      if case .link(let rect, .url("https://example.com/a'b")) = element { return rect }
      return nil
    }
    #expect(external.count == 1)
    let data = try layout.pdfData()
    try Poppler.withPDF(data) { pdf in
      let bytes = String(decoding: data, as: UTF8.self)
      #expect(bytes.contains("/URI (https://example.com/a'b)"))
      #expect(bytes.components(separatedBy: "/Subtype /Link").count - 1 == 7)
      var info: [String: String] = [:]
      for line in try Poppler.run("pdfinfo", [pdf]).split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        info[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      }
      #expect(info["Title"] == "Book")
      #expect(info["Author"] == "Ada")
      #expect(info["Subject"] == "Tests")
      #expect(info["Keywords"] == "alpha, beta")
      #expect(info["CreationDate"]?.contains("2024") == true, "\(info)")
    }
  }
}
