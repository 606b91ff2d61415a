internal import CCairo

// A long text laid out as a sequence of Pango layouts, so that a draw can be cancelled between
// them: Pango lays a paragraph out in one call that nothing interrupts (a 256 KiB paragraph took
// 0.4–1.5 s from cancel to throw in one layout).
//
// Whole paragraphs are grouped into pieces of about `pieceBytes`; a longer paragraph is laid out
// a prefix at a time (cut after a space where there is one): every line of the prefix but the last
// is kept, and the next piece starts where that last line started. Pango breaks lines greedily,
// one line at a time, so the kept lines are those of one layout of the whole text. A piece keeps
// what Pango would have given its paragraphs in one layout: their resolved base direction (a
// paragraph without a strong character takes the previous one's), the first-line indent only on a
// paragraph's first line, and the attributes moved to the piece's offsets.
extension TextLayout {
  /// How many UTF-8 bytes of text one piece holds. Measured on this project's 2-core machine
  /// (bench/cancel-latency, bench/results/cancel-latency.txt): 4 KiB of Latin prose in one
  /// paragraph at 375 points lays out in about 3 ms.
  static let defaultPieceBytes = 4 << 10

  /// How a layout is computed: the cancellation check between pieces, whether lines past the
  /// shown ones are laid out, and the piece size (tests force small pieces).
  struct Splitting {
    /// Called before each piece; true stops the layout with `CancellationError`.
    var isCancelled: () -> Bool = { false }
    /// True: a text laid out in pieces stops once its shown lines exist (``TextStyle/maxLines``,
    /// or lines past ``TextLayout/height``). ``TextLayout/allLines`` then ends there, and
    /// ``TextLayout/size`` and ``TextLayout/unknownGlyphCount`` cover the lines laid out. For
    /// draws only, where nothing reads the hidden lines.
    var stopsAfterShownLines = false
    /// Bytes per piece; a text up to twice this long is one layout.
    var pieceBytes = TextLayout.defaultPieceBytes
  }

  /// One Pango layout of a text laid out in pieces, and the lines of it the text keeps.
  struct Piece {
    /// The piece's layout; the ``TextLayout`` owns it.
    let raw: OpaquePointer
    /// Where the piece's text starts in ``TextLayout/text``, in bytes.
    let byteOffset: Int
    /// Where its first line's top lies in the whole layout, in Pango units.
    let yOffset: Int64
    /// How far its lines lie right of where its layout puts them, in Pango units: the hanging
    /// indent of a paragraph's continuation, which the piece's own (narrower) layout leaves out.
    var xOffset: Int32 = 0
    /// The index of its first kept line among all lines.
    let firstLine: Int
    /// The lines kept (a last line cut short by the end of a prefix is not).
    let lines: [UnsafeMutablePointer<PangoLayoutLine>]
  }

  /// A paragraph as Pango finds it: `start..<end` in bytes, the delimiter excluded.
  struct Paragraph {
    var start: Int
    var end: Int
    var length: Int { end - start }
  }

  /// True when this layout is computed in pieces: it wraps, has no ellipsis (an ellipsized line
  /// takes the rest of its paragraph, which only one layout can measure) and is longer than two
  /// pieces.
  ///
  /// A hanging indent (a negative first-line indent) keeps one layout too: with a right-to-left
  /// paragraph in the text, pieces gave one line fewer than one layout (found 2026-11-26 by the
  /// "Latin and Arabic" cases of TextLayoutPiecesTests, cause not yet understood).
  func laysOutInPieces(_ splitting: Splitting) -> Bool {
    guard width != nil, style.ellipsize == .none, style.firstLineIndent >= 0, let text = pango_layout_get_text(raw)
    else { return false }
    return strlen(text) / 2 > max(1, splitting.pieceBytes)
  }

  /// The pieces, their lines and the union of the lines' logical boxes across the width (Pango units).
  struct Pieces {
    var pieces: [Piece] = []
    var lines: [TextLine] = []
    var extents: (minX: Int64, maxX: Int64)? = nil
  }

  /// Lays the text of ``raw`` (configured, never laid out itself) out in pieces. On an error the
  /// pieces made so far are freed.
  func layoutPieces(_ splitting: Splitting) throws -> Pieces {
    guard let text = pango_layout_get_text(raw), let baseContext = pango_layout_get_context(raw) else {
      return Pieces()
    }
    let length = Int(strlen(text))
    let pieceBytes = max(1, splitting.pieceBytes)
    let paragraphs = Self.paragraphs(of: text, length: length)
    let contextDirection = pango_context_get_base_dir(baseContext)
    // Each paragraph's own direction (its first strong character), and the one Pango resolves:
    // a neutral paragraph takes the previous paragraph's, the first ones the text's first strong.
    let own = paragraphs.map { asynclayer_find_base_dir(text + $0.start, Int32($0.length)) }
    var resolved = own
    var previous = own.first { $0 != PANGO_DIRECTION_NEUTRAL } ?? contextDirection
    for index in resolved.indices {
      if own[index] == PANGO_DIRECTION_NEUTRAL { resolved[index] = previous } else { previous = own[index] }
    }
    let indent = pango_layout_get_indent(raw)
    let splitsHangingIndent =
      pango_layout_get_alignment(raw) != PANGO_ALIGN_CENTER
      && resolved.allSatisfy { $0 == PANGO_DIRECTION_LTR || $0 == PANGO_DIRECTION_WEAK_LTR }
    var builder = PieceBuilder(
      layout: self, text: text, baseContext: baseContext, splitting: splitting,
      attributes: PieceAttributes(pango_layout_get_attributes(raw)))
    var finished = false
    defer { if !finished { for piece in builder.pieces { g_object_unref(UnsafeMutableRawPointer(piece.raw)) } } }
    var index = 0
    while index < paragraphs.count {
      if splitting.isCancelled() { throw CancellationError() }
      let paragraph = paragraphs[index]
      // A hanging indent (negative) narrows every line but a paragraph's first: a piece that
      // continues a paragraph is narrower and shifted instead. Centred lines ignore the indent in
      // Pango's offset but not in their width, with a rounding a piece cannot repeat, and a text
      // with right-to-left paragraphs lost a line in the tests (not yet understood): there each
      // paragraph stays one piece.
      if paragraph.length > pieceBytes && (indent >= 0 || splitsHangingIndent) {
        try builder.addLongParagraph(paragraph, direction: resolved[index])
        index += 1
      } else {
        // A piece that starts with a neutral paragraph would take its direction from a later
        // paragraph of the piece: it is laid out with the resolved direction, and holds only
        // paragraphs that resolve to it.
        let forced: PangoDirection? = own[index] == PANGO_DIRECTION_NEUTRAL ? resolved[index] : nil
        var last = index
        while last + 1 < paragraphs.count, paragraphs[last + 1].length <= pieceBytes,
          paragraphs[last + 1].end - paragraph.start <= pieceBytes,
          forced == nil || resolved[last + 1] == forced
        {
          last += 1
        }
        builder.add(
          start: paragraph.start, end: paragraphs[last].end, direction: forced, indented: true, keepsLastLine: true)
        index = last + 1
      }
      if builder.hasShownLines { break }
    }
    finished = true
    return Pieces(pieces: builder.pieces, lines: builder.lines, extents: builder.extents)
  }

  /// Pango's paragraphs, found as `pango_layout_check_lines` finds them.
  static func paragraphs(of text: UnsafePointer<CChar>, length: Int) -> [Paragraph] {
    var result: [Paragraph] = []
    var start = 0
    while true {
      var delimiter: Int32 = 0
      var next: Int32 = 0
      pango_find_paragraph_boundary(text + start, Int32(length - start), &delimiter, &next)
      result.append(Paragraph(start: start, end: start + Int(delimiter)))
      if start + Int(delimiter) >= length || next <= 0 { break }
      start += Int(next)
    }
    return result
  }

  /// How many times smaller a prefix is when it holds no space: Pango's line breaking costs grow
  /// with the square of a run without break opportunities (a 4 KiB prefix of a Latin run wrapped
  /// with `.wordChar` took 70 ms; bench/results/cancel-latency.txt has the figures since).
  static let unbrokenDivisor = 8

  /// Where to end a prefix near `target`: after the last space in `lowerBound..<target`; without
  /// one, at the character boundary at or before `start + (target - start) / unbrokenDivisor`
  /// (and after `start`). Only the prefix's last line (dropped) sees the cut.
  static func cut(_ text: UnsafePointer<CChar>, from start: Int, near target: Int, notBefore lowerBound: Int) -> Int {
    let bytes = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
    var index = target
    while index > lowerBound {
      if bytes[index - 1] == 0x20 { return index }
      index -= 1
    }
    index = start + max(1, (target - start) / unbrokenDivisor)
    while index > start + 1, bytes[index] & 0xC0 == 0x80 { index -= 1 }
    return index
  }

  /// The line of index `index` among all lines: from its piece when the text is in pieces.
  func pangoLine(_ index: Int) -> UnsafeMutablePointer<PangoLayoutLine>? {
    guard !pieces.isEmpty else { return pango_layout_get_line_readonly(raw, Int32(clamping: index)) }
    guard let piece = piece(forLine: index) else { return nil }
    return piece.lines[index - piece.firstLine]
  }

  /// The piece holding line `index`.
  func piece(forLine index: Int) -> Piece? {
    guard index >= 0, let last = pieces.last, index < last.firstLine + last.lines.count else { return nil }
    var low = 0
    var high = pieces.count - 1
    while low < high {
      let middle = (low + high + 1) / 2
      if pieces[middle].firstLine <= index { low = middle } else { high = middle - 1 }
    }
    return pieces[low]
  }

  /// Glyphs drawn as boxes on the kept lines of the pieces (as Pango counts them for a layout).
  func pieceUnknownGlyphCount() -> Int {
    var count = 0
    for piece in pieces {
      for line in piece.lines {
        var runs = line.pointee.runs
        while let node = runs {
          runs = node.pointee.next
          guard let glyphs = node.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self).pointee.glyphs else {
            continue
          }
          for index in 0..<Int(glyphs.pointee.num_glyphs)
          where glyphs.pointee.glyphs[index].glyph & PANGO_GLYPH_UNKNOWN_FLAG != 0 {
            count += 1
          }
        }
      }
    }
    return count
  }
}

/// Builds the pieces of one ``TextLayout``, keeping the running line index, vertical offset and
/// horizontal extents.
private struct PieceBuilder {
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

  /// True once the shown lines exist and the layout may stop (see ``TextLayout/Splitting``).
  var hasShownLines: Bool {
    guard splitting.stopsAfterShownLines, let last = lines.last else { return false }
    if layout.style.maxLines > 0 && lines.count >= layout.style.maxLines { return true }
    if let height = layout.height, last.frame.maxY > height + 0.01 { return true }
    return false
  }

  /// Lays a paragraph longer than a piece out a prefix at a time.
  mutating func addLongParagraph(_ paragraph: TextLayout.Paragraph, direction: PangoDirection) throws {
    let pieceBytes = max(1, splitting.pieceBytes)
    var start = paragraph.start
    var first = true
    while start < paragraph.end {
      var target = pieceBytes
      while true {
        if !first || target > pieceBytes, splitting.isCancelled() { throw CancellationError() }
        var end = paragraph.end
        // Not a prefix when the rest is little more than a piece: the last line would be redone.
        if paragraph.end - start > target + target / 2 {
          end = TextLayout.cut(text, from: start, near: start + target, notBefore: start + target / 2)
        }
        let isLast = end == paragraph.end
        if let next = add(start: start, end: end, direction: direction, indented: first, keepsLastLine: isLast) {
          if isLast { return }
          start = next
          first = false
          break
        }
        // One line holds the whole prefix: a longer one.
        target *= 2
      }
      if hasShownLines { return }
    }
  }

  /// Lays `start..<end` out as one piece and keeps its lines (all, or all but the last, which must
  /// leave at least one). Returns where the next piece starts, or nil (nothing kept) when a piece
  /// that drops its last line has fewer than two.
  @discardableResult
  mutating func add(start: Int, end: Int, direction: PangoDirection?, indented: Bool, keepsLastLine: Bool) -> Int? {
    let (raw, xOffset) = makeLayout(start: start, end: end, direction: direction, indented: indented)
    let count = Int(pango_layout_get_line_count(raw))
    let kept = keepsLastLine ? count : count - 1
    guard kept >= 1 else {
      g_object_unref(UnsafeMutableRawPointer(raw))
      return nil
    }
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
  private func makeLayout(
    start: Int, end: Int, direction: PangoDirection?, indented: Bool
  ) -> (OpaquePointer, xOffset: Int32) {
    let whole = layout.raw
    let contextDirection = pango_context_get_base_dir(baseContext)
    var context = baseContext
    if let direction, direction != contextDirection {
      context = PangoThreadState.current.context(scale: layout.scale, direction: direction)
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
      let lineDirection = direction == PANGO_DIRECTION_RTL || direction == PANGO_DIRECTION_WEAK_RTL ? -1 : 1
      if lineDirection == -Self.simple(contextDirection) {
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
    } else if indent < 0 {
      // Pango's get_x_offset: continuation lines are `-indent` narrower, moved right when left
      // aligned; right aligned, the narrower width already moves them.
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
