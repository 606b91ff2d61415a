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
// paragraph's first line, the attributes moved to the piece's offsets, and the delimiter after
// its last paragraph (Pango breaks a paragraph's last line differently at the end of a text).
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
    var lines: [UnsafeMutablePointer<PangoLayoutLine>]
  }

  /// A paragraph as Pango finds it: `start..<end` in bytes, the delimiter excluded.
  struct Paragraph {
    var start: Int
    var end: Int
    var length: Int { end - start }
  }

  /// True when this layout is computed in pieces: it wraps and is longer than two pieces, and has
  /// no ellipsis, an ellipsis per paragraph (``TextStyle/maxLines``, or no height:
  /// `TextLayout+PiecesLineLimit.swift`), or (for a draw, which reads only the shown lines) an
  /// ellipsis at the end of a text fitted to a height (`TextLayout+EllipsisTail.swift`). An
  /// ellipsis at the start or middle of a text fitted to a height shows the end of its paragraph:
  /// that keeps one layout.
  func laysOutInPieces(_ splitting: Splitting) -> Bool {
    // A vertical text is split as a horizontal one: its pieces' contexts keep its gravity (see
    // PieceBuilder.makeLayout), and Pango breaks its lines the same way.
    guard width != nil, let text = pango_layout_get_text(raw) else { return false }
    // Pango ellipsizes per paragraph with a line limit (``TextStyle/maxLines``, or one line per
    // paragraph without a height): pieces of whole paragraphs keep it (TextLayout+PiecesLineLimit).
    let perParagraph = style.maxLines > 0 || height == nil
    switch style.ellipsize {
    case .none: break
    case _ where perParagraph: break
    case .end: guard splitting.stopsAfterShownLines else { return false }
    case .start, .middle: return false
    }
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
    var builder = PieceBuilder(
      layout: self, text: text, baseContext: baseContext, splitting: splitting,
      attributes: PieceAttributes(pango_layout_get_attributes(raw)))
    if pango_layout_get_ellipsize(raw) != PANGO_ELLIPSIZE_NONE {
      // A negative height is Pango's limit of lines per paragraph (`TextLayout+PiecesLineLimit.swift`),
      // a positive one the height an ellipsis at the end fits (`TextLayout+EllipsisTail.swift`).
      let height = pango_layout_get_height(raw)
      if height < 0 { builder.lineLimit = Int(-Int64(height)) } else { builder.remaining = [] }
    }
    var finished = false
    defer { if !finished { for piece in builder.pieces { g_object_unref(UnsafeMutableRawPointer(piece.raw)) } } }
    var index = 0
    while index < paragraphs.count {
      if splitting.isCancelled() { throw CancellationError() }
      let paragraph = paragraphs[index]
      let next = index + 1 < paragraphs.count ? paragraphs[index + 1].start : nil
      // A hanging indent (negative) narrows every line but a paragraph's first: a piece that
      // continues a paragraph is narrower and shifted instead (see PieceBuilder.makeLayout).
      if paragraph.length > pieceBytes {
        try builder.addLongParagraph(paragraph, next: next, direction: resolved[index])
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
        // Laid out with the last paragraph's delimiter, as in one layout; the empty line after it
        // is dropped (see PieceBuilder.layoutEnd).
        let end = paragraphs[last].end
        let laidOut = PieceBuilder.layoutEnd(
          paragraphEnd: end, next: last + 1 < paragraphs.count ? paragraphs[last + 1].start : nil)
        builder.add(
          start: paragraph.start, end: laidOut, direction: forced, indented: true, keepsLastLine: laidOut == end,
          linesLeft: builder.lineLimit)
        index = last + 1
      }
      if builder.hasShownLines { break }
    }
    if let first = builder.tailLine {
      if splitting.isCancelled() { throw CancellationError() }
      try builder.addEllipsizedTail(from: first, paragraphs: paragraphs, own: own, resolved: resolved)
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

  /// Where the prefix of `start..<end` laid out next ends: ``cut(_:from:near:notBefore:)`` near
  /// `start + target`, or `end` when the rest is little more than that prefix (its last line
  /// would be laid out twice for nothing). The rest is compared with the prefix actually cut, not
  /// with `target`: a run without a space is cut 8 times shorter, and its last 6 KiB laid out as
  /// one piece took 85 ms (bench/results/cancel-latency.txt, 2026-11-26). A target of twice the
  /// rest or more (doubled because one line held a whole prefix) takes the rest.
  static func prefixEnd(_ text: UnsafePointer<CChar>, from start: Int, to end: Int, target: Int) -> Int {
    guard target / 2 < end - start else { return end }
    let near = start + min(target, end - start)
    guard near > start + 1 else { return end }
    let cut = cut(text, from: start, near: near, notBefore: start + (near - start) / 2)
    return end - cut > (cut - start) / 2 ? cut : end
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
