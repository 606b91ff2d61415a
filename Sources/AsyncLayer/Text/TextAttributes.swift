/// How a span of an ``AttributedText`` differs from the ``TextStyle`` it is laid out with: each
/// property left nil keeps the style's value.
///
/// ```swift
/// var link = TextAttributes(color: .blue, underline: .single)
/// link.link = "https://example.com/terms"
/// let bold = TextAttributes(weight: .bold)
/// ```
public struct TextAttributes: Sendable, Hashable {
  /// A font family or a comma-separated fallback list.
  public var fontFamily: String?
  /// The font size in points.
  public var fontSize: Double?
  /// The font weight.
  public var weight: FontWeight?
  /// Italic (or oblique) when true, upright when false.
  public var isItalic: Bool?
  /// The text colour.
  public var color: Color?
  /// Filled behind the span's glyphs, line by line.
  public var backgroundColor: Color?
  /// The underline style.
  public var underline: Underline?
  /// A line through the glyphs when true.
  public var strikethrough: Bool?
  /// Extra space after each character, in points.
  public var letterSpacing: Double?
  /// How far the span is raised above the baseline, in points (negative lowers it).
  public var baselineShift: Double?
  /// A link target (a URL or any string the caller understands). It changes nothing in a tile: a
  /// cell finds the link under a tap with ``TextLayout/link(at:)`` and its rectangles with
  /// ``TextLayout/rects(forUTF8Range:)``; a report's PDF makes it a clickable link.
  public var link: String?

  /// Underline styles.
  public enum Underline: String, Sendable, Hashable, CaseIterable {
    /// No underline (to switch one off inside an underlined span).
    case none
    /// One straight line.
    case single
    /// Two straight lines.
    case double
    /// A wavy line, as spelling checkers draw.
    case error
  }

  /// Attributes that set only the properties given; the rest keep the style's values.
  public init(
    fontFamily: String? = nil, fontSize: Double? = nil, weight: FontWeight? = nil, isItalic: Bool? = nil,
    color: Color? = nil, backgroundColor: Color? = nil, underline: Underline? = nil, strikethrough: Bool? = nil,
    letterSpacing: Double? = nil, baselineShift: Double? = nil, link: String? = nil
  ) {
    self.fontFamily = fontFamily
    self.fontSize = fontSize
    self.weight = weight
    self.isItalic = isItalic
    self.color = color
    self.backgroundColor = backgroundColor
    self.underline = underline
    self.strikethrough = strikethrough
    self.letterSpacing = letterSpacing
    self.baselineShift = baselineShift
    self.link = link
  }
}
