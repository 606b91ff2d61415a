import CCairo
import Synchronization
import Testing

@testable import AsyncLayer

/// The two shortcuts in front of Pango's font look-ups on a warm thread (issue 28, goal 3): the
/// thread's fontset cache (`FontsetCache`), which hands Pango a fontset it built before instead of
/// a rebuilt one, and the `get_coverage` hook (`PangoFontHooks`), which keeps each font's coverage
/// on the font. Both must answer what Pango answers; the mixed-workload tiles drawn with them are
/// checked against fresh renders in `ConcurrentTextTests`.
@Suite("Fontset cache and coverage hook")
struct FontsetCacheTests {
  @Test("a fontset Pango evicted from its own cache is found again")
  func evictedFontsetIsFoundAgain() {
    let outcome = Mutex<[String]>([])
    // A thread of its own: a fresh font map, whose fontsets Pango has not seen.
    ConcurrentTextTests.onThreads(1) { _ in
      let state = PangoThreadState.current
      let context = state.context(scale: 2)
      let language = pango_language_from_string("en")
      func load(_ text: String, through context: OpaquePointer) -> UnsafeMutablePointer<PangoFontset>? {
        let description = pango_font_description_from_string(text)
        defer { pango_font_description_free(description) }
        return pango_font_map_load_fontset(state.fontMap, context, description, language)
      }
      guard let first = load("Sans 14", through: context) else {
        outcome.withLock { $0.append("Sans 14 did not load") }
        return
      }
      defer { g_object_unref(first) }
      // 300 other sizes: more than Pango's 256 fontsets per font map, so it evicts the first.
      for size in 0..<300 {
        if let other = load("Sans \(20 + Double(size) / 8)", through: context) { g_object_unref(other) }
      }
      let again = load("Sans 14", through: context)
      defer { if let again { g_object_unref(again) } }
      if again != first { outcome.withLock { $0.append("Sans 14 came back as another fontset") } }
    }
    let failures = outcome.withLock { $0 }
    #expect(failures.isEmpty, "\(failures)")
  }

  @Test("a font's coverage is one object, and says what the font's character set says")
  func coverageMatchesTheCharacterSet() {
    let outcome = Mutex<(checked: Int, mismatches: [String])>((0, []))
    ConcurrentTextTests.onThreads(1) { _ in
      let specs: [(String, Double)] = [
        ("Sans 14", 2), ("Serif Italic 9", 1), ("Noto Sans CJK SC 12", 1.5), ("Lohit Devanagari 20", 3),
      ]
      let ranges: [ClosedRange<UInt32>] = [
        0x00...0x17F, 0x391...0x3C9, 0x410...0x44F, 0x900...0x97F, 0xE00...0xE7F, 0x3000...0x30FF, 0x4E00...0x4FFF,
        0x1F600...0x1F64F,
      ]
      var checked = 0
      var mismatches: [String] = []
      for (spec, scale) in specs {
        guard let font = GlyphExtentsHookTests.font(spec, scale: scale) else {
          mismatches.append("\(spec) did not load")
          continue
        }
        defer { g_object_unref(font) }
        var charset: OpaquePointer?
        let pattern = pango_fc_font_get_pattern(UnsafeMutableRawPointer(font).assumingMemoryBound(to: PangoFcFont.self))
        guard FcPatternGetCharSet(pattern, FC_CHARSET, 0, &charset) == FcResultMatch else {
          mismatches.append("\(spec) has no character set")
          continue
        }
        let coverage = pango_font_get_coverage(font, pango_language_from_string("en"))
        let second = pango_font_get_coverage(font, pango_language_from_string("hi"))
        defer {
          if let coverage { pango_coverage_unref(coverage) }
          if let second { pango_coverage_unref(second) }
        }
        if coverage == nil || coverage != second { mismatches.append("\(spec): a second coverage object") }
        for range in ranges {
          for codepoint in range {
            let expected = FcCharSetHasChar(charset, codepoint) != 0
            let covered = pango_coverage_get(coverage, Int32(codepoint)) != PANGO_COVERAGE_NONE
            let has = pango_font_has_char(font, codepoint) != 0
            checked += 1
            if covered != expected || has != expected {
              mismatches.append("\(spec) U+\(String(codepoint, radix: 16)): \(covered) \(has), expected \(expected)")
            }
          }
        }
      }
      outcome.withLock { $0 = (checked, mismatches) }
    }
    let (checked, mismatches) = outcome.withLock { $0 }
    #expect(checked > 6_000)
    #expect(mismatches.isEmpty, "\(mismatches.count) differ, first: \(mismatches.prefix(5))")
  }
}
