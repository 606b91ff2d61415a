/// Why a ``ReportDocument`` cannot be laid out.
///
/// ```swift
/// do {
///   _ = try ReportLayout(ReportDocument(pageSize: Size(width: 100, height: 100), margins: EdgeInsets(all: 60)))
/// } catch let error as ReportError {
///   print(error)  // "the margins leave no room on a 100.0×100.0 page"
/// }
/// ```
public enum ReportError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The margins (and the title or table header) leave no room for content on the page.
  case pageTooSmall(pageSize: Size, margins: EdgeInsets)
  /// A table's ``ReportTable/widths`` do not give one positive width per column.
  case invalidColumnWidths(block: Int, widths: [Double], columns: Int)
  /// A table row has more cells than the table has columns.
  case tooManyCells(block: Int, row: Int, cells: Int, columns: Int)
  /// A table has no columns.
  case emptyTable(block: Int)
  /// A page index (from 0) beyond the layout's pages.
  case pageOutOfRange(index: Int, count: Int)
  /// A table column is narrower than its cell padding plus 1 point of text: too many columns (or
  /// too small a relative width) for the content width. `fits` is how many columns of equal width
  /// the content width holds.
  case columnTooNarrow(block: Int, column: Int, columns: Int, width: Double, minimum: Double, contentWidth: Double)
  /// A list nests deeper than `limit` levels (``ReportList/maximumDepth``).
  case listTooDeep(block: Int, limit: Int)
  /// A list holds more than `limit` items, nested ones included (``ReportList/maximumItems``).
  case listTooLong(block: Int, limit: Int)
  /// A table cell's span is not at least 1, reaches past the table's columns or rows, or covers a
  /// cell another span covers (`row` counts the body rows, then the footer rows).
  case invalidCellSpan(block: Int, row: Int, column: Int, reason: String)
  /// The rows a rowspan joins (with the table header) are taller than a page: such a group is
  /// kept on one page.
  case rowGroupTooTall(block: Int, row: Int)

  /// A message a person can act on.
  public var description: String {
    switch self {
    case .pageTooSmall(let size, let margins):
      return "the margins (\(margins.top), \(margins.left), \(margins.bottom), \(margins.right)) leave no room on a "
        + "\(size) page"
    case .invalidColumnWidths(let block, let widths, let columns):
      return "block \(block): a table of \(columns) columns needs \(columns) positive widths (got \(widths))"
    case .tooManyCells(let block, let row, let cells, let columns):
      return "block \(block): table row \(row) has \(cells) cells but the table has \(columns) columns"
    case .emptyTable(let block):
      return "block \(block): a table needs at least one column"
    case .columnTooNarrow(let block, let column, let columns, let width, let minimum, let contentWidth):
      func points(_ value: Double) -> String { "\((value * 100).rounded() / 100) pt" }
      let fits = max(0, Int((contentWidth / minimum).rounded(.down)))
      return "block \(block): column \(column + 1) of the table's \(columns) is \(points(width)) wide, but a column "
        + "needs at least \(points(minimum)) (its cell padding on both sides and 1 pt of text); the \(points(contentWidth)) "
        + "between the margins fits at most \(fits) columns of equal width: use fewer columns or a wider page"
    case .pageOutOfRange(let index, let count):
      return "page index \(index) is outside the report's \(count) pages (0..<\(count))"
    case .listTooDeep(let block, let limit):
      return "block \(block): a list nests more than \(limit) levels deep; flatten it"
    case .listTooLong(let block, let limit):
      return "block \(block): a list holds more than \(limit) items; split it into several lists"
    case .invalidCellSpan(let block, let row, let column, let reason):
      return "block \(block): the table cell at row \(row), column \(column) \(reason)"
    case .rowGroupTooTall(let block, let row):
      return "block \(block): the rows joined by the rowspan from row \(row) are taller than a page, and a rowspan "
        + "is kept on one page: use a smaller rowspan or less text"
    }
  }
}
