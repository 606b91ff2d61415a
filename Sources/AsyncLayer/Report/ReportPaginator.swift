import Foundation

/// Flows a ``ReportDocument`` onto pages: the one place where page breaks are decided.
///
/// Text is laid out with ``TextLayout`` at scale 1 and split between lines (Pango's line frames
/// give each line's top and bottom), so no line is lost or repeated. Table rows move whole to the
/// next page unless they are taller than a page, and the header row is repeated on each page a
/// table spans. A heading moves to the next page when what follows it would not start on its page.
struct ReportPaginator {
  let document: ReportDocument
  let contentRect: Rect
  var style: ReportStyle { document.style }
  var limits: TextLimits { document.textLimits }

  private var finishedPages: [[ReportElement]] = []
  var elements: [ReportElement] = []
  /// Where the next block starts on the current page.
  var cursor: Double
  /// The element count of the current page right after a table header placed at its top: while it
  /// holds, the page shows nothing but that header.
  var headerOnlyElementCount: Int?
  /// Tolerance for floating-point sums of line heights.
  static let epsilon = 0.01
  /// Where each heading landed (block index → page number from 1, and its top on the page).
  private(set) var headingPages: [Int: HeadingPlace] = [:]
  /// The heading places of the previous pass, which the table of contents shows.
  let previousHeadingPages: [Int: HeadingPlace]
  /// Tables laid out, by block index: a second pass (for the table of contents) reuses them.
  var tables: [Int: TableCells] = [:]
  /// Heading and paragraph layouts, by block index. They depend on the block alone (the style and
  /// the content width are the document's), so a paragraph is laid out once for the heading above
  /// it (keep-with-next) and for placing it, and a second pass for the contents reuses them all.
  var textLayouts: [Int: TextLayout] = [:]
  /// One line of body text, for the room a heading keeps for a table or list below it.
  var bodyLine: TextLayout?
  /// The layout of every text run placed, once each: the first output drawn on this thread takes
  /// them (``ReportPreparedLayouts``, by what drawing looks a run's layout up with) instead of
  /// laying every text out again. Kept by identity while placing: a table's 10,000 runs share a
  /// few thousand layouts, and hashing each run's text and style on every pass cost more than the
  /// table's placing itself.
  var runLayouts: [ObjectIdentifier: TextLayout] = [:]
  /// Where each top-level step of ``layOutBlocks(isCancelled:following:)`` ended, by the index of
  /// the block after it: what a later pass compares its own state with to take over the rest of
  /// this one (``takeOver(from:at:theirs:)``).
  private var stepEnds: [Int: StepEnd] = [:]
  /// `document.date` as the `{date}` field writes it, made once (a `DateFormatter` per page was
  /// measurable).
  private lazy var dateField: String = {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd"
    return formatter.string(from: document.date)
  }()

  struct HeadingPlace: Hashable {
    var page: Int
    var y: Double
  }

  /// The paginator's state between two top-level steps, as far as what is placed next depends
  /// on it: the page, the elements on it so far, the cursor, and the element count while the page
  /// shows nothing but a table header.
  struct StepEnd: Equatable {
    var page: Int
    var elementCount: Int
    var cursor: Double
    var headerOnlyElementCount: Int?

    /// True when the blocks after this step would land as they did after `other`: the same page
    /// and cursor, both pages empty or both not (a block at a page top adds no spacing), and the
    /// same header-only state. The elements already on the page may differ (the contents, which
    /// show page numbers in one pass and not the other): nothing placed later reads them.
    func placesLikeAfter(_ other: StepEnd) -> Bool {
      guard page == other.page, cursor == other.cursor, (elementCount == 0) == (other.elementCount == 0) else {
        return false
      }
      guard headerOnlyElementCount != nil || other.headerOnlyElementCount != nil else { return true }
      return elementCount == other.elementCount && headerOnlyElementCount == other.headerOnlyElementCount
    }
  }

  private var stepEnd: StepEnd {
    StepEnd(
      page: finishedPages.count, elementCount: elements.count, cursor: cursor,
      headerOnlyElementCount: headerOnlyElementCount)
  }

  init(document: ReportDocument, headingPages: [Int: HeadingPlace]) throws {
    self.document = document
    previousHeadingPages = headingPages
    let margins = document.margins
    let size = document.pageSize
    let content = Rect(
      x: margins.left, y: margins.top, width: size.width - margins.left - margins.right,
      height: size.height - margins.top - margins.bottom)
    guard content.width >= 1, content.height >= 1, margins.top >= 0, margins.left >= 0, margins.bottom >= 0,
      margins.right >= 0, size.width.isFinite, size.height.isFinite
    else { throw ReportError.pageTooSmall(pageSize: size, margins: margins) }
    contentRect = content
    cursor = content.minY
  }

  // MARK: Page state

  var remainingHeight: Double { contentRect.maxY - cursor }
  /// True while nothing has been placed on the current page: a block that does not fit here will
  /// not fit on a next page either.
  var isAtPageTop: Bool { elements.isEmpty }

  mutating func startNewPage() {
    finishedPages.append(elements)
    elements = []
    cursor = contentRect.minY
    headerOnlyElementCount = nil
  }

  /// Adds `spacing` before a block, except at the top of a page.
  mutating func addSpacing(_ spacing: Double) {
    guard !isAtPageTop else { return }
    cursor = min(contentRect.maxY, cursor + spacing)
  }

  // MARK: Blocks

  /// Lays the blocks out, page by page; `isCancelled` is checked before each block (an async
  /// pagination's task was cancelled: it throws `CancellationError`).
  ///
  /// A pass for the table of contents (`previous` is the pass before it) stops placing blocks
  /// once it is past the last contents block and its state after a step is the one `previous`
  /// had there: every block from there on depends only on that state (nothing but the contents
  /// reads the previous pass's heading pages), so it would land where it landed in `previous`,
  /// and the rest of `previous` is taken over instead of placed again (a 2,000-row table was
  /// placed twice for a one-line contents).
  /// - Returns: the index of the block from which the rest of `previous` was taken over, or nil.
  @discardableResult
  mutating func layOutBlocks(isCancelled: () -> Bool = { false }, following previous: ReportPaginator? = nil) throws
    -> Int?
  {
    if let title = document.title {
      let layout = try TextLayout(.plain(title), style: style.title, width: contentRect.width, limits: limits)
      placeFlowingText(layout, role: .title, blockIndex: nil, keepWithNext: 0)
    }
    let pastContents = (document.blocks.lastIndex { $0.withoutFlow == .tableOfContents } ?? -1) + 1
    var index = 0
    while index < document.blocks.count {
      if isCancelled() { throw CancellationError() }
      index = try placeKeepingWithNext(from: index)
      let end = stepEnd
      stepEnds[index] = end
      if let previous, index >= pastContents, index < document.blocks.count,
        let theirs = previous.stepEnds[index], end.placesLikeAfter(theirs)
      {
        takeOver(from: previous, at: index, theirs: theirs)
        return index
      }
    }
    return nil
  }

  /// Takes the pages `previous` placed from the end of its step before block `index` (where its
  /// state was `theirs`, which this paginator's state now places like) as this pass's own.
  private mutating func takeOver(from previous: ReportPaginator, at index: Int, theirs: StepEnd) {
    let page = finishedPages.count
    let shift = elements.count - theirs.elementCount
    if page < previous.finishedPages.count {
      finishedPages.append(elements + previous.finishedPages[page][theirs.elementCount...])
      finishedPages.append(contentsOf: previous.finishedPages[(page + 1)...])
      elements = previous.elements
      headerOnlyElementCount = previous.headerOnlyElementCount
    } else {
      elements.append(contentsOf: previous.elements[theirs.elementCount...])
      headerOnlyElementCount = previous.headerOnlyElementCount.map { $0 + shift }
    }
    cursor = previous.cursor
    for (block, place) in previous.headingPages where block >= index { headingPages[block] = place }
    // Later steps' ends, on this pass's element counts, for a further pass to compare with.
    for (next, end) in previous.stepEnds where next > index {
      var end = end
      if end.page == page {
        end.elementCount += shift
        end.headerOnlyElementCount = end.headerOnlyElementCount.map { $0 + shift }
      }
      stepEnds[next] = end
    }
    runLayouts.merge(previous.runLayouts) { mine, _ in mine }
    tables.merge(previous.tables) { mine, _ in mine }
    textLayouts.merge(previous.textLayouts) { mine, _ in mine }
    bodyLine = bodyLine ?? previous.bodyLine
  }

  /// Places one block at `index` (one item of ``ReportDocument/blocks``).
  mutating func place(_ block: ReportBlock, index: Int) throws {
    switch block {
    case .heading(let text, let level):
      addSpacing(style.blockSpacing + style.headingSpacing)
      let layout = try textLayout(of: index, .plain(text), style: style.heading(level: level))
      let next = index + 1 < document.blocks.count ? document.blocks[index + 1] : nil
      placeFlowingText(
        layout, role: .heading(level: level), blockIndex: index,
        keepWithNext: try firstLineHeight(of: next, index: index + 1))
      if let run = firstRun(of: index) {
        headingPages[index] = HeadingPlace(page: finishedPages.count + 1, y: run.frame.minY)
      }
    case .paragraph(let content):
      addSpacing(style.blockSpacing)
      let layout = try textLayout(of: index, content, style: style.body)
      placeFlowingText(layout, role: .paragraph, blockIndex: index, keepWithNext: 0, controlsWidows: true)
    case .table(let table):
      addSpacing(style.blockSpacing)
      try placeTable(table, blockIndex: index)
    case .image(let image):
      addSpacing(style.blockSpacing)
      placeImage(image)
    case .pageBreak:
      if !isAtPageTop { startNewPage() }
    case .tableOfContents:
      addSpacing(style.blockSpacing)
      try placeTableOfContents(blockIndex: index)
    case .list(let list):
      addSpacing(style.blockSpacing)
      try placeList(list, blockIndex: index)
    case .figure(let figure):
      addSpacing(style.blockSpacing)
      placeFigure(figure)
    case .flow(let inner, let options):
      if options.contains(.keepTogether) {
        try placeKeptTogether(inner, index: index)
      } else {
        try place(inner, index: index)
      }
    }
  }

  /// Places `block` on one page: when it breaks across pages from a page that held something
  /// already, it is placed again from the top of the next page (where it breaks only if it is
  /// taller than a page). The paginator is a value, so trying costs a copy of its state.
  private mutating func placeKeptTogether(_ block: ReportBlock, index: Int) throws {
    guard !isAtPageTop else { return try place(block, index: index) }
    let saved = self
    try place(block, index: index)
    guard finishedPages.count > saved.finishedPages.count else { return }
    self = saved
    startNewPage()
    try place(block, index: index)
  }

  /// How many blocks that keep with the next may follow one another and still move together (a
  /// longer run of headings breaks where it must); each one may place what follows it twice.
  static let maximumKeepChain = 8

  /// Places block `index` and returns the index of the next block to place. A block that keeps
  /// with the next (a heading, or ``ReportFlow/keepWithNext``) is placed with the block after it,
  /// and when it would end its page both move to the next page: a heading never ends a page.
  private mutating func placeKeepingWithNext(from index: Int, chain: Int = 0) throws -> Int {
    let block = document.blocks[index]
    let next = index + 1
    guard Self.keepsWithNext(block), next < document.blocks.count, chain < Self.maximumKeepChain,
      document.blocks[next] != .pageBreak, !isAtPageTop
    else {
      try place(block, index: index)
      return next
    }
    let saved = self
    try place(block, index: index)
    let page = finishedPages.count
    let count = elements.count
    let after = try placeKeepingWithNext(from: next, chain: chain + 1)
    guard finishedPages.count > page, finishedPages[page].count == count else { return after }
    // Nothing of the next block joined this one on its page: start both on the next page.
    self = saved
    startNewPage()
    try place(block, index: index)
    return try placeKeepingWithNext(from: next, chain: chain + 1)
  }

  private static func keepsWithNext(_ block: ReportBlock) -> Bool {
    switch block {
    case .heading: return true
    case .flow(_, let options): return options.contains(.keepWithNext)
    default: return false
    }
  }

  /// The first text run of block `index` on the current page.
  private func firstRun(of index: Int) -> ReportTextRun? {
    for element in elements {
      if case .text(let run) = element, run.blockIndex == index { return run }
    }
    return nil
  }

  /// Closes the last page and adds the "Page N of M" footers.
  mutating func finish() throws -> [ReportPage] {
    if !elements.isEmpty || finishedPages.isEmpty { startNewPage() }
    let count = finishedPages.count
    var pages: [ReportPage] = []
    pages.reserveCapacity(count)
    // A header without {page} is the same text on every page: laid out once.
    var headerLayouts: [String: TextLayout] = [:]
    for (index, var pageElements) in finishedPages.enumerated() {
      let isFirst = index == 0
      if let header = isFirst ? document.firstPageHeader ?? document.header : document.header {
        let text = fill(header, page: index + 1, pages: count)
        if !text.isEmpty {
          let layout =
            try headerLayouts[text]
            ?? TextLayout(.plain(text), style: style.header, width: contentRect.width, limits: limits)
          headerLayouts[text] = layout
          // Centred vertically in the top margin.
          let top = max(0, (document.margins.top - layout.size.height) / 2)
          pageElements.append(
            .text(
              placedRun(
                layout, lines: 0..<layout.lines.count, x: contentRect.minX, top: top, role: .header, blockIndex: nil)))
        }
      }
      let footer = fill(
        isFirst ? document.firstPageFooter ?? document.footer : document.footer, page: index + 1, pages: count)
      if document.showsPageNumbers, !footer.isEmpty {
        let layout = try TextLayout(.plain(footer), style: style.footer, width: contentRect.width, limits: limits)
        // Centred vertically in the bottom margin.
        let top = contentRect.maxY + max(0, (document.margins.bottom - layout.size.height) / 2)
        pageElements.append(
          .text(
            placedRun(
              layout, lines: 0..<layout.lines.count, x: contentRect.minX, top: top,
              role: .footer, blockIndex: nil)))
      }
      pages.append(ReportPage(number: index + 1, elements: pageElements))
    }
    return pages
  }

  /// A header or footer template with its fields filled in.
  ///
  /// One pass from the left (four `replacingOccurrences` per template and page cost 22,000
  /// instructions each). The same text as replacing `{page}`, `{pages}`, `{date}` and `{title}`
  /// in turn: the page numbers and the date (digits and dashes) cannot form a field name, and
  /// the title, filled last there, is not read again here either.
  private mutating func fill(_ template: String, page: Int, pages: Int) -> String {
    guard template.contains("{") else { return template }
    var filled = ""
    var rest = template[...]
    while let open = rest.firstIndex(of: "{") {
      filled += rest[..<open]
      rest = rest[open...]
      if rest.hasPrefix("{page}") {
        filled += String(page)
        rest = rest.dropFirst(6)
      } else if rest.hasPrefix("{pages}") {
        filled += String(pages)
        rest = rest.dropFirst(7)
      } else if rest.hasPrefix("{date}") {
        filled += dateField
        rest = rest.dropFirst(6)
      } else if rest.hasPrefix("{title}") {
        filled += document.title ?? ""
        rest = rest.dropFirst(7)
      } else {
        filled += "{"
        rest = rest.dropFirst()
      }
    }
    return filled + rest
  }

  /// The height the start of `block` needs, so that a heading is not left alone at a page bottom.
  private mutating func firstLineHeight(of block: ReportBlock?, index: Int) throws -> Double {
    switch block {
    case .paragraph(let content):
      let layout = try textLayout(of: index, content, style: style.body)
      return style.blockSpacing + (layout.lines.first?.frame.height ?? 0)
    case .flow(let inner, _):
      return try firstLineHeight(of: inner, index: index)
    case .heading, .table, .list:
      // One line of body text; a table checks its own header-plus-first-row fit.
      let layout = try bodyLine ?? TextLayout(.plain("X"), style: style.body, width: contentRect.width, limits: limits)
      bodyLine = layout
      return style.blockSpacing + layout.size.height
    case .figure(let figure):
      // A heading stays with the figure below it, unless the two could not share a page (a
      // figure near a page's height): then the heading is not moved, as for a table.
      let height = fittedSize(of: figure).height
      return height <= contentRect.height * 0.75 ? style.blockSpacing + height : 0
    case .image, .pageBreak, .tableOfContents, nil:
      return 0
    }
  }

  /// The layout of the heading or paragraph at block `index` (`content` in `style`), made the
  /// first time it is asked for.
  private mutating func textLayout(of index: Int, _ content: TextContent, style: TextStyle) throws -> TextLayout {
    if let layout = textLayouts[index] { return layout }
    let layout = try TextLayout(content, style: style, width: contentRect.width, limits: limits)
    textLayouts[index] = layout
    return layout
  }

  // MARK: Images

  private mutating func placeImage(_ image: RenderedImage) {
    let natural = image.size
    guard !natural.isEmpty else { return }
    let factor = min(1, contentRect.width / natural.width, contentRect.height / natural.height)
    let size = Size(width: natural.width * factor, height: natural.height * factor)
    if size.height > remainingHeight + Self.epsilon, !isAtPageTop { startNewPage() }
    let frame = Rect(
      x: contentRect.minX + (contentRect.width - size.width) / 2, y: cursor, width: size.width,
      height: size.height)
    elements.append(.image(image, frame: frame))
    cursor += size.height
  }
}
