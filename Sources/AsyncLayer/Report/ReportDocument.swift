public import Foundation

/// The content of a report: a page size and margins, then headings, paragraphs, tables and images
/// in reading order. Lay it out once with ``ReportLayout/init(_:)`` and draw the layout to PNG, PDF
/// or SVG.
///
/// ```swift
/// var report = ReportDocument(title: "Quarterly report", pageSize: .a4, margins: EdgeInsets(all: 56))
/// report.addHeading("Summary")
/// report.addParagraph("Sales grew in every region…")
/// report.addTable(ReportTable(columns: ["Region", "Sales"], widths: [3, 1], rows: [["North", "1 204"]]))
/// let layout = try ReportLayout(report)
/// try layout.pdfData().write(to: URL(fileURLWithPath: "report.pdf"))
/// ```
public struct ReportDocument: Sendable, Hashable {
  /// Shown at the top of the first page in ``ReportStyle/title``, and stored as the PDF's title.
  public var title: String?
  /// The page size in points; see ``Size/a4`` and ``Size/letter``.
  public var pageSize: Size
  /// Space between the page edges and the content, in points. The page-number footer sits in the
  /// bottom margin.
  public var margins: EdgeInsets
  /// Fonts, colours and spacing.
  public var style: ReportStyle
  /// Whether each page gets a footer (``footer``, by default "Page N of M").
  public var showsPageNumbers: Bool
  /// The text at the top of each page, in the top margin, or nil for none. Fields: `{page}`,
  /// `{pages}`, `{date}` (``date``, as yyyy-MM-dd), `{title}`.
  ///
  /// ```swift
  /// report.header = "{title} — {date}"
  /// report.footer = "Page {page} of {pages}"
  /// ```
  public var header: String?
  /// The footer template, with the fields of ``header``, when ``showsPageNumbers`` is on.
  public var footer: String = "Page {page} of {pages}"
  /// The first page's header template, nil for ``header`` (an empty string for none): a cover page
  /// or letterhead that differs from the pages after it.
  ///
  /// ```swift
  /// report.firstPageHeader = ""                        // no running header on the cover
  /// report.firstPageFooter = "{title}, {date}"
  /// ```
  public var firstPageHeader: String?
  /// The first page's footer template, nil for ``footer`` (an empty string for none).
  public var firstPageFooter: String?
  /// The date `{date}` shows and the PDF's creation date.
  public var date: Date = Date()
  /// The PDF's author, subject and keywords (its title is ``title``).
  public var metadata = ReportMetadata()
  /// The content, in reading order.
  public var blocks: [ReportBlock]
  /// How much text each block accepts: a paragraph, a heading, a table cell (see ``TextLimits``).
  /// A paragraph over them is refused; split long text into several paragraphs.
  public var textLimits: TextLimits

  /// A document with the given page setup and blocks; add content with ``addHeading(_:level:)``,
  /// ``addParagraph(_:)-(String)``, ``addTable(_:)`` and ``addImage(_:)``.
  public init(
    title: String? = nil, pageSize: Size = .a4, margins: EdgeInsets = EdgeInsets(all: 56),
    style: ReportStyle = ReportStyle(), showsPageNumbers: Bool = true, blocks: [ReportBlock] = [],
    textLimits: TextLimits = .default
  ) {
    self.title = title
    self.pageSize = pageSize
    self.margins = margins
    self.style = style
    self.showsPageNumbers = showsPageNumbers
    self.blocks = blocks
    self.textLimits = textLimits
  }

  /// Appends a heading; `level` 1 is the largest (levels beyond the styles use the last one).
  public mutating func addHeading(_ text: String, level: Int = 1) {
    blocks.append(.heading(text, level: level))
  }

  /// Appends a paragraph of plain text.
  public mutating func addParagraph(_ text: String) {
    blocks.append(.paragraph(.plain(text)))
  }

  /// Appends a paragraph of plain text or Pango markup.
  public mutating func addParagraph(_ content: TextContent) {
    blocks.append(.paragraph(content))
  }

  /// Appends a table.
  public mutating func addTable(_ table: ReportTable) {
    blocks.append(.table(table))
  }

  /// Appends a table of contents: one line per heading (levels 1 to 3), with its page number,
  /// linked to the heading in the PDF.
  public mutating func addTableOfContents() {
    blocks.append(.tableOfContents)
  }

  /// Appends an image, scaled down to fit the content width (never scaled up).
  public mutating func addImage(_ image: RenderedImage) {
    blocks.append(.image(image))
  }

  /// Appends a bulleted or numbered list.
  public mutating func addList(_ list: ReportList) {
    blocks.append(.list(list))
  }

  /// Appends a page break: what follows starts on a new page.
  public mutating func addPageBreak() {
    blocks.append(.pageBreak)
  }
}

/// One piece of a report's content.
public enum ReportBlock: Sendable, Hashable {
  /// A heading that stays on the same page as the start of what follows it.
  case heading(String, level: Int)
  /// Text that flows across pages, split between lines.
  case paragraph(TextContent)
  /// A table whose header row repeats on every page it spans.
  case table(ReportTable)
  /// An image scaled down to fit the content width, and the content height if need be.
  case image(RenderedImage)
  /// Starts a new page.
  case pageBreak
  /// The headings of the document with their page numbers (see ``ReportDocument/addTableOfContents()``).
  case tableOfContents
  /// A picture kept whole on one page: an image, an SVG, a chart or a QR code.
  case figure(ReportFigure)
  /// A bulleted or numbered list, with nested lists (see ``ReportList``).
  case list(ReportList)
  /// A block with page-flow options: kept whole on one page, or on the same page as the start of
  /// the next block.
  ///
  /// ```swift
  /// report.blocks.append(.flow(.paragraph(.plain("Signature: ____")), [.keepTogether]))
  /// ```
  indirect case flow(ReportBlock, ReportFlow)
}

extension ReportBlock {
  /// The block inside any ``flow(_:_:)`` options.
  var withoutFlow: ReportBlock {
    var block = self
    while case .flow(let inner, _) = block { block = inner }
    return block
  }
}

/// Page-flow options of a block (``ReportBlock/flow(_:_:)``).
public struct ReportFlow: OptionSet, Sendable, Hashable {
  /// The option bits.
  public let rawValue: Int

  /// Creates options from their bits.
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// The block moves to the next page whole rather than break, unless it is taller than a page.
  public static let keepTogether = ReportFlow(rawValue: 1)
  /// The block never ends a page: it moves to the next page with the start of the block after it,
  /// as a heading always does.
  public static let keepWithNext = ReportFlow(rawValue: 2)
}

/// The PDF's descriptive metadata (besides the title).
///
/// ```swift
/// report.metadata = ReportMetadata(author: "Finance", subject: "Q3 sales", keywords: ["sales", "2024"],
///                                  language: "en")
/// ```
public struct ReportMetadata: Sendable, Hashable {
  /// The PDF's Author entry.
  public var author: String?
  /// The PDF's Subject entry.
  public var subject: String?
  /// The PDF's Keywords entry, joined with commas.
  public var keywords: [String]
  /// The document's language as a BCP 47 tag (`"en"`, `"de-CH"`): the PDF catalog's `/Lang`,
  /// which screen readers use to pick a voice.
  public var language: String?
  /// Whether the PDF carries a structure tree (tagged PDF: headings, paragraphs, tables, lists
  /// and figures for screen readers and reflow). On by default. Off saves what cairo 1.16 spends
  /// on the tags (about 30% of the instructions of a 2,000-row table report, docs/reports.md), at
  /// the cost of the accessibility; the outline, links and `/Lang` stay.
  public var tagged: Bool

  /// Metadata with the given entries; nil and empty ones are left out of the PDF.
  public init(
    author: String? = nil, subject: String? = nil, keywords: [String] = [], language: String? = nil,
    tagged: Bool = true
  ) {
    self.author = author
    self.subject = subject
    self.keywords = keywords
    self.language = language
    self.tagged = tagged
  }
}

/// A table: column titles, relative column widths, rows of wrapped text, and per column an
/// alignment and a format.
///
/// ```swift
/// var table = ReportTable(columns: ["Item", "Qty", "Price"], widths: [3, 1, 1],
///                         rows: [["Paper, A4, 500 sheets", "4", "12"]])
/// table.alignments = [.natural, .right, .decimal]
/// table.formats = [.text, .number(decimals: 0), .currency(symbol: "€", decimals: 2)]
/// ```
public struct ReportTable: Sendable, Hashable {
  /// The titles of the header row.
  public var columns: [String]
  /// Relative widths, one per column (`[2, 1]` gives the first column two thirds); the table spans
  /// the content width.
  public var widths: [Double]
  /// The cells, row by row; a row with fewer cells than columns leaves the rest empty.
  public var rows: [[String]]
  /// How each column's cells sit; missing columns are ``ReportColumnAlignment/natural``. The header
  /// cell follows its column (a decimal column's header is right-aligned).
  public var alignments: [ReportColumnAlignment] = []
  /// How each column's body cells are written; missing columns are ``ReportColumnFormat/text``.
  public var formats: [ReportColumnFormat] = []
  /// Rows drawn once at the table's end (totals), in the header's style and background, kept
  /// together on one page; formats and alignments apply as in the body.
  public var footerRows: [[String]] = []
  /// Spans and per-cell styles, by position (see ``ReportTableCell``).
  ///
  /// ```swift
  /// table.footerRows = [["Total", "", "1 234.50"]]
  /// table.cellOptions[ReportTableCellIndex(row: table.rows.count, column: 0)] = ReportTableCell(columnSpan: 2)
  /// ```
  public var cellOptions: [ReportTableCellIndex: ReportTableCell] = [:]

  /// A table; `widths` defaults to equal columns.
  public init(columns: [String], widths: [Double]? = nil, rows: [[String]]) {
    self.columns = columns
    self.widths = widths ?? Array(repeating: 1, count: columns.count)
    self.rows = rows
  }
}
