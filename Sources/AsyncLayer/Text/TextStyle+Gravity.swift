internal import CCairo

/// Which way lines run: across (the default) or down the tile, as Pango's gravity lays them out.
///
/// Vertical text is laid out by Pango with its base gravity east: each line is a column running
/// top to bottom, and columns follow each other from right to left, as in Japanese and Chinese
/// books. ``TextTile`` turns the layout a quarter turn and swaps the roles of its sides: its
/// ``TextTile/width`` is then the length of a column (the image's height) and ``TextTile/height``
/// the extent across the columns (the image's width; nil fits them).
///
/// ```swift
/// var style = TextStyle(font: "Noto Sans CJK JP 20")
/// style.orientation = .vertical          // 東京 upright, "Tokyo" turned a quarter turn clockwise
/// let tile = TextTile(.plain("東京 Tokyo"), style: style, width: 300)
/// let image = try tile.render().image    // taller than wide
/// ```
///
/// A ``TextLayout`` with a vertical style is in its own frame (lines across, glyphs turned);
/// drawing it yourself, turn the context a quarter turn clockwise first.
public enum TextOrientation: String, Sendable, Hashable, CaseIterable {
  /// Lines run left to right (or right to left), stacked downwards.
  case horizontal
  /// Columns run downwards, stacked right to left: CJK upright, other scripts (Latin, Arabic,
  /// Devanagari) turned a quarter turn clockwise (Pango's natural gravity hint).
  case vertical
  /// Columns as ``vertical``, with every script upright, Latin letters stacked one under the
  /// other (Pango's strong gravity hint).
  case verticalUpright = "vertical-upright"

  /// True for the two vertical orientations.
  public var isVertical: Bool { self != .horizontal }

  /// The raw value of the gravity hint Pango lays this orientation out with (nil: horizontal).
  var pangoGravityHint: UInt32? {
    switch self {
    case .horizontal: nil
    case .vertical: PANGO_GRAVITY_HINT_NATURAL.rawValue
    case .verticalUpright: PANGO_GRAVITY_HINT_STRONG.rawValue
    }
  }
}
