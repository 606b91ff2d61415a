extension TextLimits {
  /// The longest run of text without a break opportunity a ``TextTile`` lays out while lines wrap
  /// between characters, 16 KiB by default (see ``maximumUnbrokenBytes``).
  public static let defaultMaximumUnbrokenBytes = 16 << 10

  /// Refuses text whose lines would wrap between characters (``WrapMode/wordChar``, and
  /// ``WrapMode/word`` over Lao, Khmer or Myanmar, which Pango cannot split into words) with a run
  /// longer than ``maximumUnbrokenBytes`` between spaces.
  ///
  /// Pango re-measures the rest of such a run for every line it breaks there: the time grows with
  /// the square of the run. Measured on this project's 2-core machine (`bench/cancel-latency
  /// --unbroken-scan`, bench/results/unbroken-runs.txt): Khmer without spaces took 0.11 s for
  /// 16 KiB, 0.9 s for 48 KiB, 3.2 s for 64 KiB and 52 s for 250 KB; Latin letters in `.wordChar`
  /// 0.8 s for 16 KiB and 15.7 s for 64 KiB. Pango's layout is one call that cannot be cancelled,
  /// so the limit is what bounds a tile's time.
  func checkUnbrokenRuns(_ source: String, wrap: WrapMode) throws {
    let limit = maximumUnbrokenBytes
    guard source.utf8.count > limit else { return }
    let longest = Self.longestUnbrokenRun(source)
    guard longest > limit else { return }
    let wrapsBetweenCharacters: Bool
    switch wrap {
    case .wordChar: wrapsBetweenCharacters = true
    case .char: wrapsBetweenCharacters = false  // breaks anywhere, in linear time
    case .word:
      wrapsBetweenCharacters = source.withCString { TextLayout.hasScriptWithoutWordBreaks($0) }
    }
    guard wrapsBetweenCharacters else { return }
    throw RenderError.invalidValue(
      name: "text", value: "a run of \(longest) bytes without a space",
      expected:
        "at most \(limit) bytes between spaces (or zero-width spaces) when lines wrap between characters "
        + "(TextLimits.maximumUnbrokenBytes): Pango's time grows with the square of such a run; add break "
        + "opportunities, use WrapMode.char, or raise the limit")
  }

  /// The most UTF-8 bytes between two break opportunities: ASCII whitespace, U+200B (zero-width
  /// space), U+2028/U+2029, U+3000, or a CJK character (U+3000–U+9FFF, which break anywhere).
  static func longestUnbrokenRun(_ source: String) -> Int {
    var longest = 0
    var run = 0
    for scalar in source.unicodeScalars {
      switch scalar.value {
      case 0x09...0x0d, 0x20, 0x200b, 0x2028, 0x2029, 0x3000...0x9fff:
        run = 0
      default:
        run += UTF8.width(scalar)
        longest = max(longest, run)
      }
    }
    return longest
  }
}
