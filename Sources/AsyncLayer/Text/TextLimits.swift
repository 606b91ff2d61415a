/// How much text one ``TextLayout`` accepts; larger text is refused before Pango sees it.
///
/// Pango lays a text out in one uninterruptible call, in 32-bit coordinates, at a cost that grows
/// faster than the text. Measured on this project's 2-core machine: 256 KiB of ordinary text takes
/// 0.2–1.4 s (1.4 s as a single paragraph); 1 MiB in 1 900 paragraphs 7 s; 4 MiB 68 s; 50 000
/// one-character lines 14 s (every paragraph costs Pango a pass over the text before it). The
/// defaults keep ordinary text to about a second. Split longer text into several tiles or
/// report blocks, or raise the limits:
///
/// ```swift
/// var tile = TextTile(.plain(logExcerpt), width: 600)
/// tile.limits = TextLimits(maximumBytes: 1 << 20)   // at your own risk: seconds of layout
/// ```
///
/// Within the limits one case stays slow: ``WrapMode/wordChar`` breaking a long run without
/// spaces (a URL, base64) re-measures the rest of the run for every line, 0.4 s for 16 KiB and
/// 9 s for 64 KiB at a 375-point width; ``WrapMode/char`` takes 0.2 s for 64 KiB.
///
/// Two more checks need the layout and cannot be configured, because they are Pango's own range:
/// a paragraph in one Pango layout must be narrower than ``TextLayout/maximumLength`` before
/// wrapping (about 290 000 characters of 14-point text; beyond it Pango's widths overflow and the
/// paragraph collapses to an empty line; a wrapped text without an ellipsis longer than 8 KiB is
/// laid out in pieces of about 4 KiB, which stay far below it), and all lines together shorter than that (beyond it later lines are drawn over
/// earlier ones); both fail with ``RenderError/layoutTooLarge(dimension:points:limit:)``.
public struct TextLimits: Sendable, Hashable {
  /// The most UTF-8 bytes of source text (markup included) in one layout; 256 KiB by default.
  public var maximumBytes: Int
  /// The most paragraphs in one layout (a paragraph ends at a line feed, a carriage return or
  /// U+2029); 1 000 by default.
  public var maximumParagraphs: Int
  /// The longest run without a space a ``TextTile`` accepts when its lines wrap between characters
  /// (``WrapMode/wordChar``, or Lao, Khmer and Myanmar text); 16 KiB by default. Such a run costs
  /// Pango time that grows with its square (250 KB of Khmer without spaces: 52 s).
  public var maximumUnbrokenBytes: Int = TextLimits.defaultMaximumUnbrokenBytes

  /// Limits of `maximumBytes` bytes and `maximumParagraphs` paragraphs per layout.
  public init(maximumBytes: Int = 256 << 10, maximumParagraphs: Int = 1_000) {
    self.maximumBytes = maximumBytes
    self.maximumParagraphs = maximumParagraphs
  }

  /// 256 KiB and 1 000 paragraphs.
  public static let `default` = TextLimits()

  /// Throws when `source` exceeds the limits.
  func check(_ source: String) throws {
    let bytes = source.utf8.count
    guard bytes <= maximumBytes else { throw RenderError.textTooLong(bytes: bytes, limit: maximumBytes) }
    let paragraphs = Self.paragraphCount(source)
    guard paragraphs <= maximumParagraphs else {
      throw RenderError.tooManyParagraphs(count: paragraphs, limit: maximumParagraphs)
    }
  }

  /// Pango's paragraphs: one, plus one per \n, \r (\r\n counts once) or U+2029 (E2 80 A9).
  static func paragraphCount(_ source: String) -> Int {
    // Over the contiguous UTF-8 of a native string: ~5 instructions a byte instead of ~60 through
    // the UTF-8 view's iterator (6 000 per benchmark tile, whose text is checked on every render).
    if let count = source.utf8.withContiguousStorageIfAvailable({ paragraphCount(utf8: $0) }) { return count }
    return paragraphCount(utf8: source.utf8)
  }

  private static func paragraphCount(utf8: some Sequence<UInt8>) -> Int {
    var count = 1
    var previous: UInt8 = 0
    var beforePrevious: UInt8 = 0
    for byte in utf8 {
      if byte == 0x0d || byte == 0x0a && previous != 0x0d || byte == 0xa9 && previous == 0x80 && beforePrevious == 0xe2
      {
        count += 1
      }
      beforePrevious = previous
      previous = byte
    }
    return count
  }
}
