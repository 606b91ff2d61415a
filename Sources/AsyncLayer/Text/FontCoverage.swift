internal import CCairo
import OrderedCollections

/// Which installed font draws each script of a text, and which characters no font covers — what
/// to look at when a tile shows boxes (`RenderedText/unknownGlyphCount` > 0).
///
/// The answer is Pango's own: the text is laid out exactly as a tile lays it out (same style,
/// same fallback), and each run's font and each unknown glyph are read back from the layout.
///
/// ```swift
/// let coverage = try FontCoverage(.plain("Hello हिन्दी ภาษาไทย"), style: TextStyle(font: "Sans 14"))
/// for font in coverage.fonts { print(font.script.name, font.fontFamily) }   // Latin DejaVu Sans, …
/// for character in coverage.missing { print(character.codePoint, character.script.name) }
/// coverage.isComplete   // true when every character has a font
/// ```
public struct FontCoverage: Sendable, Hashable {
  /// A Unicode script, by its ISO 15924 code and English name.
  public struct Script: Sendable, Hashable {
    /// The four-letter ISO 15924 code ("Deva", "Thai", "Zyyy" for common punctuation).
    public let code: String
    /// The English name ("Devanagari"), or the code for a script without a name here.
    public let name: String
  }

  /// One font drawing (part of) one script of the text.
  public struct ScriptFont: Sendable, Hashable {
    /// The script of the characters (spaces and punctuation count as "Common").
    public let script: Script
    /// The font's family, as fontconfig names it ("Lohit Devanagari").
    public let fontFamily: String
    /// The font file, when the font comes from fontconfig.
    public let fontFile: String?
    /// Characters of this script drawn with this font.
    public let characterCount: Int
    /// True when the font is not the one the style's family resolves to first: Pango fell back to
    /// it because the first font lacks these characters.
    public let isFallback: Bool
  }

  /// A character that no installed font covers (drawn as a box).
  public struct MissingCharacter: Sendable, Hashable {
    /// The character.
    public let scalar: Unicode.Scalar
    /// Its script (a font for that script is what to install).
    public let script: Script
    /// How often it occurs in the text.
    public let count: Int

    /// The code point as written in the Unicode charts: "U+0E20".
    public var codePoint: String {
      let hex = String(scalar.value, radix: 16, uppercase: true)
      return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
  }

  /// The family the style's font list resolves to first ("DejaVu Sans" for "Sans").
  public let primaryFontFamily: String
  /// The fonts used, one entry per script and font, in order of first use in the text.
  public let fonts: [ScriptFont]
  /// The characters without a font, one entry per distinct character, in order of first use.
  public let missing: [MissingCharacter]

  /// True when every character of the text has a font.
  public var isComplete: Bool { missing.isEmpty }

  /// Characters drawn as boxes, repeats included (equals `TextLayout/unknownGlyphCount`).
  public var missingCharacterCount: Int { missing.reduce(0) { $0 + $1.count } }

  /// Lays `content` out in `style` (unwrapped) and reads back its fonts. Throws what
  /// ``TextLayout`` throws for bad markup or text over `limits`.
  public init(_ content: TextContent, style: TextStyle = TextStyle(), limits: TextLimits = .default) throws {
    let layout = try TextLayout(content, style: style, width: nil, limits: limits)
    let primary = Self.primaryFamily(of: layout)
    primaryFontFamily = primary
    // Counts in order of first appearance.
    var fonts: OrderedDictionary<FontKey, Int> = [:]
    var missing: OrderedDictionary<Unicode.Scalar, Int> = [:]
    guard let text = pango_layout_get_text(layout.raw) else {
      self.fonts = []
      self.missing = []
      return
    }
    var lines = pango_layout_get_lines_readonly(layout.raw)
    while let line = lines {
      var runs = line.pointee.data?.assumingMemoryBound(to: PangoLayoutLine.self).pointee.runs
      while let node = runs, let run = node.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self).pointee {
        runs = node.pointee.next
        guard let item = run.item?.pointee, let glyphs = run.glyphs?.pointee else { continue }
        // Where the run's unknown glyphs are, as byte offsets into the layout's text.
        var unknownOffsets = Set<Int>()
        for index in 0..<Int(glyphs.num_glyphs) {
          let glyph = glyphs.glyphs[index].glyph
          guard glyph & PANGO_GLYPH_UNKNOWN_FLAG != 0, glyph != PANGO_GLYPH_EMPTY else { continue }
          unknownOffsets.insert(Int(item.offset) + Int(glyphs.log_clusters[index]))
          // An unknown glyph carries its character (PANGO_GET_UNKNOWN_GLYPH): counted per glyph,
          // as Pango counts its boxes.
          if let scalar = Unicode.Scalar(glyph & ~PANGO_GLYPH_UNKNOWN_FLAG) { missing[scalar, default: 0] += 1 }
        }
        let bytes = UnsafeRawBufferPointer(start: text + Int(item.offset), count: Int(item.length))
        var offset = Int(item.offset)
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
          defer { offset += scalar.utf8.count }
          let script = Self.script(of: scalar)
          if !unknownOffsets.contains(offset), let font = item.analysis.font {
            fonts[FontKey(script: script, family: Self.family(of: font), file: Self.file(of: font)), default: 0] += 1
          }
        }
      }
      lines = line.pointee.next
    }
    self.fonts = fonts.map { key, count in
      ScriptFont(
        script: key.script, fontFamily: key.family, fontFile: key.file, characterCount: count,
        isFallback: key.family != primary)
    }
    self.missing = missing.map { scalar, count in
      MissingCharacter(scalar: scalar, script: Self.script(of: scalar), count: count)
    }
  }

  init(primaryFontFamily: String, fonts: [ScriptFont], missing: [MissingCharacter]) {
    self.primaryFontFamily = primaryFontFamily
    self.fonts = fonts
    self.missing = missing
  }

  private struct FontKey: Hashable {
    var script: Script
    var family: String
    var file: String?
  }

  /// The family of the first font the layout's font description resolves to.
  private static func primaryFamily(of layout: TextLayout) -> String {
    guard let context = pango_layout_get_context(layout.raw),
      let font = pango_context_load_font(context, pango_layout_get_font_description(layout.raw))
    else { return layout.style.fontFamily }
    defer { g_object_unref(font) }
    return family(of: font)
  }

  private static func family(of font: UnsafeMutablePointer<PangoFont>) -> String {
    guard let description = pango_font_describe(font) else { return "?" }
    defer { pango_font_description_free(description) }
    return pango_font_description_get_family(description).map { String(cString: $0) } ?? "?"
  }

  /// The file of a fontconfig font (every font of the library's font map is one).
  private static func file(of font: UnsafeMutablePointer<PangoFont>) -> String? {
    let instance = UnsafeMutableRawPointer(font).assumingMemoryBound(to: GTypeInstance.self)
    // By name: pango_fc_font_get_type lives in libpangoft2, which the package does not link.
    let fcFont = g_type_from_name("PangoFcFont")
    guard fcFont != 0, g_type_check_instance_is_a(instance, fcFont) != 0,
      let pattern = UnsafeMutableRawPointer(font).assumingMemoryBound(to: PangoFcFont.self).pointee.font_pattern
    else { return nil }
    var file: UnsafeMutablePointer<FcChar8>?
    guard FcPatternGetString(pattern, FC_FILE, 0, &file) == FcResultMatch, let file else { return nil }
    return String(cString: UnsafeRawPointer(file).assumingMemoryBound(to: CChar.self))
  }

  /// The character's script; characters common to all scripts are split into emoji (ISO 15924
  /// "Zsye"), symbols ("Zsym") and the rest (spaces, punctuation, digits: "Zyyy").
  private static func script(of scalar: Unicode.Scalar) -> Script {
    let script = g_unichar_get_script(scalar.value)
    if script == G_UNICODE_SCRIPT_COMMON || script == G_UNICODE_SCRIPT_INHERITED {
      let properties = scalar.properties
      if properties.isEmojiPresentation || properties.isEmojiModifier || (0x1F1E6...0x1F1FF).contains(scalar.value)
        || scalar.value == 0xFE0F || scalar.value == 0x200D
      {
        return Script(code: "Zsye", name: "Emoji")
      }
      switch properties.generalCategory {
      case .mathSymbol, .currencySymbol, .otherSymbol, .modifierSymbol:
        return Script(code: "Zsym", name: "Symbols")
      default: break
      }
    }
    let tag = g_unicode_script_to_iso15924(script)
    let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: tag >> $0) }
    let code = bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) ? String(decoding: bytes, as: UTF8.self) : "Zzzz"
    return Script(code: code, name: Script.names[code] ?? code)
  }
}
