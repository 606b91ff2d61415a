/// How text looks: font, size, weight, colour, alignment, wrapping, ellipsizing and line limits.
///
/// Sizes are in points; at scale 1 a point is a pixel (fonts are laid out at 72 dpi, as UIKit does).
///
/// ```swift
/// var style = TextStyle(font: "Sans Bold 14")
/// style.color = .white
/// style.maxLines = 2
/// style.ellipsize = .end
/// ```
public struct TextStyle: Sendable, Hashable {
  /// A font family or a comma-separated fallback list ("Sans", "DejaVu Serif, Noto Serif").
  public var fontFamily: String
  /// The font size in points.
  public var fontSize: Double
  public var weight: FontWeight
  public var isItalic: Bool
  /// The text colour (markup can override it per span).
  public var color: Color
  /// Filled behind the text's logical box when set.
  public var backgroundColor: Color?
  public var alignment: TextAlignment
  /// Extra space between lines, in points: at least minus half ``fontSize`` (tighter lines would
  /// climb over each other) and finite, or a layout fails with ``RenderError``.
  public var lineSpacing: Double
  public var wrap: WrapMode
  public var ellipsize: EllipsizeMode
  /// The most lines shown; 0 means no limit. With ``ellipsize`` set, the last shown line is
  /// ellipsized; without it, the text is cut after that line.
  public var maxLines: Int
  /// A BCP 47 language tag ("zh-CN", "ar") that steers font choice and shaping.
  public var language: String?

  public init(
    fontFamily: String = "Sans", fontSize: Double = 14, weight: FontWeight = .regular, isItalic: Bool = false,
    color: Color = .black, backgroundColor: Color? = nil, alignment: TextAlignment = .left,
    lineSpacing: Double = 0, wrap: WrapMode = .word, ellipsize: EllipsizeMode = .none, maxLines: Int = 0,
    language: String? = nil
  ) {
    self.fontFamily = fontFamily
    self.fontSize = fontSize
    self.weight = weight
    self.isItalic = isItalic
    self.color = color
    self.backgroundColor = backgroundColor
    self.alignment = alignment
    self.lineSpacing = lineSpacing
    self.wrap = wrap
    self.ellipsize = ellipsize
    self.maxLines = maxLines
    self.language = language
  }
}

/// Font weights, on the CSS / Pango scale.
public enum FontWeight: Int, Sendable, Hashable, CaseIterable {
  case thin = 100
  case light = 300
  case regular = 400
  case medium = 500
  case semibold = 600
  case bold = 700
  case heavy = 900
}

/// Horizontal alignment of lines within the layout width.
///
/// As in Pango, `left` and `right` mean the start and the end of the line: they swap for a
/// right-to-left paragraph, so Arabic or Hebrew text with the default `.left` hugs the right edge.
public enum TextAlignment: String, Sendable, Hashable, CaseIterable {
  case left, center, right, justify
}

/// Where lines may break.
public enum WrapMode: String, Sendable, Hashable, CaseIterable {
  /// At word boundaries.
  case word
  /// At any character.
  case char
  /// At word boundaries, or at characters when a word does not fit.
  case wordChar = "word-char"
}

/// Where an ellipsis replaces text that does not fit.
public enum EllipsizeMode: String, Sendable, Hashable, CaseIterable {
  case none, start, middle, end
}

/// Text to lay out: plain, or Pango markup (`<b>bold</b> and <span foreground="red">red</span>`).
public enum TextContent: Sendable, Hashable {
  case plain(String)
  case markup(String)

  /// The source string, markup included.
  public var source: String {
    switch self {
    case .plain(let text), .markup(let text): return text
    }
  }
}
