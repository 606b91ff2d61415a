/// How text glyphs reach the pixels of an image.
///
/// cairo 1.16 composites every glyph run under one process-wide lock, so threads that draw text
/// take turns. ``threadCache`` (the default) composites through a glyph cache owned by the drawing
/// thread instead, with pixels identical to cairo's; it falls back to cairo by itself for what it
/// does not handle (colour glyphs, underlines and other decorations, rotated text, clips that cut
/// through text, vector targets). ``cairo`` always uses cairo's path, for comparison.
///
/// ```swift
/// var tile = TextTile(.plain("Hello"), width: 200, scale: 2)
/// tile.glyphCompositing = .cairo   // measure against cairo's own glyph path
/// ```
@_spi(Benchmarks) public enum GlyphCompositing: String, Sendable, Hashable, CaseIterable, Codable {
  /// A glyph cache per drawing thread: no lock shared between threads.
  case threadCache = "thread-cache"
  /// cairo's process-wide glyph cache and lock.
  case cairo
}
