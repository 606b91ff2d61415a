/// Text with styled spans, built in Swift rather than by concatenating Pango markup: no escaping,
/// and each span is handed to Pango as attributes directly.
///
/// Build it piece by piece, or style ranges of a finished string:
///
/// ```swift
/// var text = AttributedText()
/// text.append("Read the ")
/// text.append("terms", TextAttributes(color: .blue, underline: .single, link: "https://example.com/terms"))
/// text.append(" before you <sign>.")   // no escaping: "<" is just a character
///
/// var title = AttributedText("Total: 1 204 €")
/// title.addAttributes(TextAttributes(weight: .bold), to: title.string.range(of: "1 204 €")!)
/// let layout = try TextLayout(.attributed(title), style: TextStyle(), width: 300)
/// ```
///
/// Spans are kept as UTF-8 byte ranges of ``string`` (Pango's unit). Where spans overlap, the one
/// added later wins for the properties it sets.
public struct AttributedText: Sendable, Hashable {
  /// The text.
  public private(set) var string: String
  /// The styled spans, in the order they were added.
  public var spans: [TextSpan]

  /// The most spans a text may carry; more fail the layout with ``RenderError/invalidValue(name:value:expected:)``.
  public static let maximumSpanCount = 100_000

  /// Text with no spans yet (`string` is drawn in the ``TextStyle`` alone).
  public init(_ string: String = "") {
    self.string = string
    self.spans = []
  }

  /// Text with spans given as UTF-8 byte ranges; they are checked when the text is laid out.
  public init(_ string: String, spans: [TextSpan]) {
    self.string = string
    self.spans = spans
  }

  /// Appends `text`, styled with `attributes` when any are set.
  ///
  /// ```swift
  /// var text = AttributedText()
  /// text.append("Bold", TextAttributes(weight: .bold))
  /// ```
  public mutating func append(_ text: String, _ attributes: TextAttributes = TextAttributes()) {
    let start = string.utf8.count
    string += text
    if attributes != TextAttributes() {
      spans.append(TextSpan(utf8Range: start..<string.utf8.count, attributes: attributes))
    }
  }

  /// `self` with `text` appended, for chained building.
  ///
  /// ```swift
  /// let text = AttributedText().appending("a ").appending("b", TextAttributes(isItalic: true))
  /// ```
  public func appending(_ text: String, _ attributes: TextAttributes = TextAttributes()) -> AttributedText {
    var copy = self
    copy.append(text, attributes)
    return copy
  }

  /// Styles the characters of `range`, a range of indices of ``string``.
  ///
  /// ```swift
  /// var text = AttributedText("Hello, world")
  /// text.addAttributes(TextAttributes(color: .red), to: text.string.range(of: "world")!)
  /// ```
  public mutating func addAttributes(_ attributes: TextAttributes, to range: Range<String.Index>) {
    let utf8 = string.utf8
    let start = utf8.distance(from: utf8.startIndex, to: range.lowerBound)
    let end = utf8.distance(from: utf8.startIndex, to: range.upperBound)
    spans.append(TextSpan(utf8Range: start..<end, attributes: attributes))
  }

  /// Styles the characters from `offset` (counted in `Character`s, as `String.count` counts them)
  /// for `count` characters; a range beyond the text is clamped to it.
  ///
  /// ```swift
  /// var text = AttributedText("Hello, world")
  /// text.addAttributes(TextAttributes(weight: .bold), characters: 7, count: 5)  // "world"
  /// ```
  public mutating func addAttributes(_ attributes: TextAttributes, characters offset: Int, count: Int) {
    let start = string.index(string.startIndex, offsetBy: max(0, offset), limitedBy: string.endIndex) ?? string.endIndex
    let end = string.index(start, offsetBy: max(0, count), limitedBy: string.endIndex) ?? string.endIndex
    addAttributes(attributes, to: start..<end)
  }
}

/// A range of an ``AttributedText`` and how it is styled.
///
/// ```swift
/// let text = AttributedText("Hello world", spans: [
///   TextSpan(utf8Range: 6..<11, attributes: TextAttributes(weight: .bold))   // "world"
/// ])
/// ```
public struct TextSpan: Sendable, Hashable {
  /// The span's UTF-8 byte range in ``AttributedText/string``; both ends must fall on character
  /// (Unicode scalar) boundaries.
  public var utf8Range: Range<Int>
  /// What the span changes.
  public var attributes: TextAttributes

  /// A span over the UTF-8 byte offsets `utf8Range` of the string.
  public init(utf8Range: Range<Int>, attributes: TextAttributes) {
    self.utf8Range = utf8Range
    self.attributes = attributes
  }
}
