public import Foundation

/// A report paginated once, at scale 1: pages of positioned text line ranges, table cells, rules
/// and images, ready to draw onto any surface.
///
/// Pagination is independent of the output: the PNG previews, the PDF and the SVG all draw the
/// same `ReportLayout`, so every page breaks its lines at the same places. The layout is
/// `Sendable`, so pages can be rendered in parallel from it.
///
/// ```swift
/// let layout = try ReportLayout(report)
/// layout.pages.count                                     // pages after pagination
/// let previews = try await layout.renderPages(scale: 2)  // one RenderedImage per page, in parallel
/// let pdf = try layout.pdfData()                         // text stays selectable
/// ```
public struct ReportLayout: Sendable, Hashable {
  /// The page size in points.
  public let pageSize: Size
  /// The area inside the margins, in points from the page's top-left corner.
  public let contentRect: Rect
  /// The document title (also the PDF's title metadata).
  public let title: String?
  /// The PDF's author, subject and keywords.
  public let metadata: ReportMetadata
  /// The document's date (the PDF's creation date).
  public let date: Date
  /// The pages, in order.
  public let pages: [ReportPage]
  /// Names this pagination, whose text layouts wait on its thread for the first output drawn
  /// there (``ReportPreparedLayouts``); equal in every layout.
  let preparedLayouts = ReportPreparedLayouts.Token()

  /// Paginates `document` on the calling thread; throws ``ReportError`` for a page too small for
  /// its margins or a malformed table, and ``RenderError`` for bad markup.
  public init(_ document: ReportDocument) throws {
    try self.init(document, isCancelled: { false })
  }

  /// Paginates `document`, checking `isCancelled` before each block (`CancellationError`).
  /// `takesOverPasses: false` places every block on every pass for the table of contents (tests
  /// compare it with the default, which takes over what a pass would place as the previous did).
  init(_ document: ReportDocument, isCancelled: () -> Bool, takesOverPasses: Bool = true) throws {
    var paginator = try ReportPaginator(document: document, headingPages: [:])
    try paginator.layOutBlocks(isCancelled: isCancelled)
    // A table of contents shows page numbers that pagination decides: lay out again with the
    // pages found until they stop moving (a contents line can push headings to a later page).
    if document.blocks.contains(.tableOfContents) {
      for _ in 0..<3 {
        var next = try ReportPaginator(document: document, headingPages: paginator.headingPages)
        next.reuseLayouts(of: paginator)
        try next.layOutBlocks(isCancelled: isCancelled, following: takesOverPasses ? paginator : nil)
        let settled = next.headingPages.mapValues(\.page) == paginator.headingPages.mapValues(\.page)
        paginator = next
        if settled { break }
      }
    }
    pageSize = document.pageSize
    metadata = document.metadata
    date = document.date
    contentRect = paginator.contentRect
    title = document.title
    pages = try paginator.finish()
    ReportPreparedLayouts.keep(ReportRunLayouts.byKey(paginator.runLayouts.values), for: preparedLayouts)
  }
}

/// One page of a ``ReportLayout``.
///
/// ```swift
/// let layout = try ReportLayout(report)
/// for page in layout.pages { print("page \(page.number): \(page.elements.count) elements") }
/// ```
public struct ReportPage: Sendable, Hashable {
  /// The page number, from 1.
  public let number: Int
  /// What the page shows, in drawing order, in points from the page's top-left corner.
  public let elements: [ReportElement]

  /// The text runs on the page, in drawing order.
  public var textRuns: [ReportTextRun] {
    elements.compactMap { element in
      if case .text(let run) = element { return run }
      return nil
    }
  }
}

/// Where a link on a page leads.
///
/// ```swift
/// for case .link(let area, .url(let address)) in page.elements { print(address, "at", area) }
/// ```
public enum ReportLinkTarget: Sendable, Hashable {
  /// A web address (or any URI).
  case url(String)
  /// A place in the document: a page number (from 1) and a height on it, in points from its top.
  case page(Int, y: Double)
}

/// One positioned thing on a page.
///
/// ```swift
/// for case .text(let run) in layout.pages[0].elements {
///   print(run.role, run.lines, run.frame)   // which lines of which block, and where
/// }
/// ```
public enum ReportElement: Sendable, Hashable {
  /// A clickable area (PDF only; other outputs draw nothing for it).
  case link(Rect, target: ReportLinkTarget)
  /// A range of lines of a text laid out by Pango.
  case text(ReportTextRun)
  /// An image scaled into a frame.
  case image(RenderedImage, frame: Rect)
  /// A filled rectangle (table header backgrounds).
  case fill(Rect, color: Color)
  /// A rectangle outline (table cell borders).
  case stroke(Rect, color: Color, lineWidth: Double)
  /// A figure (image, SVG, chart or QR code) drawn into a frame.
  case figure(ReportFigure, frame: Rect)
}

/// A range of lines of one text, placed on a page.
///
/// The text is laid out at ``width`` and the lines `lines` of it are drawn with the first one's top
/// at ``frame``'s top. Drawing lays the text out again on the drawing thread (layouts are not
/// `Sendable`) and checks that its lines start at ``lineOffsets``, so the output breaks exactly
/// where pagination did.
public struct ReportTextRun: Sendable, Hashable {
  /// What the text is part of.
  public enum Role: Sendable, Hashable {
    /// The document's title, on the first page.
    case title
    /// A heading of `level` 1–6.
    case heading(level: Int)
    /// A paragraph of body text.
    case paragraph
    /// The header cell of table column `column` (from 0).
    case tableHeader(column: Int)
    /// A body cell of a table (`row` and `column` from 0).
    case tableCell(row: Int, column: Int)
    /// The page footer (page numbers).
    case footer
    /// The page header.
    case header
    /// A line of the table of contents: the heading's title or its page number.
    case tableOfContents(entry: Int)
    /// The leader dots of table of contents line `entry`, between its title and page number.
    case contentsLeader(entry: Int)
    /// The text of list item `item` (counted through the nested lists, from 0) at nesting `level`
    /// (from 0).
    case listItem(item: Int, level: Int)
    /// The bullet or number of list item `item`.
    case listMarker(item: Int)
  }

  /// What the text is part of.
  public let role: Role
  /// The index of the ``ReportDocument/blocks`` element the text belongs to (nil for the title, the
  /// header and the footer).
  public let blockIndex: Int?
  /// The whole text of the block or cell, of which ``lines`` are drawn here.
  public let content: TextContent
  /// The style the text is laid out and drawn in.
  public let style: TextStyle
  /// The limits the text was laid out with (``ReportDocument/textLimits``).
  public let limits: TextLimits
  /// The wrapping width the text is laid out at, in points.
  public let width: Double
  /// The lines drawn here, as indices into the layout's lines.
  public let lines: Range<Int>
  /// Where each drawn line starts in the text (UTF-8 byte offsets), as pagination laid it out.
  public let lineOffsets: [Int]
  /// Each drawn line's logical box on the page.
  public let lineFrames: [Rect]
  /// The box of all drawn lines on the page: ``width`` wide, from the first line's top to the last
  /// line's bottom.
  public let frame: Rect
}
