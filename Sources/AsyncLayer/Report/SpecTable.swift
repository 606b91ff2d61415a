import Foundation

/// `{"columns": [...], "widths": [...], "rows": [[...]]}`, checked for shape.
struct SpecTable: Decodable {
  let table: ReportTable

  private enum CodingKeys: String, CodingKey, CaseIterable { case columns, widths, rows, align, formats, footer }

  init(from decoder: any Decoder) throws {
    try ReportSpecKey.rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let columns = try container.decode([String].self, forKey: .columns)
    guard !columns.isEmpty else {
      throw DecodingError.invalid("expected at least one column", at: container.codingPath + [CodingKeys.columns])
    }
    let widths = try container.decodeIfPresent([Double].self, forKey: .widths)
    if let widths {
      guard widths.count == columns.count else {
        throw DecodingError.invalid(
          "expected \(columns.count) widths, one per column (got \(widths.count))",
          at: container.codingPath + [CodingKeys.widths])
      }
      if let bad = widths.firstIndex(where: { !($0 > 0 && $0.isFinite) }) {
        throw DecodingError.invalid(
          "expected a positive relative width (got \(widths[bad]))",
          at: container.codingPath + [CodingKeys.widths, ReportSpecKey(intValue: bad)])
      }
    }
    // Rows of strings decode fast; cells with options (an object) are placed as in HTML.
    var options: [ReportTableCellIndex: ReportTableCell] = [:]
    let rows: [[String]]
    if let plain = try? container.decode(StringRows.self, forKey: .rows) {
      rows = plain.rows
      if let bad = rows.firstIndex(where: { $0.count > columns.count }) {
        throw DecodingError.invalid(
          "\(rows[bad].count) cells, but the table has \(columns.count) columns",
          at: container.codingPath + [CodingKeys.rows, ReportSpecKey(intValue: bad)])
      }
    } else {
      rows = try Self.place(
        container.decode([[SpecCell]].self, forKey: .rows), columns: columns.count, firstRow: 0, options: &options)
    }
    let footer = try container.decodeIfPresent([[SpecCell]].self, forKey: .footer) ?? []
    var table = ReportTable(columns: columns, widths: widths, rows: rows)
    table.footerRows = try Self.place(footer, columns: columns.count, firstRow: rows.count, options: &options)
    table.cellOptions = options
    for key in [CodingKeys.align, .formats] {
      guard let count = try? container.nestedUnkeyedContainer(forKey: key).count, count > columns.count else {
        continue
      }
      throw DecodingError.invalid(
        "expected at most \(columns.count) entries, one per column (got \(count))", at: container.codingPath + [key])
    }
    table.alignments =
      try container.decodeIfPresent([SpecChoice<ReportColumnAlignment>].self, forKey: .align)?
      .map(\.value) ?? []
    table.formats = try container.decodeIfPresent([SpecFormat].self, forKey: .formats)?.map(\.format) ?? []
    self.table = table
  }

  /// `rows` when every row is an array of strings; any other value fails, and the rows are then
  /// decoded as ``SpecCell``s, which name what is wrong (this decodes nothing else, so its errors
  /// are never shown).
  ///
  /// The same as decoding `[[String]]`, but with the decoder's concrete string and nested-array
  /// calls: `[[String]]` goes through `Array`'s generic `Decodable` path for each of a 2,000-row
  /// table's 10,000 cells (some 4,500 instructions a cell, two thirds of the spec's decoding).
  private struct StringRows: Decodable {
    let rows: [[String]]

    init(from decoder: any Decoder) throws {
      var outer = try decoder.unkeyedContainer()
      var rows: [[String]] = []
      rows.reserveCapacity(outer.count ?? 0)
      while !outer.isAtEnd {
        var inner = try outer.nestedUnkeyedContainer()
        var row: [String] = []
        row.reserveCapacity(inner.count ?? 0)
        while !inner.isAtEnd { row.append(try inner.decode(String.self)) }
        rows.append(row)
      }
      self.rows = rows
    }
  }

  /// The text grid of `rows` of cells, as in HTML: each cell takes the next column that no rowspan
  /// from above covers, and covered positions are left empty. Cells with options are recorded in
  /// `options` at row `firstRow + r`. Refuses a cell past the last column and a span past the
  /// table's columns or past its part (body or footer), naming the cell's path.
  private static func place(
    _ rows: [[SpecCell]], columns: Int, firstRow: Int,
    options: inout [ReportTableCellIndex: ReportTableCell]
  ) throws -> [[String]] {
    var covered: Set<ReportTableCellIndex> = []
    return try rows.enumerated().map { row, cells in
      var texts = Array(repeating: "", count: columns)
      var column = 0
      for cell in cells {
        while column < columns, covered.contains(ReportTableCellIndex(row: row, column: column)) { column += 1 }
        guard column < columns else {
          throw DecodingError.invalid(
            "no column left for this cell: the cells before it and the rowspans from above fill the table's "
              + "\(columns) columns", at: cell.codingPath)
        }
        let option = cell.options ?? ReportTableCell()
        guard option.columnSpan <= columns - column else {
          throw DecodingError.invalid(
            "spans \(option.columnSpan) columns from column \(column + 1), past the table's \(columns)",
            at: cell.path("colspan"))
        }
        guard option.rowSpan <= rows.count - row else {
          throw DecodingError.invalid(
            "spans \(option.rowSpan) rows from this one, past the \(rows.count - row) left in the \(firstRow == 0 ? "rows" : "footer")",
            at: cell.path("rowspan"))
        }
        for spanned in column..<column + option.columnSpan
        where covered.contains(ReportTableCellIndex(row: row, column: spanned)) {
          throw DecodingError.invalid(
            "spans column \(spanned + 1), which a rowspan from above covers", at: cell.path("colspan"))
        }
        texts[column] = cell.text
        if option != ReportTableCell() { options[ReportTableCellIndex(row: firstRow + row, column: column)] = option }
        for spannedRow in row..<row + option.rowSpan {
          for spanned in column..<column + option.columnSpan where spannedRow > row {
            covered.insert(ReportTableCellIndex(row: spannedRow, column: spanned))
          }
        }
        column += option.columnSpan
      }
      return texts
    }
  }
}
