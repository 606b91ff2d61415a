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
  /// The font weight (``FontWeight/regular`` by default).
  public var weight: FontWeight
  /// Italic (or oblique) when true.
  public var isItalic: Bool
  /// The text colour (markup can override it per span).
  public var color: Color
  /// Filled behind the text's logical box when set.
  public var backgroundColor: Color?
  /// How lines sit within the width (``TextAlignment/natural`` by default).
  public var alignment: TextAlignment
  /// Extra space between lines, in points: at least minus half ``fontSize`` (tighter lines would
  /// climb over each other) and finite, or a layout fails with ``RenderError``.
  public var lineSpacing: Double
  /// Where lines break when the text is wider than the layout (``WrapMode/word`` by default).
  public var wrap: WrapMode
  /// Where "…" replaces text that does not fit (``EllipsizeMode/none`` by default).
  public var ellipsize: EllipsizeMode
  /// The most lines shown; 0 means no limit. With ``ellipsize`` set, the last shown line is
  /// ellipsized; without it, the text is cut after that line.
  public var maxLines: Int
  /// A BCP 47 language tag ("zh-CN", "ar") that steers font choice and shaping.
  public var language: String?
  /// Line height as a multiple of each line's natural height (1, the default, is the font's own;
  /// 1.5 is CSS's `line-height: 1.5`). From 0.25 to 10, or the layout fails with ``RenderError``.
  public var lineHeight: Double = 1
  /// Extra space after every character, in points (negative tightens), from minus ``fontSize`` to
  /// 1000 points.
  public var letterSpacing: Double = 0
  /// Indent of each paragraph's first line, in points, at its leading edge; negative values hang
  /// the first line out (the other lines are indented instead). Within ±``TextLayout/maximumLength``.
  public var firstLineIndent: Double = 0
  /// Whether a hyphen is shown where a word is broken across lines (Pango's `insert_hyphens`).
  /// Words break only with ``WrapMode/char`` or ``WrapMode/wordChar``, or at soft hyphens
  /// (U+00AD); there is no dictionary hyphenation.
  public var hyphenates: Bool = true
  /// Lines across (the default) or columns down the tile (see ``TextOrientation``).
  public var orientation: TextOrientation = .horizontal

  /// A style; `TextStyle()` is 14-point regular black "Sans", naturally aligned, wrapped at words.
  /// ``init(font:)`` reads a Pango font description instead.
  public init(
    fontFamily: String = "Sans", fontSize: Double = 14, weight: FontWeight = .regular, isItalic: Bool = false,
    color: Color = .black, backgroundColor: Color? = nil, alignment: TextAlignment = .natural,
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
  /// Weight 100.
  case thin = 100
  /// Weight 300.
  case light = 300
  /// Weight 400, the default.
  case regular = 400
  /// Weight 500.
  case medium = 500
  /// Weight 600.
  case semibold = 600
  /// Weight 700.
  case bold = 700
  /// Weight 900.
  case heavy = 900
}

/// Horizontal alignment of lines within the layout width.
///
/// Two families of words, as in UIKit and CSS: *relative* ones follow each paragraph's direction
/// (found from its first strong character, so an Arabic paragraph runs right to left), *absolute*
/// ones do not.
///
/// | case | left-to-right paragraph | right-to-left paragraph |
/// |---|---|---|
/// | ``natural`` (default), ``leading`` | left | right |
/// | ``trailing`` | right | left |
/// | ``left`` | left | left |
/// | ``right`` | right | right |
/// | ``center`` | centred | centred |
/// | ``justify`` | both edges; last line at the left | both edges; last line at the right |
///
/// ```swift
/// var style = TextStyle()
/// style.alignment = .trailing   // the end of each paragraph: right for English, left for Arabic
/// ```
///
/// `left` and `right` used to mean the start and the end (Pango's meaning). The words still decode,
/// in the CLI's `--align` and the batch and report specs, with their absolute meaning; use
/// `leading`/`trailing` for the old one.
public enum TextAlignment: String, Sendable, Hashable, CaseIterable {
  /// The start of each paragraph's direction (UIKit's `.natural`; the same as ``leading`` here,
  /// since the library has no user-interface direction of its own).
  case natural
  /// The start of each paragraph's direction (CSS `start`).
  case leading
  /// The end of each paragraph's direction (CSS `end`).
  case trailing
  /// The left edge, whatever the direction.
  case left
  /// The right edge, whatever the direction.
  case right
  /// Centred in the width.
  case center
  /// Stretched to both edges, except each paragraph's last line, which starts at its leading edge.
  case justify

  /// True for ``left`` and ``right``, which ignore the paragraph direction.
  var isAbsolute: Bool { self == .left || self == .right }
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
  /// No ellipsis: text that does not fit is cut.
  case none
  /// "…" replaces the beginning of the line.
  case start
  /// "…" replaces the middle of the line.
  case middle
  /// "…" replaces the end of the line (of the last shown line).
  case end
}

/// Text to lay out: plain, Pango markup (`<b>bold</b> and <span foreground="red">red</span>`), or
/// an ``AttributedText`` with typed spans.
///
/// ```swift
/// let plain = TextContent.plain("1 < 2")                 // drawn as written
/// let markup = TextContent.markup("<b>Ada</b> replied")  // Pango markup
/// let styled = TextContent.attributed(AttributedText("Hello", spans: []))
/// ```
public enum TextContent: Sendable, Hashable {
  /// Text drawn as it is.
  case plain(String)
  /// Pango markup (`<b>`, `<i>`, `<span …>`); invalid markup fails with ``RenderError/invalidMarkup(_:)``.
  case markup(String)
  /// Text with typed spans.
  case attributed(AttributedText)

  /// The source string, markup included.
  public var source: String {
    switch self {
    case .plain(let text), .markup(let text): return text
    case .attributed(let text): return text.string
    }
  }
}
