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
  private var style: ReportStyle { document.style }
  private var limits: TextLimits { document.textLimits }

  private var finishedPages: [[ReportElement]] = []
  private var elements: [ReportElement] = []
  /// Where the next block starts on the current page.
  private var cursor: Double
  /// The element count of the current page right after a table header placed at its top: while it
  /// holds, the page shows nothing but that header.
  private var headerOnlyElementCount: Int?
  /// Tolerance for floating-point sums of line heights.
  private static let epsilon = 0.01
  /// Where each heading landed (block index → page number from 1, and its top on the page).
  private(set) var headingPages: [Int: HeadingPlace] = [:]
  /// The heading places of the previous pass, which the table of contents shows.
  private let previousHeadingPages: [Int: HeadingPlace]
  /// Tables laid out, by block index: a second pass (for the table of contents) reuses them.
  private var tables: [Int: TableCells] = [:]
  /// The layout of every text run placed, by what drawing looks a run's layout up with: the first
  /// output drawn on this thread takes them (``ReportPreparedLayouts``) instead of laying every
  /// text out again.
  private(set) var runLayouts: [ReportRunLayouts.Key: TextLayout] = [:]
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

  private var remainingHeight: Double { contentRect.maxY - cursor }
  /// True while nothing has been placed on the current page: a block that does not fit here will
  /// not fit on a next page either.
  private var isAtPageTop: Bool { elements.isEmpty }

  private mutating func startNewPage() {
    finishedPages.append(elements)
    elements = []
    cursor = contentRect.minY
    headerOnlyElementCount = nil
  }

  /// Adds `spacing` before a block, except at the top of a page.
  private mutating func addSpacing(_ spacing: Double) {
    guard !isAtPageTop else { return }
    cursor = min(contentRect.maxY, cursor + spacing)
  }

  // MARK: Blocks

  mutating func layOutBlocks() throws {
    if let title = document.title {
      let layout = try TextLayout(.plain(title), style: style.title, width: contentRect.width, limits: limits)
      placeFlowingText(layout, role: .title, blockIndex: nil, keepWithNext: 0)
    }
    for (index, block) in document.blocks.enumerated() {
      switch block {
      case .heading(let text, let level):
        addSpacing(style.blockSpacing + style.headingSpacing)
        let layout = try TextLayout(
          .plain(text), style: style.heading(level: level), width: contentRect.width, limits: limits)
        let next = index + 1 < document.blocks.count ? document.blocks[index + 1] : nil
        placeFlowingText(
          layout, role: .heading(level: level), blockIndex: index,
          keepWithNext: try firstLineHeight(of: next))
        if let run = firstRun(of: index) {
          headingPages[index] = HeadingPlace(page: finishedPages.count + 1, y: run.frame.minY)
        }
      case .paragraph(let content):
        addSpacing(style.blockSpacing)
        let layout = try TextLayout(content, style: style.body, width: contentRect.width, limits: limits)
        placeFlowingText(layout, role: .paragraph, blockIndex: index, keepWithNext: 0)
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
      }
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
      if let header = document.header {
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
      let footer = fill(document.footer, page: index + 1, pages: count)
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
  private mutating func fill(_ template: String, page: Int, pages: Int) -> String {
    guard template.contains("{") else { return template }
    return template.replacingOccurrences(of: "{page}", with: "\(page)")
      .replacingOccurrences(of: "{pages}", with: "\(pages)")
      .replacingOccurrences(of: "{date}", with: dateField)
      .replacingOccurrences(of: "{title}", with: document.title ?? "")
  }

  /// The height the start of `block` needs, so that a heading is not left alone at a page bottom.
  private func firstLineHeight(of block: ReportBlock?) throws -> Double {
    switch block {
    case .paragraph(let content):
      let layout = try TextLayout(content, style: style.body, width: contentRect.width, limits: limits)
      return style.blockSpacing + (layout.lines.first?.frame.height ?? 0)
    case .heading, .table:
      // One line of body text; a table checks its own header-plus-first-row fit.
      let layout = try TextLayout(.plain("X"), style: style.body, width: contentRect.width, limits: limits)
      return style.blockSpacing + layout.size.height
    case .image, .pageBreak, .tableOfContents, nil:
      return 0
    }
  }

  // MARK: Flowing text

  /// The end of the longest run of `lines` from `start` whose height fits `available`.
  private static func fittingEnd(_ lines: [TextLine], from start: Int, available: Double) -> Int {
    let top = lines[start].frame.minY
    var end = start
    while end < lines.count, lines[end].frame.maxY - top <= available + epsilon { end += 1 }
    return end
  }

  /// Builds a run of `lines` of `layout` with the first line's top at `top`, and keeps `layout` for
  /// drawing (``runLayouts``).
  private mutating func placedRun(
    _ layout: TextLayout, lines range: Range<Int>, x: Double, top: Double, role: ReportTextRun.Role,
    blockIndex: Int?
  ) -> ReportTextRun {
    let run = Self.run(layout, lines: range, x: x, top: top, role: role, blockIndex: blockIndex)
    runLayouts[ReportRunLayouts.Key(run, scale: layout.scale)] = layout
    return run
  }

  /// Builds a run of `lines` of `layout` with the first line's top at `top`.
  private static func run(
    _ layout: TextLayout, lines range: Range<Int>, x: Double, top: Double, role: ReportTextRun.Role,
    blockIndex: Int?
  ) -> ReportTextRun {
    let lines = layout.lines
    let shift = top - lines[range.lowerBound].frame.minY
    let frames = lines[range].map { line in
      Rect(x: x + line.frame.minX, y: shift + line.frame.minY, width: line.frame.width, height: line.frame.height)
    }
    return ReportTextRun(
      role: role, blockIndex: blockIndex, content: layout.content, style: layout.style, limits: layout.limits,
      width: layout.width ?? 0,
      lines: range, lineOffsets: lines[range].map(\.utf8Offset), lineFrames: frames,
      frame: Rect(
        x: x, y: top, width: layout.width ?? 0,
        height: lines[range.upperBound - 1].frame.maxY
          - lines[range.lowerBound].frame.minY))
  }

  /// Places `layout` at the cursor, continuing on new pages between lines as needed.
  /// `keepWithNext` is extra room the first page must have after the text's first slice ends.
  private mutating func placeFlowingText(
    _ layout: TextLayout, role: ReportTextRun.Role, blockIndex: Int?, keepWithNext: Double
  ) {
    let lines = layout.lines
    guard !lines.isEmpty else { return }
    if keepWithNext > 0, !isAtPageTop {
      let whole = lines[lines.count - 1].frame.maxY - lines[0].frame.minY
      if whole + keepWithNext > remainingHeight + Self.epsilon { startNewPage() }
    }
    let links = layout.links
    var start = 0
    while start < lines.count {
      var end = Self.fittingEnd(lines, from: start, available: remainingHeight)
      if end == start {
        guard isAtPageTop else {
          startNewPage()
          continue
        }
        // A single line taller than the page: place it anyway (it is clipped) rather than loop.
        end = start + 1
      }
      let run = placedRun(
        layout, lines: start..<end, x: contentRect.minX, top: cursor, role: role,
        blockIndex: blockIndex)
      elements.append(.text(run))
      addLinks(of: links, in: layout, lines: start..<end, run: run)
      cursor += run.frame.height
      start = end
      if start < lines.count { startNewPage() }
    }
  }

  /// Link areas of `links` on the lines `range` of `layout`, placed where `run` put those lines.
  private mutating func addLinks(
    of links: [TextLink], in layout: TextLayout, lines range: Range<Int>, run: ReportTextRun
  ) {
    guard !links.isEmpty else { return }
    let lines = layout.lines
    let shiftY = run.frame.minY - lines[range.lowerBound].frame.minY
    let top = lines[range.lowerBound].frame.minY - Self.epsilon
    let bottom = lines[range.upperBound - 1].frame.maxY + Self.epsilon
    for link in links {
      for rect in link.rects where rect.minY >= top && rect.maxY <= bottom {
        elements.append(
          .link(
            Rect(x: run.frame.minX + rect.minX, y: rect.minY + shiftY, width: rect.width, height: rect.height),
            target: .url(link.target)))
      }
    }
  }

  // MARK: Table of contents

  /// One line per heading of levels 1 to 3: its title (indented by level) and its page number at
  /// the right, the whole line a link to the heading. Page numbers come from the previous pass.
  private mutating func placeTableOfContents(blockIndex: Int) throws {
    let numberWidth = min(48, contentRect.width / 4)
    var numberStyle = style.tableOfContents
    numberStyle.alignment = .right
    var entry = 0
    for (index, block) in document.blocks.enumerated() {
      guard case .heading(let text, let level) = block, level <= 3 else { continue }
      let indent = Double(level - 1) * style.tableOfContents.fontSize
      let titleWidth = contentRect.width - numberWidth - indent
      guard titleWidth >= 1 else {
        throw ReportError.pageTooSmall(pageSize: document.pageSize, margins: document.margins)
      }
      let place = previousHeadingPages[index]
      let title = try TextLayout(.plain(text), style: style.tableOfContents, width: titleWidth, limits: limits)
      let number = try TextLayout(
        .plain(place.map { "\($0.page)" } ?? "–"), style: numberStyle, width: numberWidth, limits: limits)
      let height = max(title.size.height, number.size.height)
      if height > remainingHeight + Self.epsilon, !isAtPageTop { startNewPage() }
      let role = ReportTextRun.Role.tableOfContents(entry: entry)
      elements.append(
        .text(
          placedRun(
            title, lines: 0..<title.lines.count, x: contentRect.minX + indent, top: cursor, role: role,
            blockIndex: blockIndex)))
      elements.append(
        .text(
          placedRun(
            number, lines: 0..<number.lines.count, x: contentRect.maxX - numberWidth, top: cursor, role: role,
            blockIndex: blockIndex)))
      if let place {
        elements.append(
          .link(
            Rect(x: contentRect.minX, y: cursor, width: contentRect.width, height: height),
            target: .page(place.page, y: place.y)))
      }
      cursor += height
      entry += 1
    }
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

  // MARK: Tables

  /// A table's column geometry and laid-out cells.
  private struct TableCells {
    var columnX: [Double]
    var columnWidths: [Double]
    var header: [TextLayout]
    var headerHeight: Double
    var rows: [[TextLayout]]
    /// How far each body cell moves left so that a decimal column's points line up (0 elsewhere).
    var shifts: [[Double]]
  }

  private func layOutTable(_ table: ReportTable, blockIndex: Int) throws -> TableCells {
    let columns = table.columns.count
    guard columns > 0 else { throw ReportError.emptyTable(block: blockIndex) }
    guard table.widths.count == columns, table.widths.allSatisfy({ $0.isFinite && $0 > 0 }) else {
      throw ReportError.invalidColumnWidths(block: blockIndex, widths: table.widths, columns: columns)
    }
    let total = table.widths.reduce(0, +)
    let widths = table.widths.map { $0 / total * contentRect.width }
    var x: [Double] = []
    var next = contentRect.minX
    for width in widths {
      x.append(next)
      next += width
    }
    let padding = style.cellPadding
    func textWidth(_ column: Int) throws -> Double {
      let inner = widths[column] - 2 * padding
      guard inner >= 1 else { throw ReportError.pageTooSmall(pageSize: document.pageSize, margins: document.margins) }
      return inner
    }
    func cellStyle(_ base: TextStyle, _ column: Int) -> TextStyle {
      var style = base
      if column < table.alignments.count { style.alignment = table.alignments[column].textAlignment }
      return style
    }
    let headerStyles = (0..<columns).map { cellStyle(style.tableHeader, $0) }
    let cellStyles = (0..<columns).map { cellStyle(style.tableCell, $0) }
    let formatters = (0..<columns).map { column in
      column < table.formats.count ? table.formats[column].makeFormatter() : { $0 }
    }
    let header = try table.columns.indices.map { column in
      try TextLayout(
        .plain(table.columns[column]), style: headerStyles[column], width: textWidth(column), limits: limits)
    }
    // Cells of a column with the same text share one layout (a column of regions or dates
    // repeats a few values over thousands of rows): Pango lays each distinct text out once.
    var distinct = Array(repeating: [String: TextLayout](), count: columns)
    let rows = try table.rows.enumerated().map { rowIndex, cells in
      guard cells.count <= columns else {
        throw ReportError.tooManyCells(block: blockIndex, row: rowIndex, cells: cells.count, columns: columns)
      }
      return try (0..<columns).map { column in
        let text = column < cells.count ? formatters[column](cells[column]) : ""
        if let shared = distinct[column][text] { return shared }
        let layout = try TextLayout(.plain(text), style: cellStyles[column], width: textWidth(column), limits: limits)
        distinct[column][text] = layout
        return layout
      }
    }
    let headerHeight = (header.map(\.size.height).max() ?? 0) + 2 * padding
    var shifts = Array(repeating: Array(repeating: 0.0, count: columns), count: rows.count)
    for column in 0..<columns where column < table.alignments.count && table.alignments[column] == .decimal {
      // The width from each cell's decimal point to its end; cells move left by what they lack.
      let fractions = rows.map { Self.fractionWidth(of: $0[column]) }
      let widest = fractions.compactMap { $0 }.max() ?? 0
      for (row, fraction) in fractions.enumerated() {
        guard let fraction, let line = rows[row][column].lines.first else { continue }
        shifts[row][column] = min(widest - fraction, line.frame.minX)
      }
    }
    return TableCells(
      columnX: x, columnWidths: widths, header: header, headerHeight: headerHeight, rows: rows, shifts: shifts)
  }

  /// The width from the decimal point of a one-line cell to its end (0 without a point), or nil
  /// for a cell of several lines or none, which is not shifted.
  private static func fractionWidth(of layout: TextLayout) -> Double? {
    guard layout.lines.count == 1, let line = layout.lines.first else { return nil }
    guard let point = layout.text.utf8.firstIndex(of: UInt8(ascii: ".")) else { return 0 }
    let offset = layout.text.utf8.distance(from: layout.text.utf8.startIndex, to: point)
    guard let frame = layout.characterFrame(atUTF8Offset: offset) else { return 0 }
    return max(0, line.frame.maxX - frame.minX)
  }

  /// Takes over the tables `previous` laid out (the same document, paginated again).
  mutating func reuseTables(of previous: ReportPaginator) {
    tables = previous.tables
  }

  private mutating func placeTable(_ table: ReportTable, blockIndex: Int) throws {
    let cells = try tables[blockIndex] ?? layOutTable(table, blockIndex: blockIndex)
    tables[blockIndex] = cells
    let padding = style.cellPadding
    guard cells.headerHeight < contentRect.height else {
      throw ReportError.pageTooSmall(pageSize: document.pageSize, margins: document.margins)
    }
    func rowHeight(_ row: [TextLayout]) -> Double { (row.map(\.size.height).max() ?? 0) + 2 * padding }

    // Start on a new page unless the header and the first row (or a first slice of it) fit here.
    let firstRow = cells.rows.first.map(rowHeight) ?? 0
    let firstRowMinimum = min(
      firstRow,
      (cells.rows.first?.map { $0.lines.first?.frame.height ?? 0 }.max() ?? 0)
        + 2 * padding)
    let wholeFitsOnFreshPage = firstRow <= contentRect.height - cells.headerHeight + Self.epsilon
    let needed = cells.headerHeight + (wholeFitsOnFreshPage ? firstRow : firstRowMinimum)
    if needed > remainingHeight + Self.epsilon, !isAtPageTop { startNewPage() }
    placeTableHeader(cells, blockIndex: blockIndex)

    for (rowIndex, row) in cells.rows.enumerated() {
      let height = rowHeight(row)
      if height > remainingHeight + Self.epsilon {
        if height <= contentRect.height - cells.headerHeight + Self.epsilon {
          // The row fits on a page of its own: move it whole.
          startNewPage()
          placeTableHeader(cells, blockIndex: blockIndex)
        } else {
          placeSplitRow(row, rowIndex: rowIndex, cells: cells, blockIndex: blockIndex)
          continue
        }
      }
      var starts = Array(repeating: 0, count: row.count)
      placeRowSlice(
        row, rowIndex: rowIndex, cells: cells, blockIndex: blockIndex, starts: &starts,
        available: .infinity)
    }
  }

  /// Places a row taller than a page, splitting each cell between lines across pages.
  private mutating func placeSplitRow(_ row: [TextLayout], rowIndex: Int, cells: TableCells, blockIndex: Int) {
    var starts = Array(repeating: 0, count: row.count)
    while true {
      let available = remainingHeight - 2 * style.cellPadding
      // On a page holding nothing but the header, place at least a line per cell so the loop ends.
      placeRowSlice(
        row, rowIndex: rowIndex, cells: cells, blockIndex: blockIndex, starts: &starts,
        available: available, forceProgress: elements.count == headerOnlyElementCount)
      if zip(starts, row).allSatisfy({ $0 == $1.lines.count }) { return }
      startNewPage()
      placeTableHeader(cells, blockIndex: blockIndex)
    }
  }

  /// Places the lines of each cell from `starts` that fit `available` (text height, padding
  /// excluded) as one row slice at the cursor, and advances `starts`. Returns false when nothing fit.
  @discardableResult
  private mutating func placeRowSlice(
    _ row: [TextLayout], rowIndex: Int, cells: TableCells, blockIndex: Int, starts: inout [Int],
    available: Double, forceProgress: Bool = false
  ) -> Bool {
    let padding = style.cellPadding
    var ends = starts
    for (column, layout) in row.enumerated() where starts[column] < layout.lines.count {
      ends[column] = Self.fittingEnd(layout.lines, from: starts[column], available: max(0, available))
      if ends[column] == starts[column] && forceProgress { ends[column] = starts[column] + 1 }
    }
    guard ends != starts else { return false }
    let top = cursor
    var runs: [ReportTextRun] = []
    var textHeight = 0.0
    for (column, layout) in row.enumerated() where ends[column] > starts[column] {
      let run = placedRun(
        layout, lines: starts[column]..<ends[column],
        x: cells.columnX[column] + padding - cells.shifts[rowIndex][column],
        top: top + padding, role: .tableCell(row: rowIndex, column: column), blockIndex: blockIndex)
      textHeight = max(textHeight, run.frame.height)
      runs.append(run)
    }
    let height = textHeight + 2 * padding
    let tableWidth = cells.columnWidths.reduce(0, +)
    if let stripe = style.tableStripeBackground, rowIndex % 2 == 1 {
      elements.append(.fill(Rect(x: contentRect.minX, y: top, width: tableWidth, height: height), color: stripe))
    }
    placeRules(cells, top: top, height: height)
    elements.append(contentsOf: runs.map(ReportElement.text))
    cursor += height
    starts = ends
    return true
  }

  private mutating func placeTableHeader(_ cells: TableCells, blockIndex: Int) {
    let top = cursor
    let padding = style.cellPadding
    let width = cells.columnWidths.reduce(0, +)
    elements.append(
      .fill(
        Rect(x: contentRect.minX, y: top, width: width, height: cells.headerHeight),
        color: style.tableHeaderBackground))
    placeRules(cells, top: top, height: cells.headerHeight)
    for (column, layout) in cells.header.enumerated() {
      elements.append(
        .text(
          placedRun(
            layout, lines: 0..<layout.lines.count, x: cells.columnX[column] + padding,
            top: top + padding, role: .tableHeader(column: column), blockIndex: blockIndex)))
    }
    cursor += cells.headerHeight
    headerOnlyElementCount = top == contentRect.minY ? elements.count : nil
  }

  /// The lines of one row (or the header) from `top`, `height` tall, as ``ReportStyle/tableRules`` says.
  private mutating func placeRules(_ cells: TableCells, top: Double, height: Double) {
    switch style.tableRules {
    case .grid:
      for column in cells.columnX.indices {
        elements.append(
          .stroke(
            Rect(x: cells.columnX[column], y: top, width: cells.columnWidths[column], height: height),
            color: style.tableBorder, lineWidth: 0.5))
      }
    case .horizontal:
      let width = cells.columnWidths.reduce(0, +)
      elements.append(
        .fill(Rect(x: contentRect.minX, y: top + height - 0.25, width: width, height: 0.5), color: style.tableBorder))
    case .none:
      break
    }
  }
}
