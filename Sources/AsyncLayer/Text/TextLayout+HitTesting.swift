internal import CCairo

extension TextLayout {
  /// The text as laid out: markup removed, NUL characters replaced by U+FFFD. Hit-testing offsets
  /// and ``TextLine/utf8Offset`` count its bytes.
  public var text: String { String(cString: pango_layout_get_text(raw)) }

  /// The character at `point` (in points from the layout's top-left corner), or the nearest one of
  /// the shown lines when the point is outside the text. On an ellipsis it is the first character
  /// the ellipsis hides, in its trailing half when the point is past the ellipsis's middle.
  ///
  /// ```swift
  /// let layout = try TextLayout(.plain("Hello"), style: TextStyle(), width: 200)
  /// layout.position(at: Point(x: 1, y: 5)).utf8Offset  // 0, the "H"
  /// ```
  public func position(at point: Point) -> TextPosition {
    let shown = lines
    guard let first = shown.first, let last = shown.last else {
      return TextPosition(utf8Offset: 0, isInside: false, isInTrailingHalf: false, lineIndex: 0)
    }
    // Points beyond the shown lines, or not finite, snap to them: hidden lines are never hit.
    let y = point.y.isFinite ? min(max(point.y, first.frame.minY), last.frame.maxY - 0.01) : first.frame.minY
    let x = point.x.isFinite ? min(max(point.x, -Self.maximumLength), Self.maximumLength) : 0
    var index: Int32 = 0
    var trailing: Int32 = 0
    let onShownLine = point.y.isFinite && point.y >= first.frame.minY && point.y <= last.frame.maxY
    var lineNumber: Int32 = 0
    guard !pieces.isEmpty else {
      let inside = pango_layout_xy_to_index(raw, Self.units(x), Self.units(y), &index, &trailing)
      pango_layout_index_to_line_x(raw, index, 0, &lineNumber, nil)
      Self.snapToEllipsis(raw, line: lineNumber, index: &index, trailing: &trailing)
      return TextPosition(
        utf8Offset: Int(index), isInside: inside != 0 && onShownLine, isInTrailingHalf: trailing > 0,
        lineIndex: min(Int(lineNumber), shown.count - 1))
    }
    // In pieces: the piece of the shown line at `y`, in that piece's coordinates and offsets.
    let line = shown.last { $0.frame.minY <= y } ?? first
    guard let piece = piece(forLine: line.index) else {
      return TextPosition(utf8Offset: 0, isInside: false, isInTrailingHalf: false, lineIndex: 0)
    }
    let localY = Int64((y * Double(PANGO_SCALE)).rounded()) - piece.yOffset
    let localX = Self.units(x) &- piece.xOffset
    let inside = pango_layout_xy_to_index(piece.raw, localX, Int32(clamping: localY), &index, &trailing)
    pango_layout_index_to_line_x(piece.raw, index, 0, &lineNumber, nil)
    Self.snapToEllipsis(piece.raw, line: lineNumber, index: &index, trailing: &trailing)
    return TextPosition(
      utf8Offset: piece.byteOffset + Int(index), isInside: inside != 0 && onShownLine,
      isInTrailingHalf: trailing > 0, lineIndex: min(piece.firstLine + Int(lineNumber), shown.count - 1))
  }

  /// The box of the character starting at `utf8Offset` of ``text`` (its advance by the line's
  /// height; a right-to-left character's box is as wide, drawn leftwards), or nil for an offset
  /// outside the text, inside a character, or on a hidden line.
  ///
  /// ```swift
  /// let box = layout.characterFrame(atUTF8Offset: 0)  // the first character
  /// ```
  public func characterFrame(atUTF8Offset utf8Offset: Int) -> Rect? {
    guard let line = shownLine(containing: utf8Offset) else { return nil }
    var rect = PangoRectangle()
    let piece = pieces.isEmpty ? nil : piece(forLine: line.index)
    let local = utf8Offset - (piece?.byteOffset ?? 0)
    // The tail of an ellipsized text in pieces ends inside the hidden text (TextLayout+EllipsisTail).
    let pieceEnd = piece.map { Int(strlen(pango_layout_get_text($0.raw))) }
    if let pangoLine = pangoLine(line.index), let elided = Self.elidedRange(of: pangoLine),
      elided.contains(local) || (local >= elided.upperBound && elided.upperBound == pieceEnd)
    {
      // A hidden character's box is the ellipsis's (Pango would give a sliver of it, in proportion
      // to the characters hidden, which a layout in pieces lays out fewer of).
      var ranges: UnsafeMutablePointer<Int32>?
      var count: Int32 = 0
      pango_layout_line_get_x_ranges(
        pangoLine, Int32(elided.lowerBound), Int32(elided.upperBound), &ranges, &count)
      defer { g_free(ranges) }
      guard let ranges, count > 0 else { return nil }
      rect.x = ranges[0] &+ (piece?.xOffset ?? 0)
      rect.width = ranges[1] &- ranges[0]
    } else if let piece {
      pango_layout_index_to_pos(piece.raw, Int32(utf8Offset - piece.byteOffset), &rect)
      rect.x += piece.xOffset
    } else {
      pango_layout_index_to_pos(raw, Int32(utf8Offset), &rect)
    }
    let unit = Double(PANGO_SCALE)
    let x = Double(min(rect.x, rect.x + rect.width)) / unit
    return Rect(x: x, y: line.frame.minY, width: Double(abs(rect.width)) / unit, height: line.frame.height)
  }

  /// The index among ``lines`` of the shown line holding `utf8Offset`, or nil.
  public func lineIndex(containingUTF8Offset utf8Offset: Int) -> Int? { shownLine(containing: utf8Offset)?.index }

  /// The rectangles covering the characters of `range` (UTF-8 offsets of ``text``) on the shown
  /// lines: one per line, or more where right-to-left and left-to-right runs interleave. Each is as
  /// tall as its line. What a cell needs to make a span tappable or to draw a selection.
  ///
  /// ```swift
  /// for rect in layout.rects(forUTF8Range: 6..<11) { context.fill(rect, color: .yellow) }
  /// ```
  public func rects(forUTF8Range range: Range<Int>) -> [Rect] {
    let unit = Double(PANGO_SCALE)
    var result: [Rect] = []
    for line in lines {
      let start = max(range.lowerBound, line.utf8Offset)
      let end = min(range.upperBound, line.utf8Offset + line.utf8Length)
      guard start < end, let pangoLine = pangoLine(line.index) else { continue }
      // A piece's lines count bytes from the piece's start, and x from the piece's left.
      let piece = pieces.isEmpty ? nil : piece(forLine: line.index)
      let base = piece?.byteOffset ?? 0
      let shift = Double(piece?.xOffset ?? 0) / unit
      var localStart = start - base
      var localEnd = min(end - base, Int(pangoLine.pointee.start_index) + Int(pangoLine.pointee.length))
      // Hidden characters, any of them, cover the whole ellipsis (see characterFrame).
      if let elided = Self.elidedRange(of: pangoLine) {
        if elided.contains(localStart) { localStart = elided.lowerBound }
        if localEnd > elided.lowerBound { localEnd = max(localEnd, elided.upperBound) }
      }
      guard localStart < localEnd else { continue }
      var ranges: UnsafeMutablePointer<Int32>?
      var count: Int32 = 0
      pango_layout_line_get_x_ranges(pangoLine, Int32(localStart), Int32(localEnd), &ranges, &count)
      defer { g_free(ranges) }
      guard let ranges else { continue }
      for pair in 0..<Int(count) {
        let minX = Double(ranges[2 * pair]) / unit + shift
        let maxX = Double(ranges[2 * pair + 1]) / unit + shift
        guard maxX > minX else { continue }
        result.append(Rect(x: minX, y: line.frame.minY, width: maxX - minX, height: line.frame.height))
      }
    }
    return result
  }

  /// The links of attributed content and their rectangles on the shown lines.
  ///
  /// ```swift
  /// for link in layout.links { print(link.target, link.rects) }
  /// ```
  public var links: [TextLink] {
    spans.compactMap { span in
      guard let target = span.attributes.link else { return nil }
      let rects = rects(forUTF8Range: span.utf8Range)
      return rects.isEmpty ? nil : TextLink(target: target, utf8Range: span.utf8Range, rects: rects)
    }
  }

  /// The link under `point`, if any: the last span with a link that covers the character there.
  ///
  /// ```swift
  /// if let url = layout.link(at: tap) { open(url) }
  /// ```
  public func link(at point: Point) -> String? {
    let hit = position(at: point)
    guard hit.isInside else { return nil }
    return spans.last { $0.attributes.link != nil && $0.utf8Range.contains(hit.utf8Offset) }?.attributes.link
  }

  /// The shown line that holds the character starting at `utf8Offset`, when that offset is a
  /// character boundary of the text.
  private func shownLine(containing utf8Offset: Int) -> TextLine? {
    let length = Int(strlen(pango_layout_get_text(raw)))
    guard utf8Offset >= 0, utf8Offset < length else { return nil }
    guard let pointer = pango_layout_get_text(raw), UInt8(bitPattern: pointer[utf8Offset]) & 0xC0 != 0x80 else {
      return nil
    }
    return lines.first { utf8Offset >= $0.utf8Offset && utf8Offset < $0.utf8Offset + max($0.utf8Length, 1) }
  }

  /// The text an ellipsis on `line` hides, in its layout's byte offsets, or nil.
  static func elidedRange(of line: UnsafeMutablePointer<PangoLayoutLine>) -> Range<Int>? {
    var runs = line.pointee.runs
    while let run = runs {
      runs = run.pointee.next
      if let item = run.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self).pointee.item,
        item.pointee.analysis.flags & UInt8(PANGO_ANALYSIS_FLAG_IS_ELLIPSIS) != 0
      {
        return Int(item.pointee.offset)..<(Int(item.pointee.offset) + Int(item.pointee.length))
      }
    }
    return nil
  }

  /// Moves a hit on an ellipsis to the first character it hides: Pango picks one in proportion to
  /// the point's place on the ellipsis, among the characters hidden (which a layout in pieces
  /// lays out fewer of); trailing when past the middle.
  private static func snapToEllipsis(_ layout: OpaquePointer, line: Int32, index: inout Int32, trailing: inout Int32) {
    guard let pangoLine = pango_layout_get_line_readonly(layout, line),
      let elided = elidedRange(of: pangoLine), elided.contains(Int(index)), let text = pango_layout_get_text(layout)
    else { return }
    let before = g_utf8_strlen(text + elided.lowerBound, Int(index) - elided.lowerBound) + Int(trailing)
    let hidden = g_utf8_strlen(text + elided.lowerBound, elided.count)
    index = Int32(elided.lowerBound)
    trailing = 2 * before >= hidden ? 1 : 0
  }

  /// Points in Pango units; callers clamp to ``maximumLength`` first.
  private static func units(_ points: Double) -> Int32 {
    Int32(clamping: Int64((points * Double(PANGO_SCALE)).rounded()))
  }
}
