// Tables: column geometry and cells laid out once per document, rows moved whole to the next page
// (or split between lines when taller than a page), the header repeated on each page.
extension ReportPaginator {
  /// A table's column geometry and laid-out cells.
  struct TableCells {
    var columnX: [Double]
    var columnWidths: [Double]
    var header: [TextLayout]
    var headerHeight: Double
    var rows: [[TextLayout]]
    /// How far each body cell moves left so that a decimal column's points line up (0 elsewhere).
    var shifts: [[Double]]
    /// Spans, cell styles and footer rows (which follow the body rows in ``rows``); nil for a
    /// table without them, which takes the plain path.
    var spans: TableSpans?
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
      guard inner >= 1 else {
        // The columns, not the margins: name the count, the minimum width and what fits.
        throw ReportError.columnTooNarrow(
          block: blockIndex, column: column, columns: columns, width: widths[column], minimum: 2 * padding + 1,
          contentWidth: contentRect.width)
      }
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
    // Spans are checked before any cell is laid out.
    let isPlain = table.cellOptions.isEmpty && table.footerRows.isEmpty
    let covered = isPlain ? [] : try Self.coveredCells(of: table, blockIndex: blockIndex)
    // Cells of a column with the same text share one layout (a column of regions or dates
    // repeats a few values over thousands of rows): Pango lays each distinct text out once. Each
    // body cell gets the index of its text in `texts` (in the order they first appear), or nil for
    // a styled, spanning or footer cell, laid out on its own below.
    var texts: [(column: Int, text: String)] = []
    var textIndex = Array(repeating: [String: Int](), count: columns)
    // In a formatted column, the same by the cell's text as given: a repeated date is not
    // formatted again (Foundation's DateFormatter costs some 8 k instructions a call).
    let isFormatted = (0..<columns).map { $0 < table.formats.count && table.formats[$0] != .text }
    var givenIndex = Array(repeating: [String: Int](), count: columns)
    let allRows = isPlain ? table.rows : table.rows + table.footerRows
    var cellTexts: [[Int?]] = []
    cellTexts.reserveCapacity(allRows.count)
    // The first row with more cells than columns: an error once the rows above it are laid out.
    var overfullRow: Int?
    for (rowIndex, cells) in allRows.enumerated() {
      guard cells.count <= columns else {
        overfullRow = rowIndex
        break
      }
      cellTexts.append(
        (0..<columns).map { column -> Int? in
          let index = ReportTableCellIndex(row: rowIndex, column: column)
          let isCovered = !isPlain && covered.contains(index)
          if !isPlain, !isCovered, table.cellOptions[index] != nil || rowIndex >= table.rows.count { return nil }
          let given = column < cells.count && !isCovered ? cells[column] : ""
          if isFormatted[column], let known = givenIndex[column][given] { return known }
          let text = column < cells.count && !isCovered ? formatters[column](given) : ""
          let found: Int
          if let known = textIndex[column][text] {
            found = known
          } else {
            found = texts.count
            texts.append((column, text))
            textIndex[column][text] = found
          }
          if isFormatted[column] { givenIndex[column][given] = found }
          return found
        })
    }
    let textWidths = try (0..<columns).map(textWidth)
    let textLimits = limits
    let laidOut = ReportCellLayouts.layOut(count: texts.count) { [texts] index in
      try TextLayout(
        .plain(texts[index].text), style: cellStyles[texts[index].column], width: textWidths[texts[index].column],
        limits: textLimits)
    }
    // Row by row, left to right: the error thrown is the first failing cell's, in reading order.
    var rows: [[TextLayout]] = []
    rows.reserveCapacity(cellTexts.count)
    for (rowIndex, indices) in cellTexts.enumerated() {
      rows.append(
        try indices.enumerated().map { column, found in
          if let found { return try laidOut[found].get() }
          // A styled, spanning or footer cell: its own layout, at its own width.
          let cells = allRows[rowIndex]
          let text = column < cells.count ? formatters[column](cells[column]) : ""
          let index = ReportTableCellIndex(row: rowIndex, column: column)
          let base = rowIndex >= table.rows.count ? headerStyles[column] : cellStyles[column]
          let option = table.cellOptions[index] ?? ReportTableCell()
          let span = column..<min(columns, column + max(1, option.columnSpan))
          let width = span.reduce(0) { $0 + widths[$1] } - 2 * padding
          guard width >= 1 else {
            return try TextLayout(.plain(text), style: base, width: textWidth(column), limits: limits)
          }
          return try TextLayout(.plain(text), style: Self.styled(base, with: option), width: width, limits: limits)
        })
    }
    if let overfullRow {
      throw ReportError.tooManyCells(
        block: blockIndex, row: overfullRow, cells: allRows[overfullRow].count, columns: columns)
    }
    let headerHeight = (header.map(\.size.height).max() ?? 0) + 2 * padding
    var shifts = Array(repeating: Array(repeating: 0.0, count: columns), count: rows.count)
    for column in 0..<columns where column < table.alignments.count && table.alignments[column] == .decimal {
      // The width from each cell's decimal point to its end; cells move left by what they lack.
      let fractions = rows.indices.map { row in
        // A spanning or styled cell keeps its place.
        isPlain || table.cellOptions[ReportTableCellIndex(row: row, column: column)] == nil
          ? Self.fractionWidth(of: rows[row][column]) : nil
      }
      let widest = fractions.compactMap { $0 }.max() ?? 0
      for (row, fraction) in fractions.enumerated() {
        guard let fraction, let line = rows[row][column].lines.first else { continue }
        shifts[row][column] = min(widest - fraction, line.frame.minX)
      }
    }
    var cells = TableCells(
      columnX: x, columnWidths: widths, header: header, headerHeight: headerHeight, rows: rows, shifts: shifts)
    if !isPlain {
      cells.spans = TableSpans(table: table, covered: covered, rows: rows, padding: padding)
    }
    return cells
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
  /// Takes the tables and text layouts `previous` made: a pass for the table of contents lays
  /// out the same blocks again, and only where they land can change.
  mutating func reuseLayouts(of previous: ReportPaginator) {
    tables = previous.tables
    textLayouts = previous.textLayouts
    bodyLine = previous.bodyLine
  }

  mutating func placeTable(_ table: ReportTable, blockIndex: Int) throws {
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
    if let spans = cells.spans {
      try placeSpannedRows(cells, spans: spans, blockIndex: blockIndex)
      return
    }
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
  mutating func placeSplitRow(_ row: [TextLayout], rowIndex: Int, cells: TableCells, blockIndex: Int) {
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
    // Covered cells are drawn by the cell spanning them.
    for (column, layout) in row.enumerated() where starts[column] < layout.lines.count {
      if let spans = cells.spans, spans.covered.contains(ReportTableCellIndex(row: rowIndex, column: column)) {
        ends[column] = layout.lines.count
        starts[column] = layout.lines.count
        continue
      }
      ends[column] = Self.fittingEnd(layout.lines, from: starts[column], available: max(0, available))
      if ends[column] == starts[column] && forceProgress { ends[column] = starts[column] + 1 }
    }
    guard ends != starts else { return false }
    let top = cursor
    // The cells go on the page after the row's decorations, which need the row's height: they
    // wait in `runs` (reserved: this runs for each of a large table's rows, on every pass).
    var runs: [ReportTextRun] = []
    runs.reserveCapacity(row.count)
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
    if let spans = cells.spans {
      placeRowDecorations(cells, spans: spans, rows: rowIndex..<rowIndex + 1, top: top, heights: [height])
      appendTextElements(runs)
      cursor += height
      starts = ends
      return true
    }
    let tableWidth = cells.columnWidths.reduce(0, +)
    if let stripe = style.tableStripeBackground, rowIndex % 2 == 1 {
      elements.append(.fill(Rect(x: contentRect.minX, y: top, width: tableWidth, height: height), color: stripe))
    }
    placeRules(cells, top: top, height: height)
    appendTextElements(runs)
    cursor += height
    starts = ends
    return true
  }

  /// Appends `runs` to the page as text elements, one by one (`append(contentsOf: runs.map(…))`
  /// built a temporary array of elements first).
  private mutating func appendTextElements(_ runs: [ReportTextRun]) {
    for run in runs { elements.append(.text(run)) }
  }

  mutating func placeTableHeader(_ cells: TableCells, blockIndex: Int) {
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
  mutating func placeRules(_ cells: TableCells, top: Double, height: Double) {
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
