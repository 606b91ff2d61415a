/// Where the cells of a table column sit: the ``TextAlignment`` words, plus `decimal`, which
/// right-aligns numbers so that their decimal points line up.
///
/// ```swift
/// table.alignments = [.natural, .right, .decimal]
/// ```
public enum ReportColumnAlignment: String, Sendable, Hashable, CaseIterable {
  /// The start of each cell's paragraph direction (left for left-to-right text): ``TextAlignment/natural``.
  case natural
  /// The start of each cell's paragraph direction: ``TextAlignment/leading``.
  case leading
  /// The end of each cell's paragraph direction: ``TextAlignment/trailing``.
  case trailing
  /// The left edge, whatever the direction.
  case left
  /// The right edge, whatever the direction.
  case right
  /// Centred in the column.
  case center
  /// Both edges of the column (the last line at its start).
  case justify
  /// Right-aligned on the decimal point ("."): "12.5" and "1,204.75" line up at their points; a
  /// cell without a point lines up its end with the others' points.
  case decimal

  /// The text alignment of the cell layouts (decimal cells are right-aligned, then shifted).
  var textAlignment: TextAlignment {
    self == .decimal ? .right : TextAlignment(rawValue: rawValue) ?? .natural
  }
}
