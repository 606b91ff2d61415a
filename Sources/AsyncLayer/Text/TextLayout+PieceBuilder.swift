internal import CCairo

/// Builds the pieces of one ``TextLayout``, keeping the running line index, vertical offset and
/// horizontal extents.
struct PieceBuilder {
  let layout: TextLayout
  let text: UnsafePointer<CChar>
  let baseContext: OpaquePointer
  let splitting: TextLayout.Splitting
  /// The whole layout's attributes, or nil without any.
  let attributes: PieceAttributes?
  var pieces: [TextLayout.Piece] = []
  var lines: [TextLine] = []
  /// The union of the lines' logical boxes across the width, in Pango units.
  var extents: (minX: Int64, maxX: Int64)? = nil
  /// The top of the next line, in Pango units of the whole layout.
  var yOffset: Int64 = 0
  /// Each kept line's logical height as Pango counts it against a layout's height
  /// (`pango_layout_line_get_extents`), in Pango units.
  var heights: [Int64] = []
  /// For a text ellipsized to a height: the height left before each kept line, as Pango counts it
  /// (see `TextLayout+EllipsisTail.swift`); nil for other texts.
  var remaining: [Int64]? = nil
  /// For a text ellipsized per paragraph (``TextStyle/maxLines``, or one line per paragraph without
  /// a height): Pango's limit of lines per paragraph; nil for other texts (see
  /// `TextLayout+PiecesLineLimit.swift`).
  var lineLimit: Int? = nil
  /// True once a kept piece holds an ellipsis.
  var hasEllipsis = false

  init(
    layout: TextLayout, text: UnsafePointer<CChar>, baseContext: OpaquePointer, splitting: TextLayout.Splitting,
    attributes: PieceAttributes?
  ) {
    self.layout = layout
    self.text = text
    self.baseContext = baseContext
    self.splitting = splitting
    self.attributes = attributes
  }

  /// True once the shown lines exist and the layout may stop (see ``TextLayout/Splitting``); for
  /// an ellipsized text, once the lines reach where its last lines are laid out as one layout.
  var hasShownLines: Bool {
    if remaining != nil { return tailLine != nil }
    guard splitting.stopsAfterShownLines, let last = lines.last else { return false }
    // Ellipsized per paragraph, hidden paragraphs count for ``TextLayout/isEllipsized``: the
    // layout goes on until one holds an ellipsis.
    if lineLimit != nil && !hasEllipsis { return false }
    if layout.style.maxLines > 0 && lines.count >= layout.style.maxLines { return true }
    if let height = layout.height, last.frame.maxY > height + 0.01 { return true }
    return false
  }

  /// Lays a paragraph longer than a piece out a prefix at a time. `next` is where the following
  /// paragraph starts (after this one's delimiter), nil for the text's last paragraph.
  mutating func addLongParagraph(_ paragraph: TextLayout.Paragraph, next: Int?, direction: PangoDirection) throws {
    let pieceBytes = max(1, splitting.pieceBytes)
    var start = paragraph.start
    var first = true
    // The paragraph's lines so far, against a per-paragraph line limit.
    var paragraphLines = 0
    while start < paragraph.end {
      var target = pieceBytes
      if let lineLimit, paragraphLines >= lineLimit - 1 {
        if !first, splitting.isCancelled() { throw CancellationError() }
        try addLineLimitTail(from: start, paragraph: paragraph, next: next, direction: direction, indented: first)
        return
      }
      while true {
        if !first || target > pieceBytes, splitting.isCancelled() { throw CancellationError() }
        let end = TextLayout.prefixEnd(text, from: start, to: paragraph.end, target: target)
        let isLast = end == paragraph.end
        // The paragraph's last piece ends with its delimiter, as in one layout (see
        // `layoutEnd(paragraphEnd:next:)`); the empty line after the delimiter is dropped.
        let laidOut = isLast ? Self.layoutEnd(paragraphEnd: end, next: next) : end
        let linesBefore = lines.count
        // Under a line limit, a prefix keeps the lines before the paragraph's last one; the piece
        // with the paragraph's end ellipsizes its own last line as one layout does.
        if let resume = add(
          start: start, end: laidOut, direction: direction, indented: first, keepsLastLine: isLast && laidOut == end,
          linesLeft: isLast ? lineLimit.map { $0 - paragraphLines } : nil,
          maxKept: isLast ? nil : lineLimit.map { $0 - 1 - paragraphLines })
        {
          paragraphLines += lines.count - linesBefore
          if isLast { return }
          start = resume
          first = false
          break
        }
        // One line holds the whole prefix: a longer one.
        target *= 2
      }
      if hasShownLines { return }
    }
  }

  /// Where a piece that ends with a paragraph is laid out to: past the paragraph's delimiter when
  /// another paragraph follows (`next`), so that the piece keeps the last line of its last paragraph
  /// with the line breaks of one layout, and the caller drops the empty line after the delimiter.
  ///
  /// Pango 1.50 breaks the last line of a paragraph differently at the end of a text than before a
  /// paragraph delimiter: a last line that ends in a space and is wider than the line with that
  /// space (but not without it) stays one line at the end of a text, and is broken in two before
  /// a delimiter. A paragraph laid out alone, without its delimiter, then came out one line shorter
  /// than in one layout: Latin, Arabic and Hebrew alike, with or without an indent, at a few widths
  /// that depend on the text (Pango 1.50.12; the "delimiter" cases of TextLayoutPiecesTests). It
  /// showed first on an Arabic paragraph under a hanging indent, whose widths happened to hit it.
  static func layoutEnd(paragraphEnd: Int, next: Int?) -> Int {
    guard let next, next > paragraphEnd else { return paragraphEnd }
    return next
  }

  /// Lays `start..<end` out as one piece and keeps its lines (all, or all but the last, which must
  /// leave at least one). Returns where the next piece starts, or nil (nothing kept) when a piece
  /// that drops its last line has fewer than two.
  /// `linesLeft`: the piece is ellipsized as the whole layout is, with this many lines for its first
  /// paragraph (and each other one); `maxKept`: at most this many lines are kept.
  @discardableResult
  mutating func add(
    start: Int, end: Int, direction: PangoDirection?, indented: Bool, keepsLastLine: Bool, linesLeft: Int? = nil,
    maxKept: Int? = nil
  ) -> Int? {
    let (raw, xOffset) = makeLayout(start: start, end: end, direction: direction, indented: indented)
    if let linesLeft {
      pango_layout_set_ellipsize(raw, pango_layout_get_ellipsize(layout.raw))
      pango_layout_set_height(raw, -Int32(clamping: max(1, linesLeft)))
    }
    return keep(raw, start: start, end: end, xOffset: xOffset, keepsLastLine: keepsLastLine, maxKept: maxKept)
  }

  /// Keeps the lines of `raw`, the layout of `start..<end` (all, or all but the last, which must
  /// leave at least one) and takes ownership of it. Returns where the next piece starts, or nil
  /// (`raw` freed) when nothing is kept.
  mutating func keep(
    _ raw: OpaquePointer, start: Int, end: Int, xOffset: Int32, keepsLastLine: Bool, maxKept: Int? = nil
  ) -> Int? {
    let count = Int(pango_layout_get_line_count(raw))
    let kept = min(keepsLastLine ? count : count - 1, maxKept ?? Int.max)
    guard kept >= 1 else {
      g_object_unref(UnsafeMutableRawPointer(raw))
      return nil
    }
    if pango_layout_is_ellipsized(raw) != 0 { hasEllipsis = true }
    PangoThreadState.current.retainFonts(of: raw)
    let unit = Double(PANGO_SCALE)
    let spacing = Int64(pango_layout_get_spacing(raw))
    let iterator = pango_layout_get_iter(raw)
    defer { pango_layout_iter_free(iterator) }
    var pangoLines: [UnsafeMutablePointer<PangoLayoutLine>] = []
    pangoLines.reserveCapacity(kept)
    let firstLine = lines.count
    var nextTop = yOffset
    var nextStart = end
    var index = 0
    repeat {
      let line = pango_layout_iter_get_line_readonly(iterator)!
      if index == kept {
        nextStart = start + Int(line.pointee.start_index)
        break
      }
      var ink = PangoRectangle()
      var logical = PangoRectangle()
      pango_layout_iter_get_line_extents(iterator, &ink, &logical)
      logical.x += xOffset
      ink.x += xOffset
      let baseline = Int64(pango_layout_iter_get_baseline(iterator)) + yOffset
      let top = Int64(logical.y) + yOffset
      let inkTop = Int64(ink.y) + yOffset
      lines.append(
        TextLine(
          index: lines.count,
          frame: Rect(
            x: Double(logical.x) / unit, y: Double(top) / unit, width: Double(logical.width) / unit,
            height: Double(logical.height) / unit),
          inkFrame: Rect(
            x: Double(ink.x) / unit, y: Double(inkTop) / unit, width: Double(ink.width) / unit,
            height: Double(ink.height) / unit),
          baseline: Double(baseline) / unit, utf8Offset: start + Int(line.pointee.start_index),
          utf8Length: Int(line.pointee.length)))
      pangoLines.append(line)
      var counted = PangoRectangle()
      pango_layout_line_get_extents(line, nil, &counted)
      if remaining != nil {
        let before = remaining!.last.map { $0 - heights.last! - spacing } ?? Int64(pango_layout_get_height(layout.raw))
        remaining!.append(before)
      }
      heights.append(Int64(counted.height))
      let minX = Int64(logical.x)
      let maxX = minX + Int64(logical.width)
      extents = extents.map { (min($0.minX, minX), max($0.maxX, maxX)) } ?? (minX, maxX)
      nextTop = top + Int64(logical.height) + spacing
      index += 1
    } while pango_layout_iter_next_line(iterator) != 0
    pieces.append(
      TextLayout.Piece(
        raw: raw, byteOffset: start, yOffset: yOffset, xOffset: xOffset, firstLine: firstLine, lines: pangoLines))
    yOffset = nextTop
    return nextStart
  }

  /// A layout of `start..<end` with the whole layout's settings, and how far right of its lines
  /// the whole layout puts them (Pango units).
  func makeLayout(
    start: Int, end: Int, direction: PangoDirection?, indented: Bool
  ) -> (OpaquePointer, xOffset: Int32) {
    let whole = layout.raw
    let contextDirection = pango_context_get_base_dir(baseContext)
    var context = baseContext
    if let direction, direction != contextDirection {
      context = PangoThreadState.current.context(
        scale: layout.scale, direction: direction, orientation: layout.style.orientation)
    }
    let raw = pango_layout_new(context)!
    pango_layout_set_text(raw, text + start, Int32(end - start))
    if let list = attributes?.list(start: start, end: end) {
      pango_layout_set_attributes(raw, list)
      pango_attr_list_unref(list)
    }
    pango_layout_set_font_description(raw, pango_layout_get_font_description(whole))
    pango_layout_set_width(raw, pango_layout_get_width(whole))
    pango_layout_set_wrap(raw, pango_layout_get_wrap(whole))
    var alignment = pango_layout_get_alignment(whole)
    if let direction {
      // The direction comes from the context. Pango swaps left and right for a line whose
      // direction is opposite to the context's only in auto-dir mode: the swap is done here.
      pango_layout_set_auto_dir(raw, 0)
      // Under a vertical (east) gravity Pango resolves every line left to right
      // (`line_set_resolved_dir`): nothing to swap.
      let lineDirection = direction == PANGO_DIRECTION_RTL || direction == PANGO_DIRECTION_WEAK_RTL ? -1 : 1
      if !layout.style.orientation.isVertical, lineDirection == -Self.simple(contextDirection) {
        if alignment == PANGO_ALIGN_LEFT {
          alignment = PANGO_ALIGN_RIGHT
        } else if alignment == PANGO_ALIGN_RIGHT {
          alignment = PANGO_ALIGN_LEFT
        }
      }
    }
    pango_layout_set_alignment(raw, alignment)
    pango_layout_set_justify(raw, pango_layout_get_justify(whole))
    pango_layout_set_spacing(raw, pango_layout_get_spacing(whole))
    let indent = pango_layout_get_indent(whole)
    if indented {
      pango_layout_set_indent(raw, indent)
    } else if indent < 0 && alignment != PANGO_ALIGN_CENTER {
      // Pango's process_line and get_x_offset: continuation lines are `-indent` narrower, moved
      // right when left aligned; right aligned, the narrower width already moves them. Centred
      // lines ignore the indent (width and offset) in Pango 1.50.
      pango_layout_set_width(raw, max(1, pango_layout_get_width(whole) + indent))
      return (raw, alignment == PANGO_ALIGN_RIGHT ? 0 : -indent)
    }
    return (raw, 0)
  }

  /// Pango's `direction_simple`: 1 left to right, -1 right to left, 0 neutral.
  private static func simple(_ direction: PangoDirection) -> Int {
    switch direction {
    case PANGO_DIRECTION_LTR, PANGO_DIRECTION_WEAK_LTR, PANGO_DIRECTION_TTB_RTL: return 1
    case PANGO_DIRECTION_RTL, PANGO_DIRECTION_WEAK_RTL, PANGO_DIRECTION_TTB_LTR: return -1
    default: return 0
    }
  }
}
