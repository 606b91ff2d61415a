internal import CCairo

/// Wraps two virtual functions of Pango's cairo font class so that they fill process-wide caches
/// under ``FontCacheLock``: `get_metrics` (first computation per font and language) and
/// `get_glyph_extents` (a glyph's first extents per font, which fill cairo's glyph cache).
///
/// The extents hook is C (`Sources/CCairo/glyph_extents.h`): Pango calls it for every glyph of
/// every layout it measures, and a hit costs ~30 instructions there against ~570 for the Swift
/// dictionary behind GObject qdata it replaces. Only its misses come back here, to take the lock.
///
/// `PangoFontClass` is in Pango's public headers; the cairo font type is not, so it is taken from
/// a font Pango loads. The hooks apply to every cairo font of the process (they only add the lock).
enum PangoFontHooks {
  private typealias GetMetrics =
    @convention(c) (
      UnsafeMutablePointer<PangoFont>?, OpaquePointer?
    ) -> UnsafeMutablePointer<PangoFontMetrics>?
  /// Pango's own `get_metrics`, as a bit pattern (C function pointers are not `Sendable`); its
  /// `get_glyph_extents` is kept by the C hook.
  private struct Originals: Sendable {
    var getMetrics: UInt
  }

  private static let originals: Originals? = install()

  /// Where a font keeps the sample string of the last metrics served.
  private static let metricsKey: GQuark = g_quark_from_static_string("asynclayer-metrics-served")

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
    guard let getMetrics = font.pointee.get_metrics, font.pointee.get_glyph_extents != nil else {
      return nil
    }
    let originals = Originals(getMetrics: UInt(bitPattern: unsafeBitCast(getMetrics, to: UnsafeRawPointer.self)))
    font.pointee.get_metrics = { font, language in PangoFontHooks.metrics(font, language) }
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
}
