internal import CCairo
import Foundation
import Synchronization

/// One Pango font map per thread, and one Pango context per scale on that thread.
///
/// A new font map costs ~2 ms (fontconfig set-up, empty glyph caches) — ten times the render of a
/// tile — so each thread keeps one for its lifetime. Pango's objects are not thread-safe, which is
/// why they are per thread rather than shared behind a lock.
final class PangoThreadState {
  /// This thread's font map; replaced by a fresh one when fonts are registered (see ``FontFiles``).
  private(set) var fontMap: UnsafeMutablePointer<PangoFontMap>
  /// The ``FontFiles/generation`` the font map was made for.
  private var fontGeneration: Int
  private var contexts: [ContextKey: OpaquePointer] = [:]

  /// A context's scale, and whether its base direction is neutral (absolute alignment) or set
  /// (`direction`, the raw value of a `PangoDirection`; nil for Pango's default, weak left-to-right).
  private struct ContextKey: Hashable {
    var scale: Double
    var absoluteAlignment: Bool
    var direction: UInt32? = nil
    /// The gravity hint of a vertical layout (base gravity east), nil for horizontal text.
    var verticalHint: UInt32? = nil
  }
  /// How deep this thread is inside ``FontCacheLock``: nested calls must not wait for it again.
  var fontCacheLockDepth = 0
  /// This thread's glyph cache and compositor (see ``GlyphCompositor``).
  let glyphCompositor = GlyphCompositor()

  private init() {
    (fontMap, fontGeneration) = Self.makeFontMap()
  }

  deinit {
    releaseFontMap()
    // Runs on the exiting thread (ThreadLocal's destructor): its memo of the last font measured.
    PangoFontHooks.forgetThread()
  }

  /// A new font map on the configuration of the fonts registered so far.
  private static func makeFontMap() -> (UnsafeMutablePointer<PangoFontMap>, Int) {
    let (configuration, generation) = FontFiles.currentConfiguration()
    let map = ThreadSafeFontMap.make()
    if let configuration {
      // Pango takes its own reference to the configuration.
      pango_fc_font_map_set_config(OpaquePointer(map), configuration.raw)
    }
    return (map, generation)
  }

  private func releaseFontMap() {
    // Fontsets point at the font map without a reference: release them (and the fonts) first.
    fontsets.removeAll()
    recentFontsets.releaseAll()
    recentFonts.releaseAll()
    for context in contexts.values { g_object_unref(UnsafeMutableRawPointer(context)) }
    contexts.removeAll()
    ownContexts.removeAll()
    g_object_unref(fontMap)
  }

  /// Swaps the font map for a fresh one when fonts were registered since it was made. Called only
  /// where a new layout starts, never from inside Pango: layouts made before keep their contexts,
  /// which keep the old map alive, and draw as they were laid out.
  func refreshFontsIfRegistered() {
    guard FontFiles.generation.load(ordering: .acquiring) != fontGeneration else { return }
    releaseFontMap()
    (fontMap, fontGeneration) = Self.makeFontMap()
  }

  /// Fonts and fontsets this thread drew with lately, kept alive past Pango's fontset cache (256
  /// fontsets per font map, oldest evicted first). A thread cycling through more styles than that
  /// otherwise rebuilds them on every tile: a fontconfig sort on two new threads per fontset, and
  /// per font its metrics (a sample layout), glyph extents and glyph images — all cache misses
  /// under ``FontCacheLock``. A fontset kept here keeps its sorted font list, which Pango finds
  /// again when it rebuilds the fontset; a font kept here is found again by Pango's font hash.
  private var recentFonts = RetainedObjects(limit: 2_048)
  /// Fontsets loaded through this thread's contexts, which Pango is handed again on the next load
  /// with the same arguments instead of rebuilding them (see ``FontsetCache``).
  private var fontsets = FontsetCache(limit: 2_048)
  /// Fontsets loaded through other contexts (Pango's metrics computation makes its own).
  private var recentFontsets = RetainedObjects(limit: 256)
  /// The values of `contexts`, for ``fontset(fontMap:context:description:language:)``.
  private var ownContexts: Set<OpaquePointer> = []

  /// Keeps the fonts of `layout`'s runs alive.
  func retainFonts(of layout: OpaquePointer) {
    var lines = pango_layout_get_lines_readonly(layout)
    while let node = lines {
      var runs = node.pointee.data?.assumingMemoryBound(to: PangoLayoutLine.self).pointee.runs
      while let run = runs {
        let item = run.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self).pointee.item
        if let font = item?.pointee.analysis.font { recentFonts.retain(UnsafeMutableRawPointer(font)) }
        runs = run.pointee.next
      }
      lines = node.pointee.next
    }
  }

  /// The fontset loaded before for these arguments through one of this thread's contexts, with a
  /// new reference; nil when Pango must load it.
  func fontset(
    fontMap: OpaquePointer, context: OpaquePointer, description: OpaquePointer, language: OpaquePointer?
  ) -> UnsafeMutableRawPointer? {
    guard ownContexts.contains(context) else { return nil }
    return fontsets.fontset(fontMap: fontMap, context: context, description: description, language: language)
  }

  /// Keeps a fontset Pango just loaded for this thread's font map alive (and, for one of this
  /// thread's contexts, to be handed out again by ``fontset(fontMap:context:description:language:)``).
  func keepFontset(
    _ fontset: UnsafeMutableRawPointer, fontMap: OpaquePointer, context: OpaquePointer, description: OpaquePointer,
    language: OpaquePointer?
  ) {
    if ownContexts.contains(context) {
      fontsets.insert(fontset, fontMap: fontMap, context: context, description: description, language: language)
    } else {
      recentFontsets.retain(fontset)
    }
  }

  /// The context for layouts drawn at `scale` device pixels per point.
  ///
  /// With `absoluteAlignment`, the context's base direction is neutral: Pango then never swaps
  /// `PANGO_ALIGN_LEFT` and `PANGO_ALIGN_RIGHT` for a right-to-left paragraph (it swaps them only
  /// for a paragraph whose direction is opposite to the context's), so left means left. Paragraph
  /// directions still come from their text (auto-dir), so bidi reordering is unchanged.
  ///
  /// Metrics hinting is off and glyph positions are not rounded, so a layout breaks its lines at
  /// the same places at every scale and on vector surfaces: a PNG preview matches the PDF.
  func context(scale: Double, absoluteAlignment: Bool = false, orientation: TextOrientation = .horizontal)
    -> OpaquePointer
  {
    refreshFontsIfRegistered()
    return context(
      ContextKey(scale: scale, absoluteAlignment: absoluteAlignment, verticalHint: orientation.pangoGravityHint))
  }

  /// The context for the pieces of a long layout that must take `direction` as their base
  /// direction (see `TextLayout+Pieces.swift`): otherwise as ``context(scale:absoluteAlignment:)``,
  /// with the gravity of a vertical `orientation`.
  /// It never refreshes the font map: the layout's first piece did, and all pieces share its fonts.
  func context(scale: Double, direction: PangoDirection, orientation: TextOrientation = .horizontal) -> OpaquePointer {
    context(
      ContextKey(
        scale: scale, absoluteAlignment: false, direction: direction.rawValue,
        verticalHint: orientation.pangoGravityHint))
  }

  private func context(_ key: ContextKey) -> OpaquePointer {
    if let context = contexts[key] { return context }
    let context = pango_font_map_create_context(fontMap)!
    if key.absoluteAlignment { pango_context_set_base_dir(context, PANGO_DIRECTION_NEUTRAL) }
    if let direction = key.direction { pango_context_set_base_dir(context, PangoDirection(direction)) }
    if let hint = key.verticalHint {
      pango_context_set_base_gravity(context, PANGO_GRAVITY_EAST)
      pango_context_set_gravity_hint(context, PangoGravityHint(hint))
    }
    let options = cairo_font_options_create()
    cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
    cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_SLIGHT)
    cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
    pango_cairo_context_set_font_options(context, options)
    cairo_font_options_destroy(options)
    pango_cairo_context_set_resolution(context, 72)
    pango_context_set_round_glyph_positions(context, 0)
    var matrix = PangoMatrix(xx: key.scale, xy: 0, yx: 0, yy: key.scale, x0: 0, y0: 0)
    pango_context_set_matrix(context, &matrix)
    contexts[key] = context
    ownContexts.insert(context)
    return context
  }

  /// This thread's state, created on first use and released when the thread exits.
  @available(*, noasync, message: "a task may resume on another thread; read it in synchronous code")
  static var current: PangoThreadState { perThread.value }

  private static let perThread = ThreadLocal { PangoThreadState() }
}
