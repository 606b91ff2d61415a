/// A sample sentence in one script, to check that a machine's fonts cover the scripts users write
/// (`layerbench fonts --scripts`, the sample tiles in `samples/`, the coverage tests).
///
/// The library draws nothing with these itself: ``all`` is the project's declared script coverage,
/// public so that an application can check its own machine's fonts the way the project checks its own.
///
/// ```swift
/// for sample in ScriptSample.all {
///   let coverage = try FontCoverage(.plain(sample.text), style: sample.style)
///   print(sample.script, coverage.isComplete ? "ok" : "\(coverage.missing.count) characters without a font")
/// }
/// ```
public struct ScriptSample: Sendable, Hashable {
  /// The script's English name ("Devanagari", "CJK (Japanese)").
  public let script: String
  /// A file-name-safe name ("devanagari", "cjk-ja").
  public let name: String
  /// The BCP 47 language the sentence is in: it steers font choice (Chinese against Japanese
  /// forms of the same character) and shaping.
  public let language: String
  /// The sentence.
  public let text: String
  /// For scripts written without spaces between words (Thai, Lao, Khmer, Myanmar): the words of
  /// ``text`` in order; ``text`` is them joined by ``wordSeparator``. Empty for other scripts.
  public let words: [String]
  /// What stands between ``words`` in ``text``: nothing (Thai, which Pango segments with a
  /// dictionary) or U+200B ZERO WIDTH SPACE, the invisible word boundary Lao, Khmer and Myanmar
  /// writers type because Pango has no dictionary for them.
  public let wordSeparator: String

  /// A sample written with spaces, or with none at all (CJK).
  public init(script: String, name: String, language: String, text: String) {
    self.script = script
    self.name = name
    self.language = language
    self.text = text
    words = []
    wordSeparator = ""
  }

  /// A sample of a script written without spaces between words.
  public init(script: String, name: String, language: String, words: [String], separator: String) {
    self.script = script
    self.name = name
    self.language = language
    self.text = words.joined(separator: separator)
    self.words = words
    wordSeparator = separator
  }

  /// A 14-point sans style in the sample's language.
  public var style: TextStyle { TextStyle(fontFamily: "Sans", fontSize: 14, language: language) }

  /// The zero-width space (U+200B): a line break opportunity that draws nothing.
  public static let zeroWidthSpace = "\u{200B}"
}
