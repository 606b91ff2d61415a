/// A link of an attributed text and where it is drawn.
public struct TextLink: Sendable, Hashable {
  /// The span's ``TextAttributes/link``.
  public let target: String
  /// The span's range in ``TextLayout/text``.
  public let utf8Range: Range<Int>
  /// Its rectangles, one per line piece (see ``TextLayout/rects(forUTF8Range:)``).
  public let rects: [Rect]
}
