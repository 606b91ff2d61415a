/// An outline drawn along the glyphs' contours of a ``TextTile`` (cairo's stroke of the text's path).
///
/// The stroke is centred on the contours: half its ``width`` lies outside the glyphs, so a tile
/// with a stroke is half the width larger on every side, and every box grows by that half-width.
/// Joins and caps are round, so the outline never reaches further than that (a mitred corner
/// would). With ``fills`` the glyphs are drawn in the style's colour over the stroke, as an
/// outlined title; without, only the outline is drawn (hollow letters).
///
/// ```swift
/// var tile = TextTile(.plain("Outlined"), style: TextStyle(font: "Sans Bold 32"), width: 300, background: .white)
/// tile.stroke = TextStroke(width: 3, color: .black)   // black outline, black-filled glyphs
/// tile.style.color = .white                           // white letters, black outline
/// let image = try tile.render().image
/// ```
public struct TextStroke: Sendable, Hashable {
  /// The widest stroke accepted, in points.
  public static let maximumWidth = 100.0

  /// The stroke's width in points (cairo's line width), above 0 and at most ``maximumWidth``.
  public var width: Double
  /// The stroke's colour.
  public var color: Color
  /// Whether the glyphs are filled (in ``TextStyle/color`` and markup's colours) over the stroke.
  public var fills: Bool

  /// A stroke `width` points wide in `color`, with the glyphs filled over it unless `fills` is false.
  public init(width: Double, color: Color = .black, fills: Bool = true) {
    self.width = width
    self.color = color
    self.fills = fills
  }

  /// Half the width: how far the outline reaches past the glyphs' contours.
  public var halfWidth: Double { width / 2 }

  /// Throws ``RenderError/invalidValue(name:value:expected:)`` for a width that is NaN, infinite,
  /// zero, negative or above ``maximumWidth``.
  public func validate() throws(RenderError) {
    guard width.isFinite, width > 0, width <= Self.maximumWidth else {
      throw .invalidValue(
        name: "stroke width", value: "\(width)",
        expected: "a number of points above 0 and at most \(Int(Self.maximumWidth)) (no stroke: leave it nil)")
    }
  }
}
