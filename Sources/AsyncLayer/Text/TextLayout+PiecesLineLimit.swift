internal import CCairo

// A text ellipsized per paragraph, laid out in pieces.
//
// With an ellipsis and ``TextStyle/maxLines`` (or no height at all, Pango's default of one line),
// Pango limits the lines of each paragraph (a negative layout height): a paragraph's lines up to
// the limit are ordinary lines, and its last allowed line takes the rest of the paragraph, shaped
// whole and cut back to the width with an ellipsis (pango-layout.c, `should_ellipsize_current_line`:
// `line_of_par == -height`). Hidden paragraphs are ellipsized too, and ``TextLayout/isEllipsized``
// reports them. One layout did all of it in one call: 1,000 paragraphs of 256 bytes with
// `maxLines` 5 took 1.1 s of CPU, a 256 KiB paragraph 143 ms
// (bench/results/cancel-latency-line-limit-vertical-2026-11-26.txt).
//
// The limit counts lines from each paragraph's start, so a piece of whole paragraphs laid out with
// the same limit has their lines. A paragraph longer than a piece is laid out a prefix at a time
// without an ellipsis, keeping at most the lines before its last allowed one; the piece with the
// paragraph's end gets the lines left as its limit. When the limit is reached before that end, the
// last line is laid out alone (a limit of one line) over a bounded stretch for an ellipsis at the
// end, as `TextLayout+EllipsisTail.swift` does: the text from the line's start, cut `pieceBytes`
// later and doubled until the cut lies in the elided text, far from the kept part. An ellipsis at
// the start or middle shows the paragraph's end: that line is laid out over the rest of the
// paragraph, in one call.
extension PieceBuilder {
  /// Lays out the last allowed line of `paragraph`, from `start` (a line start) to the paragraph's
  /// end, as one ellipsized line. `next` is where the next paragraph starts.
  mutating func addLineLimitTail(
    from start: Int, paragraph: TextLayout.Paragraph, next: Int?, direction: PangoDirection, indented: Bool
  ) throws {
    let mode = pango_layout_get_ellipsize(layout.raw)
    var target = max(1, splitting.pieceBytes)
    while true {
      var end = mode == PANGO_ELLIPSIZE_END ? min(paragraph.end, start + target) : paragraph.end
      while end < paragraph.end, end > start + 1, UInt8(bitPattern: text[end]) & 0xC0 == 0x80 { end -= 1 }
      let isLast = end == paragraph.end
      let laidOut = isLast ? Self.layoutEnd(paragraphEnd: end, next: next) : end
      let (raw, xOffset) = makeLayout(start: start, end: laidOut, direction: direction, indented: indented)
      pango_layout_set_ellipsize(raw, mode)
      pango_layout_set_height(raw, -1)
      if isLast || lineTailIsExact(raw, cut: end - start) {
        let count = lines.count
        _ = keep(raw, start: start, end: laidOut, xOffset: xOffset, keepsLastLine: laidOut == end)
        // Pango's line holds the rest of its paragraph, past the cut.
        if !isLast, let last = lines.last, lines.count > count {
          lines[lines.count - 1] = TextLine(
            index: last.index, frame: last.frame, inkFrame: last.inkFrame, baseline: last.baseline,
            utf8Offset: last.utf8Offset, utf8Length: paragraph.end - last.utf8Offset)
        }
        return
      }
      g_object_unref(UnsafeMutableRawPointer(raw))
      if splitting.isCancelled() { throw CancellationError() }
      target *= 2
    }
  }

  /// True when `raw`, one line of a paragraph's text cut `cut` bytes after the line's start, hides
  /// the cut in its elided text, far from the kept part, at the paragraph's own level: then the
  /// line is that of the uncut paragraph.
  private func lineTailIsExact(_ raw: OpaquePointer, cut: Int) -> Bool {
    guard pango_layout_get_line_count(raw) == 1, let line = pango_layout_get_line_readonly(raw, 0) else {
      return false
    }
    return Self.ellipsisHidesCut(line, cut: cut)
  }
}
