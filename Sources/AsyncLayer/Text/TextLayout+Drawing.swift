internal import CCairo

extension TextLayout {
  /// Draws the shown lines into `cr` (whose source colour is already set), checking `isCancelled`
  /// before each line. Returns the number of lines drawn.
  ///
  /// Glyphs go through this thread's ``GlyphCompositor`` (no process-wide lock) when
  /// `threadGlyphCache` is true and the compositor takes the layout; otherwise through cairo.
  /// `range` narrows the lines to some of the shown ones, each drawn where the whole layout puts it.
  func show(
    in cr: OpaquePointer, at origin: Point, lines range: Range<Int>? = nil, threadGlyphCache: Bool = true,
    isCancelled: () -> Bool
  ) -> Int {
    let wholeLayout = lines.count == allLines.count && lines.count == 1 && pieces.isEmpty
    let shown = range.map { lines[$0.clamped(to: lines.indices)] } ?? lines[...]
    guard !shown.isEmpty else { return 0 }
    if threadGlyphCache, let drawn = showThroughCompositor(in: cr, at: origin, shown: shown, isCancelled: isCancelled) {
      return drawn
    }
    // cairo's glyph path fills cairo's process-wide glyph cache: one thread at a time.
    if wholeLayout {
      cairo_move_to(cr, origin.x, origin.y)
      FontCacheLock.withLock { pango_cairo_show_layout(cr, raw) }
      return 1
    }
    var drawn = 0
    for line in shown {
      if isCancelled() { break }
      guard let pangoLine = pangoLine(line.index) else { break }
      cairo_move_to(cr, origin.x + line.frame.minX, origin.y + line.baseline)
      FontCacheLock.withLock { pango_cairo_show_layout_line(cr, pangoLine) }
      drawn += 1
    }
    return drawn
  }

  /// Draws the lines `shown` (all shown lines when nil) through this thread's ``GlyphCompositor``
  /// only; nil when it declines the layout or the context, and then nothing has been drawn.
  func showThroughCompositor(
    in cr: OpaquePointer, at origin: Point, shown: ArraySlice<TextLine>? = nil, isCancelled: () -> Bool
  ) -> Int? {
    let wholeLayout = lines.count == allLines.count && lines.count == 1 && pieces.isEmpty
    let shown = shown ?? lines[...]
    // Where the cairo path of show(in:) puts each line: the single line through pango_cairo_show_layout
    // (offset in pango units from the origin), other lines through pango_cairo_show_layout_line.
    var placed: [GlyphCompositor.PlacedLine] = []
    placed.reserveCapacity(shown.count)
    for line in shown {
      guard let pangoLine = pangoLine(line.index) else { break }
      if wholeLayout {
        var logical = PangoRectangle()
        let iterator = pango_layout_get_iter(raw)
        pango_layout_iter_get_line_extents(iterator, nil, &logical)
        let baseline = pango_layout_iter_get_baseline(iterator)
        pango_layout_iter_free(iterator)
        placed.append(.init(line: pangoLine, origin: origin, offsetX: logical.x, offsetY: baseline))
      } else {
        let lineOrigin = Point(x: origin.x + line.frame.minX, y: origin.y + line.baseline)
        placed.append(.init(line: pangoLine, origin: lineOrigin, offsetX: 0, offsetY: 0))
      }
    }
    return PangoThreadState.current.glyphCompositor.show(lines: placed, in: cr, isCancelled: isCancelled)
  }
}
