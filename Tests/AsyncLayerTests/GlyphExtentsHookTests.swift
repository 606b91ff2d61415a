import CCairo
import Synchronization
import Testing

@testable import AsyncLayer

/// The C hook behind Pango's `get_glyph_extents` (`Sources/CCairo/glyph_extents.h`) must answer
/// exactly what Pango's own function answers, for every glyph of every font, however the calls of
/// several fonts interleave (its thread memo switches fonts) and however large a font's table grows.
@Suite("Glyph extents hook")
struct GlyphExtentsHookTests {
  /// A glyph's extents as Pango's API returns them.
  struct Extents: Equatable, CustomStringConvertible {
    var ink: PangoRectangle
    var logical: PangoRectangle

    static func == (a: Extents, b: Extents) -> Bool {
      func same(_ x: PangoRectangle, _ y: PangoRectangle) -> Bool {
        x.x == y.x && x.y == y.y && x.width == y.width && x.height == y.height
      }
      return same(a.ink, b.ink) && same(a.logical, b.logical)
    }

    var description: String {
      "ink \(ink.x),\(ink.y) \(ink.width)×\(ink.height), logical \(logical.x),\(logical.y) \(logical.width)×\(logical.height)"
    }
  }

  /// Loads `description` at `scale` from this thread's font map (a new reference).
  static func font(_ description: String, scale: Double) -> UnsafeMutablePointer<PangoFont>? {
    let state = PangoThreadState.current
    let context = state.context(scale: scale)
    let font = pango_font_description_from_string(description)
    defer { pango_font_description_free(font) }
    return pango_font_map_load_font(state.fontMap, context, font)
  }

  /// The font's glyphs for the characters in `ranges` (only glyphs the font has: asking cairo for
  /// a glyph index past the face's glyph count would put the process-wide scaled font in an error
  /// state).
  static func glyphs(of font: UnsafeMutablePointer<PangoFont>, in ranges: [ClosedRange<UInt32>]) -> [PangoGlyph] {
    guard let hb = pango_font_get_hb_font(font) else { return [] }
    var glyphs: [PangoGlyph] = []
    for range in ranges {
      for codepoint in range {
        var glyph: hb_codepoint_t = 0
        if hb_font_get_nominal_glyph(hb, codepoint, &glyph) != 0 { glyphs.append(glyph) }
      }
    }
    return glyphs
  }

  @Test("every glyph's extents equal Pango's own, across interleaved fonts and table growth")
  func extentsEqualPangosOwn() throws {
    let found = Mutex<(checked: Int, mismatches: [String])>((0, []))
    // A thread of its own: a fresh memo and font map, released when it exits.
    ConcurrentTextTests.onThreads(1) { _ in
      let specs: [(String, Double)] = [
        ("Sans 14", 2), ("Serif Italic 9", 1), ("Noto Sans CJK SC 12", 1.5), ("Monospace Bold 20", 3),
      ]
      let fonts = specs.compactMap { Self.font($0.0, scale: $0.1) }
      defer { for font in fonts { g_object_unref(UnsafeMutableRawPointer(font)) } }
      guard fonts.count == specs.count else {
        found.withLock { $0.mismatches.append("a font did not load") }
        return
      }
      // Latin, Greek, Cyrillic and 600 CJK ideographs: hundreds of glyphs per font, so each
      // table grows from 64 entries several times.
      let ranges: [ClosedRange<UInt32>] = [0x20...0x7E, 0xA0...0x17F, 0x391...0x3C9, 0x410...0x44F, 0x4E00...0x5057]
      let perFont = fonts.map { Self.glyphs(of: $0, in: ranges) }
      var checked = 0
      var mismatches: [String] = []
      // Twice: the first pass fills the tables, the second reads them back. Fonts interleave
      // glyph by glyph, so the thread's memo changes font on every call.
      for pass in 0..<2 {
        for index in 0..<(perFont.map(\.count).max() ?? 0) {
          for (fontIndex, font) in fonts.enumerated() where index < perFont[fontIndex].count {
            let glyph = perFont[fontIndex][index]
            var hooked = Extents(ink: PangoRectangle(), logical: PangoRectangle())
            pango_font_get_glyph_extents(font, glyph, &hooked.ink, &hooked.logical)
            var own = Extents(ink: PangoRectangle(), logical: PangoRectangle())
            PangoFontHooks.uncachedGlyphExtents(font, glyph, &own.ink, &own.logical)
            // One rectangle asked for at a time gives the same answer.
            var inkOnly = PangoRectangle()
            pango_font_get_glyph_extents(font, glyph, &inkOnly, nil)
            var logicalOnly = PangoRectangle()
            pango_font_get_glyph_extents(font, glyph, nil, &logicalOnly)
            checked += 1
            if hooked != own || Extents(ink: inkOnly, logical: logicalOnly) != own, mismatches.count < 5 {
              mismatches.append("pass \(pass), \(specs[fontIndex].0), glyph \(glyph): hook \(hooked), Pango \(own)")
            }
          }
        }
      }
      found.withLock { $0 = (checked, mismatches) }
    }
    let result = found.withLock { $0 }
    #expect(result.mismatches.isEmpty, "\(result.mismatches)")
    #expect(result.checked > 2 * 4 * 300, "glyphs checked: \(result.checked)")
  }

  @Test("the same glyph of different sizes of a font keeps each size's extents")
  func sizesOfOneFaceKeepTheirOwnExtents() throws {
    let found = Mutex<[String]>([])
    ConcurrentTextTests.onThreads(1) { _ in
      let fonts = [9.0, 14, 36].compactMap { Self.font("Sans \($0)", scale: 2) }
      defer { for font in fonts { g_object_unref(UnsafeMutableRawPointer(font)) } }
      guard fonts.count == 3, let glyph = Self.glyphs(of: fonts[0], in: [0x57...0x57]).first else {
        found.withLock { $0.append("fonts or glyph missing") }
        return
      }
      var widths: [Int32] = []
      for _ in 0..<3 {
        for font in fonts {
          var logical = PangoRectangle()
          pango_font_get_glyph_extents(font, glyph, nil, &logical)
          widths.append(logical.width)
        }
      }
      // "W" at 9, 14 and 36 pt: three different widths, the same on each round.
      if Set(widths).count != 3 || Array(widths[0..<3]) != Array(widths[3..<6])
        || Array(widths[0..<3]) != Array(widths[6..<9])
      {
        found.withLock { $0.append("widths \(widths)") }
      }
    }
    let problems = found.withLock { $0 }
    #expect(problems.isEmpty, "\(problems)")
  }
}
