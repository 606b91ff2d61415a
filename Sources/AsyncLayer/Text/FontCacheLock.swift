internal import CCairo
import Synchronization

/// One process-wide, per-thread reentrant lock around the moments when Pango or cairo fill a
/// cache that every thread shares, so that text can be drawn on any number of threads at once.
///
/// Two such places are unsafe in cairo 1.16 and Pango 1.50, below the faces that
/// ``FontFaceStore`` makes safe:
///
/// - **cairo's glyph cache.** Glyphs of every scaled font live in pages of one global cache. A
///   thread adding a page to a full cache evicts another font's page and takes that font's lock,
///   while holding the cache's lock; a second thread holding that font's lock (it froze the font
///   to add a glyph) then waits for the cache's lock: a deadlock, seen within seconds with
///   mixed fonts on 4 threads. Cache misses — a glyph's extents or image computed for the first
///   time — therefore run under this lock: Pango's `get_glyph_extents` misses, the glyph images
///   of ``GlyphCompositor``, and every draw that goes through cairo's glyph path (colour glyphs,
///   decorations, vector surfaces). Hits never reach cairo: Pango's extents are cached per font
///   here, glyph images per thread in ``GlyphCompositor``.
/// - **Pango's metrics.** `_pango_cairo_font_get_metrics` guards a recursion with a
///   `static int in_get_metrics` shared by all threads. A thread that computes a font's metrics
///   while another is inside sees the flag, skips the derived metrics and keeps an
///   `approximate_char_width` of 0 for good; line breaking uses it as a safety margin, and a
///   justified CJK line came out 0.7 pt wider than the same tile drawn alone. A font's first
///   metrics for a language are computed under this lock.
///
/// The lock is reentrant on one thread (Pango's metrics computation lays out a sample text, which
/// asks for glyph extents), and it is one lock rather than two so that no two locks can be taken
/// in opposite orders.
package enum FontCacheLock {
  // Guards no value: it orders the callers' time inside Pango and cairo.
  private static let lock = Mutex(())
  private static let acquisitionCount = Atomic<Int>(0)

  /// Times the lock was taken (nested calls not counted), for benchmarks to show how rare it is.
  package static var acquisitions: Int { acquisitionCount.load(ordering: .relaxed) }

  /// Runs `body` holding the lock; a nested call on the same thread runs it directly.
  static func withLock<Value, Failure: Error>(_ body: () throws(Failure) -> Value) throws(Failure) -> Value {
    let state = PangoThreadState.current
    if state.fontCacheLockDepth > 0 { return try body() }
    acquisitionCount.add(1, ordering: .relaxed)
    let outcome = lock.withLock { _ in
      state.fontCacheLockDepth += 1
      defer { state.fontCacheLockDepth -= 1 }
      return SameThread(Swift.Result<Value, Failure>(catching: body))
    }
    return try outcome.value.get()
  }
}

/// A value handed out of the lock's closure to the thread that made it.
private struct SameThread<Value>: @unchecked Sendable {  // never leaves the calling thread
  let value: Value
  init(_ value: Value) { self.value = value }
}
