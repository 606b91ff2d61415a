public import AsyncLayer
import AsyncLayerTestSupport
public import Testing

/// Every script the README promises renders with the fonts `make deps` installs: no boxes, shaping
/// applied, lines broken between words. Pixels are measured as ink extents, never glyph shapes.
@Suite("Script coverage")
struct ScriptCoverageTests {
  // MARK: No boxes

  @Test("each script's sample sentence renders with 0 unknown glyphs", arguments: ScriptSample.all)
  func sampleHasEveryGlyph(sample: ScriptSample) throws {
    let result = try TextTile(
      .plain(sample.text), style: sample.style, width: 375, scale: 1, background: .white
    ).render()
    #expect(result.unknownGlyphCount == 0, "\(sample.script): \(result.unknownGlyphCount) boxes")
    #expect(result.image.inkPixelCount(background: .white) > 100, "\(sample.script): no ink")
    let coverage = try FontCoverage(.plain(sample.text), style: sample.style)
    #expect(coverage.isComplete, "\(sample.script): no font for \(coverage.missing.map(\.codePoint))")
  }

  @Test("FontCoverage names each missing character, its script and count, as many as Pango's boxes")
  func missingCharactersAreNamed() throws {
    // U+0378 is unassigned: no font has it.
    // U+0301, a combining accent, after the second one: the font has it, so it is drawn, not boxed.
    let text = "a\u{378}b\u{378}\u{301} हिन्दी"
    let coverage = try FontCoverage(.plain(text))
    let layout = try TextLayout(.plain(text), style: TextStyle(), width: nil)
    #expect(coverage.missing.map(\.codePoint) == ["U+0378"], "\(coverage.missing)")
    #expect(coverage.missing.first?.script.code == "Zzzz")
    #expect(coverage.missing.first?.count == 2)
    #expect(coverage.missingCharacterCount == layout.unknownGlyphCount)
    #expect(!coverage.isComplete)
  }

  @Test("FontCoverage tells the style's own font from the fallback a script needs")
  func fallbackFontsAreReported() throws {
    let coverage = try FontCoverage(.plain("Hello हिन्दी"), style: TextStyle(font: "Sans 14"))
    let latin = try #require(coverage.fonts.first { $0.script.code == "Latn" })
    let devanagari = try #require(coverage.fonts.first { $0.script.code == "Deva" })
    #expect(latin.fontFamily == coverage.primaryFontFamily && !latin.isFallback)
    #expect(devanagari.fontFamily != coverage.primaryFontFamily && devanagari.isFallback)
    #expect(devanagari.script.name == "Devanagari" && devanagari.characterCount == 6)
    #expect(devanagari.fontFile?.isEmpty == false)
    #expect(coverage.isComplete)
  }

  // MARK: Shaping

  /// The ink bounds in pixels of `text` on one unwrapped 24-point line at scale 2.
  private func ink(_ text: String, language: String) throws -> (minX: Int, minY: Int, maxX: Int, maxY: Int) {
    let style = TextStyle(fontFamily: "Sans", fontSize: 24, language: language)
    let result = try TextTile(.plain(text), style: style, width: 800, scale: 2, background: .white).render()
    #expect(result.unknownGlyphCount == 0 && result.lineCount == 1, "\(text)")
    return try #require(result.image.inkBounds(background: .white), "no ink for \(text)")
  }

  /// The ink's width in pixels.
  private func inkWidth(_ text: String, language: String) throws -> Int {
    let bounds = try ink(text, language: language)
    return bounds.maxX - bounds.minX + 1
  }

  /// The ink's top row in pixels (smaller is higher).
  private func inkTop(_ text: String, language: String) throws -> Int { try ink(text, language: language).minY }

  @Test(
    "a conjunct is narrower than its parts side by side (consonant + virama, then consonant)",
    arguments: [
      ("क्ष", "क्", "ष", "hi"),  // Devanagari kṣa
      ("ক্ষ", "ক্", "ষ", "bn"),  // Bengali kṣa
      ("ക്ക", "ക്", "ക", "ml"),  // Malayalam kka
      ("ಕ್ಕ", "ಕ್", "ಕ", "kn"),  // Kannada kka: the second ka becomes a subscript form
    ])
  func conjunctIsNarrower(conjunct: String, first: String, second: String, language: String) throws {
    let joined = try inkWidth(conjunct, language: language)
    let parts = try inkWidth(first, language: language) + inkWidth(second, language: language)
    #expect(Double(joined) < 0.85 * Double(parts), "\(conjunct): \(joined) px, parts \(parts) px")
    // The control: U+200C ZERO WIDTH NON-JOINER after the virama asks for the unjoined form, the
    // glyphs in a row that unshaped text would show; it is as wide as the parts.
    let unjoined = try inkWidth(first + "\u{200C}" + second, language: language)
    #expect(Double(unjoined) >= 0.85 * Double(parts), "\(conjunct) with ZWNJ: \(unjoined) px, parts \(parts) px")
  }

  @Test("Thai marks stack: a tone mark over an upper vowel rises above it and takes no width")
  func thaiMarksStack() throws {
    let vowel = try inkTop("ปี", language: "th")  // po pla + sara ii
    let stacked = try inkTop("ปี่", language: "th")  // + mai ek
    #expect(stacked < vowel - 4, "tone mark top \(stacked) px, vowel top \(vowel) px")
    let base = try inkWidth("ปี", language: "th")
    let withMark = try inkWidth("ปี่", language: "th")
    #expect(abs(withMark - base) <= base / 10, "\(withMark) px with the tone mark, \(base) px without")
  }

  @Test("Arabic letters join: a word is narrower than its letters kept apart by ZWNJ")
  func arabicJoins() throws {
    // U+200C ZERO WIDTH NON-JOINER keeps each letter in its isolated form.
    let joined = try inkWidth("سلام", language: "ar")
    let isolated = try inkWidth("س\u{200C}ل\u{200C}ا\u{200C}م", language: "ar")
    #expect(Double(joined) < 0.9 * Double(isolated), "joined \(joined) px, isolated \(isolated) px")
  }

  // MARK: Line breaking without spaces

  static let unspacedSamples = ScriptSample.all.filter { !$0.words.isEmpty }

  /// UTF-8 offsets where a word of `sample` starts: the only places a line may start.
  private func wordStarts(_ sample: ScriptSample) -> Set<Int> {
    var starts = Set<Int>()
    var offset = 0
    for word in sample.words {
      starts.insert(offset)
      offset += word.utf8.count + sample.wordSeparator.utf8.count
    }
    return starts
  }

  /// The sample three times over, as a long paragraph with the same word starts.
  private func longSample(_ sample: ScriptSample) -> ScriptSample {
    let words = Array(repeating: sample.words, count: 3).flatMap { $0 }
    return ScriptSample(
      script: sample.script, name: sample.name, language: sample.language, words: words,
      separator: sample.wordSeparator)
  }

  @Test("Thai, Lao, Khmer and Myanmar wrap between words, never inside one", arguments: unspacedSamples)
  func wrapsAtWordBoundaries(sample: ScriptSample) throws {
    #expect(sample.words.count >= 10)
    let long = longSample(sample)
    let width = 120.0
    let layout = try TextLayout(.plain(long.text), style: long.style, width: width)
    #expect(layout.lines.count >= 4, "\(sample.script): \(layout.lines.count) lines")
    let starts = wordStarts(long)
    let lineStarts = layout.lines.map(\.utf8Offset)
    let midWord = lineStarts.filter { !starts.contains($0) }
    #expect(midWord.isEmpty, "\(sample.script): lines start inside a word at UTF-8 offsets \(midWord)")
    for line in layout.lines {
      #expect(line.frame.width <= width + 0.5, "\(sample.script): line \(line.index) is \(line.frame.width) pt")
    }
    #expect(layout.unknownGlyphCount == 0)
  }

  @Test("the word-boundary check catches mid-word breaks (wrapping by character)", arguments: unspacedSamples)
  func characterWrapBreaksInsideWords(sample: ScriptSample) throws {
    let long = longSample(sample)
    var style = long.style
    style.wrap = .char
    let layout = try TextLayout(.plain(long.text), style: style, width: 120)
    let starts = wordStarts(long)
    #expect(layout.lines.contains { !starts.contains($0.utf8Offset) }, "\(sample.script): no mid-word break")
  }

  @Test(
    "Lao, Khmer and Myanmar typed without spaces wrap by grapheme cluster within the width, with the default wrapping",
    arguments: ["lao", "khmer", "myanmar"])
  func unspacedTextWrapsByCluster(name: String) throws {
    let sample = try #require(ScriptSample.all.first { $0.name == name })
    let text = String(repeating: sample.words.joined(), count: 2)
    #expect(!text.unicodeScalars.contains { $0 == " " || $0 == "\u{200B}" })
    let layout = try TextLayout(.plain(text), style: sample.style, width: 120)
    #expect(sample.style.wrap == .word)
    #expect(layout.lines.count >= 3, "\(name): \(layout.lines.count) lines")
    var clusterStarts = Set<Int>()
    var offset = 0
    for character in text {
      clusterStarts.insert(offset)
      offset += character.utf8.count
    }
    for line in layout.lines {
      #expect(clusterStarts.contains(line.utf8Offset), "\(name): line \(line.index) starts inside a cluster")
      #expect(line.frame.width <= 120.5, "\(name): line \(line.index) is \(line.frame.width) pt")
    }
  }

}

extension ScriptSample: CustomTestStringConvertible {
  public var testDescription: String { script }
}
