internal import CCairo
import DequeModule

/// The fontsets one thread's font map loaded lately, found again by what Pango would build them
/// from: the font map, the context (and its serial), the font description and the language.
///
/// Pango's own fontset cache keeps 256 fontsets per font map, oldest evicted first. A thread that
/// cycles through more styles and scripts than that (the mixed workload of `layerbench
/// throughput`: 1.9 evictions a tile) rebuilds a fontset on every miss: a fontconfig substitution
/// of the pattern, then per font used a `FcFontRenderPrepare` — 2.1 M of the 4.5 M instructions of
/// a mixed tile (callgrind, 2026-11-27), and the only place in a warm tile where threads take
/// fontconfig's process-wide locks (its cache lock for charset references, ~20 a tile, and its
/// config lock, ~11 a tile): cache lines every worker writes. A fontset found here is the one Pango
/// built for the same key, with the same fonts (its font hash is keyed by pattern), so the layout
/// is the same.
///
/// Only contexts of ``PangoThreadState`` are cached: they live as long as the font map and are
/// never changed after they are made (the serial guards that too). A temporary context (Pango's
/// metrics computation makes one per font and language) is not, since its address can be reused.
/// Not thread-safe: one per thread, holding a reference to each fontset until evicted.
struct FontsetCache: ~Copyable {
  /// What a fontset is loaded from. A stored key owns a copy of the description.
  private struct Key: Hashable {
    var fontMap: OpaquePointer
    var context: OpaquePointer
    var serial: UInt32
    var language: OpaquePointer?
    var description: OpaquePointer

    static func == (a: Key, b: Key) -> Bool {
      a.fontMap == b.fontMap && a.context == b.context && a.serial == b.serial && a.language == b.language
        && (a.description == b.description || pango_font_description_equal(a.description, b.description) != 0)
    }

    func hash(into hasher: inout Hasher) {
      hasher.combine(context)
      hasher.combine(language)
      hasher.combine(pango_font_description_hash(description))
    }
  }

  private var fontsets: [Key: UnsafeMutableRawPointer] = [:]
  private var order: Deque<Key> = []
  let limit: Int

  init(limit: Int) { self.limit = limit }

  deinit {
    // Over the dictionary, not by key: a look-up could compare with a description freed already.
    for (key, fontset) in fontsets { Self.free(key, fontset) }
  }

  var count: Int { order.count }

  /// The fontset loaded for these arguments before, with a new reference for the caller; nil when
  /// there is none.
  func fontset(
    fontMap: OpaquePointer, context: OpaquePointer, description: OpaquePointer, language: OpaquePointer?
  ) -> UnsafeMutableRawPointer? {
    let key = Key(
      fontMap: fontMap, context: context, serial: pango_context_get_serial(context), language: language,
      description: description)
    guard let fontset = fontsets[key] else { return nil }
    g_object_ref(fontset)
    return fontset
  }

  /// Keeps `fontset` (with a reference of its own) as the one for these arguments.
  mutating func insert(
    _ fontset: UnsafeMutableRawPointer, fontMap: OpaquePointer, context: OpaquePointer, description: OpaquePointer,
    language: OpaquePointer?
  ) {
    var key = Key(
      fontMap: fontMap, context: context, serial: pango_context_get_serial(context), language: language,
      description: description)
    guard fontsets[key] == nil, let copy = pango_font_description_copy(description) else { return }
    key.description = copy
    g_object_ref(fontset)
    fontsets[key] = fontset
    order.append(key)
    if order.count > limit, let oldest = order.popFirst() {
      Self.free(oldest, fontsets.removeValue(forKey: oldest))
    }
  }

  /// Releases every fontset (the owner calls this before it frees the font map they point into).
  mutating func removeAll() {
    for (key, fontset) in fontsets { Self.free(key, fontset) }
    order.removeAll()
    fontsets.removeAll()
  }

  private static func free(_ key: Key, _ fontset: UnsafeMutableRawPointer?) {
    if let fontset { g_object_unref(fontset) }
    pango_font_description_free(key.description)
  }
}
