internal import CCairo

extension FontCoverage {
  /// Whether the font `family` names has a glyph for every character of `text`, so that the text
  /// is drawn in it without falling back to another font: what a dataset generator asks before
  /// drawing a line in a font picked at random. False when `family` is not installed (fontconfig
  /// would substitute another family).
  ///
  /// The check is the font's character map (`pango_font_has_char` on the first font the family
  /// resolves to), character by character: fast enough to ask for every line and font of a pool.
  /// Control and format characters (joiners, direction marks) and variation selectors are passed
  /// over: they draw nothing. Shaping is not checked: a font with every letter of a script but no
  /// shaping rules for it passes.
  ///
  /// ```swift
  /// FontCoverage.family("DejaVu Sans", covers: "Hello")   // true
  /// FontCoverage.family("DejaVu Sans", covers: "漢字")     // false: no CJK glyphs
  /// ```
  @available(*, noasync, message: "uses this thread's Pango state; call it from synchronous code")
  public static func family(_ family: String, covers text: String) -> Bool {
    let state = PangoThreadState.current
    let context = state.context(scale: 1)
    guard let description = pango_font_description_new() else { return false }
    defer { pango_font_description_free(description) }
    pango_font_description_set_family(description, family)
    pango_font_description_set_size(description, 12 * PANGO_SCALE)
    guard let font = pango_context_load_font(context, description) else { return false }
    defer { g_object_unref(font) }
    // fontconfig substitutes a family it does not know: such a font does not count.
    guard let loaded = pango_font_describe(font) else { return false }
    let loadedFamily = pango_font_description_get_family(loaded).map { String(cString: $0) } ?? ""
    pango_font_description_free(loaded)
    guard loadedFamily.lowercased() == family.lowercased() else { return false }
    for scalar in text.unicodeScalars {
      switch scalar.properties.generalCategory {
      case .control, .format, .lineSeparator, .paragraphSeparator: continue
      default: break
      }
      if (0xFE00...0xFE0F).contains(scalar.value) || (0xE0100...0xE01EF).contains(scalar.value) { continue }
      if pango_font_has_char(font, scalar.value) == 0 { return false }
    }
    return true
  }
}
