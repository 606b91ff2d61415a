internal import CCairo

/// Wraps two virtual functions of Pango's cairo font class so that they fill process-wide caches
/// under ``FontCacheLock``: `get_metrics` (first computation per font and language) and
/// `get_glyph_extents` (a glyph's first extents per font, which fill cairo's glyph cache).
///
/// `PangoFontClass` is in Pango's public headers; the cairo font type is not, so it is taken from
/// a font Pango loads. The hooks apply to every cairo font of the process (they only add the lock).
enum PangoFontHooks {
  private typealias GetMetrics =
    @convention(c) (
      UnsafeMutablePointer<PangoFont>?, OpaquePointer?
    ) -> UnsafeMutablePointer<PangoFontMetrics>?
  private typealias GetGlyphExtents =
    @convention(c) (
      UnsafeMutablePointer<PangoFont>?, PangoGlyph, UnsafeMutablePointer<PangoRectangle>?,
      UnsafeMutablePointer<PangoRectangle>?
    ) -> Void

  /// Pango's own functions, as bit patterns (C function pointers are not `Sendable`).
  private struct Originals: Sendable {
    var getMetrics: UInt
    var getGlyphExtents: UInt
  }

  private static let originals: Originals? = install()

  /// Where a font keeps the sample string of the last metrics served, and its extents cache.
  private static let metricsKey: GQuark = g_quark_from_static_string("asynclayer-metrics-served")
  private static let extentsKey: GQuark = g_quark_from_static_string("asynclayer-glyph-extents")

  /// Installs the hooks once; false when Pango's cairo font class could not be found.
  @discardableResult
  static func ensureInstalled() -> Bool { originals != nil }

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
    guard let getMetrics = font.pointee.get_metrics, let getGlyphExtents = font.pointee.get_glyph_extents else {
      return nil
    }
    let originals = Originals(
      getMetrics: UInt(bitPattern: unsafeBitCast(getMetrics, to: UnsafeRawPointer.self)),
      getGlyphExtents: UInt(bitPattern: unsafeBitCast(getGlyphExtents, to: UnsafeRawPointer.self)))
    font.pointee.get_metrics = { font, language in PangoFontHooks.metrics(font, language) }
    font.pointee.get_glyph_extents = { font, glyph, ink, logical in
      PangoFontHooks.glyphExtents(font, glyph, ink, logical)
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

  private static func glyphExtents(
    _ font: UnsafeMutablePointer<PangoFont>?, _ glyph: PangoGlyph, _ ink: UnsafeMutablePointer<PangoRectangle>?,
    _ logical: UnsafeMutablePointer<PangoRectangle>?
  ) {
    guard let originals, let font else { return }
    let object = UnsafeMutableRawPointer(font).assumingMemoryBound(to: GObject.self)
    let cache: GlyphExtentsCache
    if let existing = g_object_get_qdata(object, extentsKey) {
      cache = Unmanaged<GlyphExtentsCache>.fromOpaque(existing).takeUnretainedValue()
    } else {
      cache = GlyphExtentsCache()
      g_object_set_qdata_full(object, extentsKey, Unmanaged.passRetained(cache).toOpaque()) { pointer in
        if let pointer { Unmanaged<GlyphExtentsCache>.fromOpaque(pointer).release() }
      }
    }
    let extents: GlyphExtentsCache.Extents
    if let cached = cache.entries[glyph] {
      extents = cached
    } else {
      extents = FontCacheLock.withLock {
        let pango = unsafeBitCast(UnsafeRawPointer(bitPattern: originals.getGlyphExtents)!, to: GetGlyphExtents.self)
        var computed = GlyphExtentsCache.Extents(ink: PangoRectangle(), logical: PangoRectangle())
        pango(font, glyph, &computed.ink, &computed.logical)
        return computed
      }
      cache.entries[glyph] = extents
    }
    ink?.pointee = extents.ink
    logical?.pointee = extents.logical
  }
}

/// A font's glyph extents as Pango computed them, kept on the font (its thread's object).
private final class GlyphExtentsCache {
  struct Extents {
    var ink: PangoRectangle
    var logical: PangoRectangle
  }
  var entries: [PangoGlyph: Extents] = [:]
}
