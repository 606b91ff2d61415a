internal import CCairo

/// Wraps virtual functions of Pango's cairo font class. Two fill process-wide caches under
/// ``FontCacheLock``: `get_metrics` (first computation per font and language) and
/// `get_glyph_extents` (a glyph's first extents per font, which fill cairo's glyph cache).
///
/// The extents hook is C (`Sources/CCairo/glyph_extents.h`): Pango calls it for every glyph of
/// every layout it measures, and a hit costs ~30 instructions there against ~570 for the Swift
/// dictionary behind GObject qdata it replaces. Only its misses come back here, to take the lock.
///
/// A third hook, `get_coverage`, keeps each font's coverage on the font: Pango 1.50 asks for it
/// once per character and font tried while it itemizes (`pango_font_has_char`, ~190 times per
/// mixed tile), and its own function finds the coverage through `g_weak_ref_get` on the font's font
/// map — a read lock on GLib's one process-wide weak-reference lock, a cache line every thread
/// writes twice per call — and a hash look-up by file name: ~1,340 instructions a call.
///
/// `PangoFontClass` is in Pango's public headers; the cairo font type is not, so it is taken from
/// a font Pango loads. The hooks apply to every cairo font of the process (they only add the lock).
enum PangoFontHooks {
  private typealias GetMetrics =
    @convention(c) (
      UnsafeMutablePointer<PangoFont>?, OpaquePointer?
    ) -> UnsafeMutablePointer<PangoFontMetrics>?
  private typealias GetCoverage = @convention(c) (UnsafeMutablePointer<PangoFont>?, OpaquePointer?) -> OpaquePointer?
  /// Pango's own `get_metrics` and `get_coverage`, as bit patterns (C function pointers are not
  /// `Sendable`); its `get_glyph_extents` is kept by the C hook.
  private struct Originals: Sendable {
    var getMetrics: UInt
    var getCoverage: UInt
  }

  private static let originals: Originals? = install()

  /// Where a font keeps the sample string of the last metrics served.
  private static let metricsKey: GQuark = g_quark_from_static_string("asynclayer-metrics-served")
  /// Where a font keeps a reference to its coverage.
  private static let coverageKey: GQuark = g_quark_from_static_string("asynclayer-coverage")

  /// Installs the hooks once; false when Pango's cairo font class could not be found.
  @discardableResult
  static func ensureInstalled() -> Bool { originals != nil }

  // The C functions of glyph_extents.h keep their state in statics that each Swift file calling
  // them would get a copy of: they are called from this file only, through these functions, which
  // are never inlined elsewhere.

  /// Releases the calling thread's hold on the last font's extents cache; at thread exit.
  @inline(never)
  static func forgetThread() { asynclayer_extents_forget_thread() }

  /// Pango's own glyph extents, bypassing the hook's cache, under ``FontCacheLock`` (for tests).
  @inline(never)
  static func uncachedGlyphExtents(
    _ font: UnsafeMutablePointer<PangoFont>, _ glyph: PangoGlyph, _ ink: UnsafeMutablePointer<PangoRectangle>?,
    _ logical: UnsafeMutablePointer<PangoRectangle>?
  ) {
    ensureInstalled()
    FontCacheLock.withLock { asynclayer_extents_call_original(font, glyph, ink, logical) }
  }

  private static func install() -> Originals? {
    // Pango's cairo font type is not in its headers: take it from a font Pango loads.
    guard let fontMap = pango_cairo_font_map_new_for_font_type(CAIRO_FONT_TYPE_FT) else { return nil }
    defer { g_object_unref(fontMap) }
    let context = pango_font_map_create_context(fontMap)
    defer { g_object_unref(UnsafeMutableRawPointer(context)) }
    let description = pango_font_description_from_string("Sans 12")
    defer { pango_font_description_free(description) }
    guard let loaded = pango_font_map_load_font(fontMap, context, description) else { return nil }
    defer { g_object_unref(loaded) }
    let fontType = UnsafeMutableRawPointer(loaded).assumingMemoryBound(to: GTypeInstance.self).pointee.g_class.pointee
      .g_type
    // The class stays referenced for the life of the process, like the hooks in it.
    guard let fontClass = g_type_class_ref(fontType) else { return nil }
    let font = fontClass.assumingMemoryBound(to: PangoFontClass.self)
    guard let getMetrics = font.pointee.get_metrics, let getCoverage = font.pointee.get_coverage,
      font.pointee.get_glyph_extents != nil
    else {
      return nil
    }
    let originals = Originals(
      getMetrics: UInt(bitPattern: unsafeBitCast(getMetrics, to: UnsafeRawPointer.self)),
      getCoverage: UInt(bitPattern: unsafeBitCast(getCoverage, to: UnsafeRawPointer.self)))
    font.pointee.get_metrics = { font, language in PangoFontHooks.metrics(font, language) }
    font.pointee.get_coverage = { font, language in PangoFontHooks.coverage(font, language) }
    // A miss: Pango's own function fills cairo's glyph cache, so it runs under the lock.
    asynclayer_extents_install(font) { font, glyph, ink, logical in
      FontCacheLock.withLock { asynclayer_extents_call_original(font, glyph, ink, logical) }
    }
    return originals
  }

  private static func metrics(
    _ font: UnsafeMutablePointer<PangoFont>?, _ language: OpaquePointer?
  ) -> UnsafeMutablePointer<PangoFontMetrics>? {
    guard let originals, let font else { return nil }
    let pango = unsafeBitCast(UnsafeRawPointer(bitPattern: originals.getMetrics)!, to: GetMetrics.self)
    let sample = UnsafeMutableRawPointer(mutating: pango_language_get_sample_string(language))
    let object = UnsafeMutableRawPointer(font).assumingMemoryBound(to: GObject.self)
    // Served before: Pango only reads the font's own cache.
    if g_object_get_qdata(object, metricsKey) == sample { return pango(font, language) }
    return FontCacheLock.withLock {
      let metrics = pango(font, language)
      g_object_set_qdata(object, metricsKey, sample)
      return metrics
    }
  }

  /// `get_coverage`: the coverage kept on the font, else Pango's, then kept. Pango's cairo fonts
  /// (`PangoFcFont`) ignore the language and return the coverage of the font's file and face index,
  /// which never changes: the kept one is the object Pango would return. A font is used by one
  /// thread (its font map's), and the reference is stored only where none is, so a coverage never
  /// leaves the font while a caller may be reading it.
  private static func coverage(
    _ font: UnsafeMutablePointer<PangoFont>?, _ language: OpaquePointer?
  ) -> OpaquePointer? {
    guard let originals, let font else { return nil }
    let object = UnsafeMutableRawPointer(font).assumingMemoryBound(to: GObject.self)
    if let known = g_object_get_qdata(object, coverageKey) { return pango_coverage_ref(OpaquePointer(known)) }
    let pango = unsafeBitCast(UnsafeRawPointer(bitPattern: originals.getCoverage)!, to: GetCoverage.self)
    guard let coverage = pango(font, language) else { return nil }
    let kept = UnsafeMutableRawPointer(pango_coverage_ref(coverage))
    let stored = g_object_replace_qdata(
      object, coverageKey, nil, kept, { pango_coverage_unref(OpaquePointer($0)) }, nil)
    if stored == 0 { pango_coverage_unref(OpaquePointer(kept)) }
    return coverage
  }
}
