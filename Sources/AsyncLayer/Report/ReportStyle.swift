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
  /// The page footer ("Page N of M").
  public var footer: TextStyle
  /// The page header (``ReportDocument/header``).
  public var header: TextStyle
  /// Table of contents lines.
  public var tableOfContents: TextStyle
  /// Filled behind every other body row of a table (the second, fourth, …); nil for none.
  public var tableStripeBackground: Color?
  /// Which lines a table draws.
  public var tableRules: ReportTableRules
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
  /// The fewest lines of a paragraph or list item left alone at the top of a page (widows); the
  /// break moves earlier to give them company. 1 turns the control off.
  public var widows: Int = 2
  /// The fewest lines of a paragraph or list item left alone at the bottom of a page (orphans); the
  /// text starts on the next page instead. 1 turns the control off.
  public var orphans: Int = 2
  /// How far each level of a list indents its text, in points (at least the widest number).
  public var listIndent: Double
  /// Space between list items, in points.
  public var listItemSpacing: Double
  /// Space between a list marker and its item's text, in points.
  public var listMarkerGap: Double
  /// Whether table of contents lines draw leader dots from the title to the page number.
  public var contentsLeaders: Bool = false

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
    header = TextStyle(fontFamily: fontFamily, fontSize: bodySize * 0.8, color: .gray, alignment: .center)
    tableOfContents = TextStyle(fontFamily: fontFamily, fontSize: bodySize)
    tableStripeBackground = nil
    tableRules = .grid
    tableHeaderBackground = Color(red8: 0xe4, green8: 0xe8, blue8: 0xee)
    tableBorder = Color(red8: 0x99, green8: 0x99, blue8: 0x99)
    cellPadding = 4
    blockSpacing = bodySize * 0.8
    headingSpacing = bodySize * 0.6
    listIndent = bodySize * 1.6
    listItemSpacing = bodySize * 0.25
    listMarkerGap = bodySize * 0.5
  }

  /// The style of a heading of `level` (1 is the largest).
  public func heading(level: Int) -> TextStyle {
    guard !headings.isEmpty else { return body }
    return headings[min(max(level, 1), headings.count) - 1]
  }
}

/// The lines a table draws.
///
/// ```swift
/// style.tableRules = .horizontal   // rules between rows, no vertical lines
/// ```
public enum ReportTableRules: String, Sendable, Hashable, CaseIterable {
  /// A border around every cell.
  case grid
  /// A rule under the header and under each row.
  case horizontal
  /// No lines (use ``ReportStyle/tableStripeBackground`` to tell rows apart).
  case none
}
