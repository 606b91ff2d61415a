/// Fonts, colours and spacing of a report.
///
/// ```swift
/// var style = ReportStyle(fontFamily: "DejaVu Serif", bodySize: 11)
/// style.tableHeaderBackground = Color(red8: 0xdd, green8: 0xe6, blue8: 0xf0)
/// ```
public struct ReportStyle: Sendable, Hashable {
  /// The document title on the first page.
  public var title: TextStyle
  /// Heading styles by level: index 0 is level 1.
  public var headings: [TextStyle]
  /// Paragraph text.
  public var body: TextStyle
  /// Table header cells.
  public var tableHeader: TextStyle
  /// Table body cells.
  public var tableCell: TextStyle
  /// The "Page N of M" footer.
  public var footer: TextStyle
  /// Filled behind the table header row.
  public var tableHeaderBackground: Color
  /// The colour of table cell borders.
  public var tableBorder: Color
  /// Space between a cell's border and its text, in points.
  public var cellPadding: Double
  /// Space between blocks, in points (dropped at the top of a page).
  public var blockSpacing: Double
  /// Extra space above a heading, in points (dropped at the top of a page).
  public var headingSpacing: Double

  /// A style in one font family with body text of `bodySize` points; headings, table and footer
  /// sizes follow from it.
  public init(fontFamily: String = "Sans", bodySize: Double = 11) {
    title = TextStyle(fontFamily: fontFamily, fontSize: bodySize * 2, weight: .bold)
    headings = [
      TextStyle(fontFamily: fontFamily, fontSize: bodySize * 1.6, weight: .bold),
      TextStyle(fontFamily: fontFamily, fontSize: bodySize * 1.3, weight: .bold),
      TextStyle(fontFamily: fontFamily, fontSize: bodySize * 1.1, weight: .bold),
    ]
    body = TextStyle(fontFamily: fontFamily, fontSize: bodySize, lineSpacing: bodySize * 0.25)
    tableHeader = TextStyle(fontFamily: fontFamily, fontSize: bodySize * 0.9, weight: .bold)
    tableCell = TextStyle(fontFamily: fontFamily, fontSize: bodySize * 0.9)
    footer = TextStyle(fontFamily: fontFamily, fontSize: bodySize * 0.8, color: .gray, alignment: .center)
    tableHeaderBackground = Color(red8: 0xe4, green8: 0xe8, blue8: 0xee)
    tableBorder = Color(red8: 0x99, green8: 0x99, blue8: 0x99)
    cellPadding = 4
    blockSpacing = bodySize * 0.8
    headingSpacing = bodySize * 0.6
  }

  /// The style of a heading of `level` (1 is the largest).
  public func heading(level: Int) -> TextStyle {
    guard !headings.isEmpty else { return body }
    return headings[min(max(level, 1), headings.count) - 1]
  }
}
