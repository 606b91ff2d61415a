internal import CCairo

// A text ellipsized at its end to fit a height, laid out in pieces for a draw.
//
// In one layout Pango ends such a text with one line that takes the whole rest of its paragraph,
// shapes all of it and cuts it back to the width with an ellipsis: for a 256 KiB paragraph that was
// 156 ms with no cancellation check (bench/results/cancel-latency.txt). Pango decides line by line
// (pango-layout.c, `should_ellipsize_current_line`): a line takes the rest of its paragraph when
// twice the previous line's height is more than the height left, and the layout stops after a
// paragraph once the height left is below the last line's. The lines before that are ordinary
// lines, so pieces lay them out; the last few lines are laid out as one layout (the "tail") with
// Pango's own ellipsis and the height left, over a bounded stretch of text.
//
// The tail starts at a line far enough above the end (the height left is at least 6 times the
// tallest line so far) that neither layout ellipsizes it: from there Pango's state (height left,
// last line height) is the same in both. The tail's text is cut `pieceBytes` after its start
// (doubled until it is enough); the cut is invisible when Pango stops before it, or when it falls
// inside the elided text of the last line, well after the kept part (whose shaping then sees the
// same neighbours), and the ellipsis keeps the paragraph's own embedding level (Pango gives it the
// lowest level of the elided text, which more text cannot lower further).
extension PieceBuilder {
  /// How far the cut must lie past the start of the elided text: more than any shaping context.
  static let elidedMargin = 512

  /// The line from which the tail is laid out, once the lines reach it; nil before.
  var tailLine: Int? {
    guard let remaining else { return nil }
    var tallest: Int64 = 0
    for index in lines.indices {
      tallest = max(tallest, heights[index])
      if remaining[index] < 6 * tallest { return max(0, index - 1) }
    }
    return nil
  }

  /// Replaces the lines from `first` on with the tail: the text from that line's start laid out as
  /// one ellipsized layout with the height left there. `paragraphs`, `own` and `resolved` are the
  /// text's paragraphs and their directions (see ``TextLayout/layoutPieces(_:)``).
  mutating func addEllipsizedTail(
    from first: Int, paragraphs: [TextLayout.Paragraph], own: [PangoDirection], resolved: [PangoDirection]
  ) throws {
    let start = lines[first].utf8Offset
    let height = remaining![first]
    drop(from: first)
    let length = Int(strlen(text))
    let index = paragraphs.lastIndex { $0.start <= start } ?? 0
    let startsParagraph = paragraphs[index].start == start
    // A tail that starts inside a paragraph, or at a neutral one, takes its resolved direction
    // (Pango would find it in the part of the paragraph the tail lacks).
    let direction = startsParagraph && own[index] != PANGO_DIRECTION_NEUTRAL ? nil : resolved[index]
    var target = max(1, splitting.pieceBytes)
    while true {
      var end = start + min(target, length - start)
      while end < length, UInt8(bitPattern: text[end]) & 0xC0 == 0x80 { end -= 1 }
      let (raw, xOffset) = makeLayout(start: start, end: end, direction: direction, indented: startsParagraph)
      pango_layout_set_ellipsize(raw, PANGO_ELLIPSIZE_END)
      pango_layout_set_height(raw, Int32(clamping: height))
      if end == length
        || tailIsExact(raw, start: start, end: end, height: height, direction: direction, paragraphs: paragraphs)
      {
        let count = lines.count
        _ = keep(raw, start: start, end: end, xOffset: xOffset, keepsLastLine: true)
        // Pango's last line holds the rest of its paragraph, past the cut.
        if end < length, let last = lines.last, lines.count > count {
          let paragraph = paragraphs.last { $0.start <= last.utf8Offset } ?? paragraphs[0]
          lines[lines.count - 1] = TextLine(
            index: last.index, frame: last.frame, inkFrame: last.inkFrame, baseline: last.baseline,
            utf8Offset: last.utf8Offset, utf8Length: max(last.utf8Length, paragraph.end - last.utf8Offset))
        }
        return
      }
      g_object_unref(UnsafeMutableRawPointer(raw))
      if splitting.isCancelled() { throw CancellationError() }
      target *= 2
    }
  }

  /// True when the tail `raw` (the text `start..<end`, cut before the text's end) has the lines of
  /// one layout of the whole text from `start` on.
  private func tailIsExact(
    _ raw: OpaquePointer, start: Int, end: Int, height: Int64, direction: PangoDirection?,
    paragraphs: [TextLayout.Paragraph]
  ) -> Bool {
    guard let list = pango_layout_get_lines_readonly(raw) else { return false }
    // Every paragraph the tail lays out resolves as in one layout: a direction forced on the
    // tail must be that of each of them.
    var lastLine: UnsafeMutablePointer<PangoLayoutLine>? = nil
    var left = height
    var node: UnsafeMutablePointer<GSList>? = list
    let spacing = Int64(pango_layout_get_spacing(raw))
    var lastHeight: Int64 = 0
    while let current = node, let line = current.pointee.data?.assumingMemoryBound(to: PangoLayoutLine.self) {
      var logical = PangoRectangle()
      pango_layout_line_get_extents(line, nil, &logical)
      lastHeight = Int64(logical.height)
      left -= lastHeight + spacing
      lastLine = line
      node = current.pointee.next
    }
    guard let lastLine else { return false }
    if let direction {
      let forced = direction == PANGO_DIRECTION_RTL || direction == PANGO_DIRECTION_WEAK_RTL
      let first = paragraphs.firstIndex { $0.end >= start } ?? 0
      let last = paragraphs.lastIndex { $0.start <= start + Int(lastLine.pointee.start_index) } ?? first
      for paragraph in paragraphs[first...last] {
        let own = asynclayer_find_base_dir(text + paragraph.start, Int32(paragraph.length))
        if own == PANGO_DIRECTION_NEUTRAL { continue }
        if (own == PANGO_DIRECTION_RTL || own == PANGO_DIRECTION_WEAK_RTL) != forced { return false }
      }
    }
    let lineEnd = Int(lastLine.pointee.start_index) + Int(lastLine.pointee.length)
    // Pango stopped before the cut: the height ran out, as it does in one layout.
    if lineEnd < end - start { return true }
    // The last line took the rest, cut included: it must hide the cut in its elided text, far
    // from the kept part, at the paragraph's own level, and Pango must stop after it.
    guard left < lastHeight else { return false }
    return Self.ellipsisHidesCut(lastLine, cut: end - start)
  }

  /// True when `line`'s ellipsis ends exactly at `cut` (bytes from its layout's text start), at
  /// least `elidedMargin` bytes after the ellipsis starts, at the line's own level: the cut text is
  /// hidden in the elided part, far from what the line shows, so the line is that of the uncut text.
  static func ellipsisHidesCut(_ line: UnsafeMutablePointer<PangoLayoutLine>, cut: Int) -> Bool {
    var runs = line.pointee.runs
    while let run = runs {
      runs = run.pointee.next
      guard let item = run.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self).pointee.item,
        item.pointee.analysis.flags & UInt8(PANGO_ANALYSIS_FLAG_IS_ELLIPSIS) != 0
      else { continue }
      let level: UInt8 = line.pointee.resolved_dir == PANGO_DIRECTION_RTL.rawValue ? 1 : 0
      return Int(item.pointee.offset) + Int(item.pointee.length) == cut
        && Int(item.pointee.offset) + Self.elidedMargin <= cut && item.pointee.analysis.level == level
    }
    return false
  }

  /// Forgets the lines from `first` on and the pieces that hold only such lines.
  private mutating func drop(from first: Int) {
    guard first < lines.count else { return }
    let unit = Double(PANGO_SCALE)
    yOffset = Int64((lines[first].frame.minY * unit).rounded())
    while let last = pieces.last, last.firstLine >= first {
      g_object_unref(UnsafeMutableRawPointer(last.raw))
      pieces.removeLast()
    }
    if let last = pieces.last, last.firstLine + last.lines.count > first {
      pieces[pieces.count - 1].lines.removeLast(last.firstLine + last.lines.count - first)
    }
    lines.removeLast(lines.count - first)
    heights.removeLast(heights.count - first)
    if let count = remaining?.count { remaining?.removeLast(count - first) }
    extents = nil
    for line in lines {
      let minX = Int64((line.frame.minX * unit).rounded())
      let maxX = minX + Int64((line.frame.width * unit).rounded())
      extents = extents.map { (min($0.minX, minX), max($0.maxX, maxX)) } ?? (minX, maxX)
    }
  }
}
