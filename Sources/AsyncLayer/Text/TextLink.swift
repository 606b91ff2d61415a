/// A link of an attributed text and where it is drawn.
///
/// ```swift
/// for link in layout.links {
///   for rect in link.rects { context.fill(rect, color: Color.blue.withAlpha(0.15)) }
/// }
/// ```
public struct TextLink: Sendable, Hashable {
  /// The span's ``TextAttributes/link``.
  public let target: String
  /// The span's range in ``TextLayout/text``.
  public let utf8Range: Range<Int>
  /// Its rectangles, one per line piece (see ``TextLayout/rects(forUTF8Range:)``).
  public let rects: [Rect]
}
