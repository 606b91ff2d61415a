/// Where a point falls in a ``TextLayout``: the character under it (or nearest to it).
///
/// ```swift
/// let hit = layout.position(at: Point(x: 40, y: 8))
/// if hit.isInside { print("tapped the character at byte", hit.utf8Offset) }
/// ```
public struct TextPosition: Sendable, Hashable {
  /// Where the character starts in ``TextLayout/text``, as a UTF-8 byte offset.
  public let utf8Offset: Int
  /// True when the point is over the character; false when it is beside the text or past its
  /// end, and the position is the nearest character of the nearest line.
  public let isInside: Bool
  /// True when the point is over the character's trailing half: a caret placed there goes after it.
  public let isInTrailingHalf: Bool
  /// The index of the line it is on, among ``TextLayout/lines``.
  public let lineIndex: Int
}
