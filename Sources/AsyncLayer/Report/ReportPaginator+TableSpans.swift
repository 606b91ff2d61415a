// Tables with spans, cell styles or footer rows: rows are placed in groups (a rowspan joins rows
// into one group, the footer rows form one), each group on one page, the header repeated above.
extension ReportPaginator {
  /// The geometry of a table with spans: which positions a spanning cell covers, each row's
  /// height, and where each group of rows ends.
  struct TableSpans {
    var options: [ReportTableCellIndex: ReportTableCell]
    var covered: Set<ReportTableCellIndex>
    /// Each row's height, padding included, grown where a rowspan needs more.
    var rowHeights: [Double]
    /// For each row that starts a group, the end of the group (exclusive).
    var groupEnds: [Int: Int]
    var bodyRowCount: Int

    init(table: ReportTable, covered: Set<ReportTableCellIndex>, rows: [[TextLayout]], padding: Double) {
      options = table.cellOptions
      self.covered = covered
      bodyRowCount = table.rows.count
      var heights = rows.indices.map { row in
        var height = 0.0
        for (column, layout) in rows[row].enumerated() {
          let index = ReportTableCellIndex(row: row, column: column)
          if covered.contains(index) || (table.cellOptions[index]?.rowSpan ?? 1) > 1 { continue }
          height = max(height, layout.size.height)
        }
        // A row of covered and spanning cells only is as tall as an empty cell.
        return max(height, rows[row].first?.lines.first?.frame.height ?? 0) + 2 * padding
      }
      // A rowspan taller than its rows grows the last of them.
      for (index, option) in table.cellOptions.sorted(by: { $0.key.row < $1.key.row }) where option.rowSpan > 1 {
        let span = index.row..<index.row + option.rowSpan
        let needed = rows[index.row][index.column].size.height + 2 * padding
        let have = span.reduce(0) { $0 + heights[$1] }
        if needed > have { heights[span.upperBound - 1] += needed - have }
      }
      // Groups: rows joined by rowspans; the footer rows are one group.
      var ends: [Int: Int] = [:]
      var start = 0
      var end = 0
      let reach = Dictionary(
        table.cellOptions.map { ($0.key.row, $0.key.row + max(1, $0.value.rowSpan)) }, uniquingKeysWith: max)
      for row in 0..<rows.count {
        if row == end {
          if row > start { ends[start] = end }
          start = row
          end = row == bodyRowCount ? rows.count : row + 1
        }
        end = max(end, reach[row] ?? row + 1)
      }
      if rows.count > start { ends[start] = end }
      groupEnds = ends
      rowHeights = heights
    }
  }

  /// The style of a cell with `option` applied to its row's style.
  static func styled(_ base: TextStyle, with option: ReportTableCell) -> TextStyle {
    var style = base
    if let alignment = option.alignment { style.alignment = alignment.textAlignment }
    if let bold = option.isBold { style.weight = bold ? .bold : .regular }
    if let color = option.color { style.color = color }
    return style
  }

  /// The positions covered by spanning cells, after checking every span: at least 1, inside the
  /// table's columns and its part (body or footer), over no other cell's span.
  static func coveredCells(of table: ReportTable, blockIndex: Int) throws -> Set<ReportTableCellIndex> {
    let columns = table.columns.count
    let rowCount = table.rows.count + table.footerRows.count
    var covered: Set<ReportTableCellIndex> = []
    for (index, option) in table.cellOptions.sorted(by: { ($0.key.row, $0.key.column) < ($1.key.row, $1.key.column) }) {
      func refuse(_ reason: String) -> ReportError {
        .invalidCellSpan(block: blockIndex, row: index.row, column: index.column, reason: reason)
      }
      guard (0..<rowCount).contains(index.row), (0..<columns).contains(index.column) else {
        throw refuse("is outside the table's \(rowCount) rows and \(columns) columns")
      }
      guard option.columnSpan >= 1, option.rowSpan >= 1 else {
        throw refuse("spans \(option.columnSpan) columns and \(option.rowSpan) rows; spans start at 1")
      }
      guard option.columnSpan <= columns - index.column else {
        throw refuse("spans \(option.columnSpan) columns, past the table's \(columns)")
      }
      let partEnd = index.row < table.rows.count ? table.rows.count : rowCount
      guard option.rowSpan <= partEnd - index.row else {
        throw refuse(
          "spans \(option.rowSpan) rows, past the end of the table's \(index.row < table.rows.count ? "body" : "footer")"
        )
      }
      guard !covered.contains(index) else { throw refuse("is covered by another cell's span") }
      guard option.columnSpan > 1 || option.rowSpan > 1 else { continue }
      for row in index.row..<index.row + option.rowSpan {
        for column in index.column..<index.column + option.columnSpan where row != index.row || column != index.column {
          let position = ReportTableCellIndex(row: row, column: column)
          guard covered.insert(position).inserted, table.cellOptions[position] == nil else {
            throw refuse(
              "spans over the cell at row \(row), column \(column), which is covered or has options of its own")
          }
        }
      }
    }
    return covered
  }

  /// Places the rows of a table with spans group by group after its header: a group that does not
  /// fit moves to the next page (under the header again); one taller than a page is split between
  /// lines when it is a single row, and refused when a rowspan joins it.
  mutating func placeSpannedRows(_ cells: TableCells, spans: TableSpans, blockIndex: Int) throws {
    let capacity = contentRect.height - cells.headerHeight + Self.epsilon
    func height(_ group: Range<Int>) -> Double { group.reduce(0) { $0 + spans.rowHeights[$1] } }
    let firstGroup = 0..<(spans.groupEnds[0] ?? 0)
    if cells.headerHeight + min(height(firstGroup), capacity) > remainingHeight + Self.epsilon, !isAtPageTop {
      startNewPage()
    }
    placeTableHeader(cells, blockIndex: blockIndex)
    var row = 0
    while row < cells.rows.count {
      let group = row..<(spans.groupEnds[row] ?? row + 1)
      row = group.upperBound
      let total = height(group)
      if total > capacity {
        guard group.count == 1 else { throw ReportError.rowGroupTooTall(block: blockIndex, row: group.lowerBound) }
        placeSplitRow(cells.rows[group.lowerBound], rowIndex: group.lowerBound, cells: cells, blockIndex: blockIndex)
        continue
      }
      if total > remainingHeight + Self.epsilon {
        startNewPage()
        placeTableHeader(cells, blockIndex: blockIndex)
      }
      placeRowGroup(group, cells: cells, spans: spans, blockIndex: blockIndex)
    }
  }

  /// Places the rows `group` whole at the cursor: backgrounds and rules first, then every cell's text.
  private mutating func placeRowGroup(
    _ group: Range<Int>, cells: TableCells, spans: TableSpans, blockIndex: Int
  ) {
    let top = cursor
    let heights = group.map { spans.rowHeights[$0] }
    placeRowDecorations(cells, spans: spans, rows: group, top: top, heights: heights)
    let padding = style.cellPadding
    var rowTop = top
    for (offset, row) in group.enumerated() {
      for (column, layout) in cells.rows[row].enumerated() {
        guard !spans.covered.contains(ReportTableCellIndex(row: row, column: column)) else { continue }
        elements.append(
          .text(
            placedRun(
              layout, lines: 0..<layout.lines.count,
              x: cells.columnX[column] + padding - cells.shifts[row][column], top: rowTop + padding,
              role: .tableCell(row: row, column: column), blockIndex: blockIndex)))
      }
      rowTop += heights[offset]
    }
    cursor = rowTop
  }

  /// Row backgrounds (stripes, the footer's header colour), cell fills and rules for `rows`
  /// placed from `top` with `heights`; a spanning cell's fill and border cover its whole area.
  mutating func placeRowDecorations(
    _ cells: TableCells, spans: TableSpans, rows: Range<Int>, top: Double, heights: [Double]
  ) {
    let tableWidth = cells.columnWidths.reduce(0, +)
    var tops: [Double] = []
    var next = top
    for height in heights {
      tops.append(next)
      next += height
    }
    for (offset, row) in rows.enumerated() {
      let band = Rect(x: contentRect.minX, y: tops[offset], width: tableWidth, height: heights[offset])
      if row >= spans.bodyRowCount {
        elements.append(.fill(band, color: style.tableHeaderBackground))
      } else if let stripe = style.tableStripeBackground, row % 2 == 1 {
        elements.append(.fill(band, color: stripe))
      }
    }
    var borders: [Rect] = []
    for (offset, row) in rows.enumerated() {
      for column in cells.columnX.indices {
        let index = ReportTableCellIndex(row: row, column: column)
        guard !spans.covered.contains(index) else { continue }
        let option = spans.options[index]
        let columnEnd = min(cells.columnX.count, column + max(1, option?.columnSpan ?? 1))
        // Within the rows placed here (a split row is placed a slice at a time).
        let rowEnd = min(rows.upperBound, row + max(1, option?.rowSpan ?? 1))
        let area = Rect(
          x: cells.columnX[column], y: tops[offset],
          width: (column..<columnEnd).reduce(0) { $0 + cells.columnWidths[$1] },
          height: heights[offset..<(offset + rowEnd - row)].reduce(0, +))
        if let fill = option?.fill { elements.append(.fill(area, color: fill)) }
        borders.append(area)
      }
    }
    for area in borders {
      switch style.tableRules {
      case .grid:
        elements.append(.stroke(area, color: style.tableBorder, lineWidth: 0.5))
      case .horizontal:
        elements.append(
          .fill(Rect(x: area.minX, y: area.maxY - 0.25, width: area.width, height: 0.5), color: style.tableBorder))
      case .none:
        break
      }
    }
  }
}
