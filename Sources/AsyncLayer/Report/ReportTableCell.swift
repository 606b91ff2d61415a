/// Options of one table cell: how many columns and rows it spans, and its own fill, weight, colour
/// and alignment (``ReportTable/cellOptions``).
///
/// A spanning cell's text is in ``ReportTable/rows`` at its top-left position; the positions it
/// covers are left empty and not drawn. Rows joined by a rowspan stay on one page.
///
/// ```swift
/// var table = ReportTable(columns: ["Region", "Q1", "Q2"], rows: [["North", "4", "5"], ["", "6", "7"]])
/// table.cellOptions[ReportTableCellIndex(row: 0, column: 0)] = ReportTableCell(rowSpan: 2)
/// table.cellOptions[ReportTableCellIndex(row: 1, column: 2)] = ReportTableCell(fill: .yellow, isBold: true)
/// ```
public struct ReportTableCell: Sendable, Hashable {
  /// How many columns the cell spans, from 1.
  public var columnSpan: Int
  /// How many rows the cell spans, from 1; body rows and footer rows do not mix.
  public var rowSpan: Int
  /// Filled behind the cell (over the row's stripe or header background); nil for none.
  public var fill: Color?
  /// True for bold, false for regular, nil for the row's weight.
  public var isBold: Bool?
  /// The text colour, nil for the table's.
  public var color: Color?
  /// The cell's alignment, nil for its column's (`decimal` acts as `right` in a spanning cell).
  public var alignment: ReportColumnAlignment?

  /// A cell with the given options; the defaults change nothing.
  public init(
    columnSpan: Int = 1, rowSpan: Int = 1, fill: Color? = nil, isBold: Bool? = nil, color: Color? = nil,
    alignment: ReportColumnAlignment? = nil
  ) {
    self.columnSpan = columnSpan
    self.rowSpan = rowSpan
    self.fill = fill
    self.isBold = isBold
    self.color = color
    self.alignment = alignment
  }
}

/// A cell's position in a ``ReportTable``: `row` counts the body rows from 0, then the footer rows
/// (footer row `i` is row `rows.count + i`).
public struct ReportTableCellIndex: Sendable, Hashable {
  /// The row, from 0 (body rows, then footer rows).
  public var row: Int
  /// The column, from 0.
  public var column: Int

  /// The cell at `row`, `column`.
  public init(row: Int, column: Int) {
    self.row = row
    self.column = column
  }
}
