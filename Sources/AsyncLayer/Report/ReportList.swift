/// A bulleted or numbered list whose items may hold lists of their own.
///
/// Each item's text wraps with a hanging indent: its second and later lines start under its first
/// line's text, not under the marker. Lists break between items and between an item's lines (with
/// the paragraph's widow and orphan control), never inside a line.
///
/// ```swift
/// var steps = ReportList(numbered: true, items: [
///   ReportListItem("Unpack the parts"),
///   ReportListItem("Assemble the frame", sublist: ReportList(items: ["Left side", "Right side"].map(ReportListItem.init))),
/// ])
/// report.addList(steps)
/// ```
public struct ReportList: Sendable, Hashable {
  /// True for numbers (`1.`, `2.`, …), false for bullets (`•`, then `◦` and `▪` when nested).
  public var isNumbered: Bool
  /// The number of the first item of a numbered list.
  public var start: Int
  /// The items, in order.
  public var items: [ReportListItem]

  /// How deeply lists may nest: 8 levels (a list inside an item of a list is level 2).
  public static let maximumDepth = 8
  /// The most items a list may hold, its nested lists included: 100 000, checked before any item is
  /// laid out.
  public static let maximumItems = 100_000

  /// A list of `items`, bulleted unless `numbered`.
  public init(numbered: Bool = false, start: Int = 1, items: [ReportListItem]) {
    self.isNumbered = numbered
    self.start = start
    self.items = items
  }

  /// How deep the list nests (1 without nested lists), counting at most `limit + 1` levels so that
  /// a hostile depth costs no more than the limit.
  func depth(limit: Int = maximumDepth) -> Int {
    guard limit > 0 else { return 1 }
    return 1 + (items.compactMap { $0.sublist?.depth(limit: limit - 1) }.max() ?? 0)
  }

  /// The items of the list and its nested lists, stopping once past `limit`.
  func itemCount(limit: Int = maximumItems) -> Int {
    var count = 0
    for item in items {
      count += 1
      if let sublist = item.sublist { count += sublist.itemCount(limit: limit - count) }
      if count > limit { return count }
    }
    return count
  }

  /// The marker of item `index` (from 0) at nesting `level` (from 0).
  func marker(at index: Int, level: Int) -> String {
    guard isNumbered else { return ["•", "◦", "▪"][level % 3] }
    // Clamped so that a start near Int.max cannot overflow.
    let (number, overflow) = start.addingReportingOverflow(index)
    return "\(overflow ? Int.max : number)."
  }
}

/// One item of a ``ReportList``: its text and, optionally, a list nested under it.
public struct ReportListItem: Sendable, Hashable {
  /// The item's text: plain, markup or styled spans.
  public var content: TextContent
  /// A list shown under the item's text, indented one level further.
  public var sublist: ReportList?

  /// An item of plain text.
  public init(_ text: String) {
    self.init(.plain(text))
  }

  /// An item of `content`, with a nested list.
  public init(_ content: TextContent, sublist: ReportList? = nil) {
    self.content = content
    self.sublist = sublist
  }
}
