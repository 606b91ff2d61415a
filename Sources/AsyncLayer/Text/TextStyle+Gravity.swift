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
/// style.orientation = .vertical          // 東京 and emoji upright, "Tokyo" turned a quarter turn clockwise
/// let tile = TextTile(.plain("東京 Tokyo"), style: style, width: 300)
/// let image = try tile.render().image    // taller than wide
/// ```
///
/// A ``TextLayout`` with a vertical style is in its own frame (lines across, glyphs turned);
/// drawing it yourself, turn the context a quarter turn clockwise first.
public enum TextOrientation: String, Sendable, Hashable, CaseIterable {
  /// Lines run left to right (or right to left), stacked downwards.
  case horizontal
  /// Columns run downwards, stacked right to left: CJK and emoji upright, other scripts (Latin,
  /// Arabic, Devanagari) turned a quarter turn clockwise (Pango's natural gravity hint; emoji get
  /// the strong hint, see `TextLayout.insertUprightEmoji`).
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

// Emoji under `.vertical`: Pango 1.50 gives an emoji the script of the text around it, so next to
// Latin it took Latin's natural gravity and was drawn turned a quarter turn, where a reader expects
// it upright like CJK. A strong gravity hint over each emoji sequence keeps it upright (the base
// gravity, as `.verticalUpright` does for every script); the runs around it keep theirs.
extension TextLayout {
  /// Adds a strong gravity hint over each emoji sequence of `text` (UTF-8, NUL-terminated) to
  /// `attributes`. An emoji is what the font coverage counts as one (script "Zsye", see
  /// `FontCoverage.script(of:)`): a character with emoji presentation, a skin-tone modifier, a
  /// regional indicator (flags); a variation selector 16 or a keycap mark takes the character before
  /// it along, and a zero-width joiner or a tag character continues a sequence (a ZWJ elsewhere, as
  /// Devanagari and Arabic use it, is left alone: a hint there would cut their shaping).
  static func insertUprightEmoji(_ text: UnsafePointer<CChar>, into attributes: OpaquePointer) {
    for range in emojiRanges(text) {
      guard let attribute = pango_attr_gravity_hint_new(PANGO_GRAVITY_HINT_STRONG) else { continue }
      attribute.pointee.start_index = UInt32(range.lowerBound)
      attribute.pointee.end_index = UInt32(range.upperBound)
      pango_attr_list_insert(attributes, attribute)
    }
  }

  /// The byte ranges of the emoji sequences of `text` (see ``insertUprightEmoji(_:into:)``).
  static func emojiRanges(_ text: UnsafePointer<CChar>) -> [Range<Int>] {
    let bytes = UnsafeBufferPointer(
      start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: strlen(text))
    var ranges: [Range<Int>] = []
    var previousStart = 0
    var joinerAt: Int? = nil
    // A joiner after a sequence, kept one character longer: 👩‍❤️‍👨 joins U+2764, which only its
    // U+FE0F makes an emoji.
    var joinerBeforePrevious: Int? = nil
    var offset = 0
    var iterator = bytes.makeIterator()
    var parser = Unicode.UTF8.ForwardParser()
    while true {
      let scalar: Unicode.Scalar
      let length: Int
      switch parser.parseScalar(from: &iterator) {
      case .valid(let encoded):
        scalar = Unicode.UTF8.decode(encoded)
        length = encoded.count
      case .error(let count):
        scalar = "\u{FFFD}"
        length = count
      case .emptyInput:
        return ranges
      }
      let joinerBefore = joinerAt
      joinerAt = nil
      defer {
        previousStart = offset
        offset += length
        joinerBeforePrevious = joinerBefore
      }
      // Letters of every script below U+2000, CJK, kana and Hangul (U+3000-U+FDFF): no emoji, and
      // no property lookup (a keycap's digit is taken along by its mark). Emoji with emoji
      // presentation lie in U+231A-U+2BFF and from U+1F000 on.
      let value = scalar.value
      if value < 0x2000 || (0x3000..<0xFE00).contains(value) { continue }
      let continuesRun = ranges.last?.upperBound == offset
      if value == 0x200D {
        joinerAt = continuesRun ? offset : nil
        continue
      }
      let properties = scalar.properties
      if properties.isEmojiPresentation || properties.isEmojiModifier || (0x1F1E6...0x1F1FF).contains(value) {
        if continuesRun {
          ranges[ranges.count - 1] = ranges[ranges.count - 1].lowerBound..<(offset + length)
        } else if let joiner = joinerBefore, ranges.last?.upperBound == joiner {
          ranges[ranges.count - 1] = ranges[ranges.count - 1].lowerBound..<(offset + length)
        } else {
          ranges.append(offset..<(offset + length))
        }
      } else if value == 0xFE0F || value == 0x20E3 || (0xE0020...0xE007F).contains(value) {
        if continuesRun {
          ranges[ranges.count - 1] = ranges[ranges.count - 1].lowerBound..<(offset + length)
        } else if let joiner = joinerBeforePrevious, ranges.last?.upperBound == joiner {
          ranges[ranges.count - 1] = ranges[ranges.count - 1].lowerBound..<(offset + length)
        } else if offset > 0 {
          // The character it turns into an emoji: ❤ U+2764 before U+FE0F, a digit before a keycap.
          let start = ranges.last.map { max($0.upperBound, previousStart) } ?? previousStart
          ranges.append(start..<(offset + length))
        }
      }
    }
  }
}
