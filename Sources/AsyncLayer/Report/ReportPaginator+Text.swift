// Flowing text onto pages: runs of lines split between lines, never inside one, and the link
// areas that go with them.
extension ReportPaginator {
  /// The end of the longest run of `lines` from `start` whose height fits `available`.
  static func fittingEnd(_ lines: [TextLine], from start: Int, available: Double) -> Int {
    let top = lines[start].frame.minY
    var end = start
    while end < lines.count, lines[end].frame.maxY - top <= available + epsilon { end += 1 }
    return end
  }

  /// Builds a run of `lines` of `layout` with the first line's top at `top`, and keeps `layout` for
  /// drawing (``runLayouts``).
  mutating func placedRun(
    _ layout: TextLayout, lines range: Range<Int>, x: Double, top: Double, role: ReportTextRun.Role,
    blockIndex: Int?
  ) -> ReportTextRun {
    let run = Self.run(layout, lines: range, x: x, top: top, role: role, blockIndex: blockIndex)
    runLayouts[ObjectIdentifier(layout)] = layout
    return run
  }

  /// Builds a run of `lines` of `layout` with the first line's top at `top`.
  private static func run(
    _ layout: TextLayout, lines range: Range<Int>, x: Double, top: Double, role: ReportTextRun.Role,
    blockIndex: Int?
  ) -> ReportTextRun {
    let lines = layout.lines
    let shift = top - lines[range.lowerBound].frame.minY
    let frames = lines[range].map { line in
      Rect(x: x + line.frame.minX, y: shift + line.frame.minY, width: line.frame.width, height: line.frame.height)
    }
    return ReportTextRun(
      role: role, blockIndex: blockIndex, content: layout.content, style: layout.style, limits: layout.limits,
      width: layout.width ?? 0,
      lines: range, lineOffsets: lines[range].map(\.utf8Offset), lineFrames: frames,
      frame: Rect(
        x: x, y: top, width: layout.width ?? 0,
        height: lines[range.upperBound - 1].frame.maxY
          - lines[range.lowerBound].frame.minY))
  }

  /// Places `layout` at the cursor, continuing on new pages between lines as needed.
  /// `keepWithNext` is extra room the first page must have after the text's first slice ends.
  /// With `controlsWidows`, a break leaves at least ``ReportStyle/orphans`` lines at the bottom of
  /// a page and ``ReportStyle/widows`` at the top of the next (unless the text starts at the top of
  /// a page too short for that). `x` is the left edge (the content's by default); `marker` (a list
  /// item's bullet or number) is placed beside the first line, ending where the text starts.
  mutating func placeFlowingText(
    _ layout: TextLayout, role: ReportTextRun.Role, blockIndex: Int?, keepWithNext: Double,
    controlsWidows: Bool = false, x: Double? = nil, marker: (layout: TextLayout, role: ReportTextRun.Role)? = nil
  ) {
    let lines = layout.lines
    guard !lines.isEmpty else { return }
    let left = x ?? contentRect.minX
    if keepWithNext > 0, !isAtPageTop {
      let whole = lines[lines.count - 1].frame.maxY - lines[0].frame.minY
      if whole + keepWithNext > remainingHeight + Self.epsilon { startNewPage() }
    }
    let links = layout.links
    var start = 0
    while start < lines.count {
      var end = Self.fittingEnd(lines, from: start, available: remainingHeight)
      if controlsWidows, end > start, end < lines.count {
        end = widowAndOrphanEnd(start: start, end: end, count: lines.count)
      }
      if end == start {
        guard isAtPageTop else {
          startNewPage()
          continue
        }
        // A single line taller than the page: place it anyway (it is clipped) rather than loop.
        end = start + 1
      }
      let run = placedRun(
        layout, lines: start..<end, x: left, top: cursor, role: role,
        blockIndex: blockIndex)
      if start == 0, let marker, let markerLine = marker.layout.lines.first {
        // On the first line's baseline, its right edge a gap before the text.
        let top = cursor + lines[0].baseline - lines[0].frame.minY - markerLine.baseline + markerLine.frame.minY
        elements.append(
          .text(
            placedRun(
              marker.layout, lines: 0..<1, x: left - (marker.layout.width ?? 0) - style.listMarkerGap, top: top,
              role: marker.role, blockIndex: blockIndex)))
      }
      elements.append(.text(run))
      addLinks(of: links, in: layout, lines: start..<end, run: run)
      cursor += run.frame.height
      start = end
      if start < lines.count { startNewPage() }
    }
  }

  /// Where a text of `count` lines breaks, given that lines `start..<end` fit on this page (and
  /// `end < count`): earlier to leave ``ReportStyle/widows`` lines for the next page, and at
  /// `start` (nothing here) when the first slice would have fewer than ``ReportStyle/orphans``
  /// lines. When that leaves nothing at the top of a page, the fitting end stands: the next page
  /// is no taller.
  private func widowAndOrphanEnd(start: Int, end: Int, count: Int) -> Int {
    // Clamped: the style is the caller's, and Int.min would overflow `count - widows`.
    let widows = min(max(style.widows, 1), count)
    let orphans = min(max(style.orphans, 1), count)
    var adjusted = end
    if count - adjusted < widows { adjusted = max(start, count - widows) }
    if start == 0, adjusted < orphans { adjusted = start }
    return adjusted == start && isAtPageTop ? end : adjusted
  }

  /// Link areas of `links` on the lines `range` of `layout`, placed where `run` put those lines.
  private mutating func addLinks(
    of links: [TextLink], in layout: TextLayout, lines range: Range<Int>, run: ReportTextRun
  ) {
    guard !links.isEmpty else { return }
    let lines = layout.lines
    let shiftY = run.frame.minY - lines[range.lowerBound].frame.minY
    let top = lines[range.lowerBound].frame.minY - Self.epsilon
    let bottom = lines[range.upperBound - 1].frame.maxY + Self.epsilon
    for link in links {
      for rect in link.rects where rect.minY >= top && rect.maxY <= bottom {
        elements.append(
          .link(
            Rect(x: run.frame.minX + rect.minX, y: rect.minY + shiftY, width: rect.width, height: rect.height),
            target: .url(link.target)))
      }
    }
  }
}
