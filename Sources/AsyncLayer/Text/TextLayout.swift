internal import CCairo

/// One line of a ``TextLayout``, in points relative to the layout's top-left corner.
///
/// ```swift
/// let layout = try TextLayout(.plain(text), style: TextStyle(), width: 300)
/// for line in layout.lines { print(line.index, line.frame, line.baseline) }
/// ```
public struct TextLine: Sendable, Hashable {
  /// Position among all lines of the layout, from 0.
  public let index: Int
  /// The line's logical box (its full line height, including spacing above).
  public let frame: Rect
  /// The box of the line's drawn pixels (its ink), which can reach beyond ``frame`` (accents,
  /// italics) or be empty (a blank line).
  public let inkFrame: Rect
  /// Distance from the layout's top to this line's baseline.
  public let baseline: Double
  /// Where the line starts in the layout's text, as a UTF-8 byte offset (markup removed, and each
  /// NUL replaced by the three bytes of U+FFFD, see ``TextLayout``).
  public let utf8Offset: Int
  /// The line's length in UTF-8 bytes.
  public let utf8Length: Int
}

/// Text laid out by Pango for a width and a scale: its size, its lines, and what it draws.
///
/// Build layouts on the thread that draws them: a layout uses that thread's Pango context (see
/// ``DrawingContext/draw(_:at:)``) and is not `Sendable`.
///
/// Pango reads C strings, where a NUL (U+0000) would end the text: each NUL, in plain text and in
/// markup alike, is laid out and drawn as U+FFFD (the replacement character, a visible mark), so
/// what follows it is never lost. Line offsets count the three bytes of U+FFFD.
///
/// ```swift
/// let layout = try TextLayout(.markup("<b>Title</b> and body"), style: TextStyle(), width: 200, scale: 2)
/// layout.size            // points
/// layout.lines.count     // lines after wrapping
/// layout.unknownGlyphCount  // 0 when fonts cover every character
/// ```
public final class TextLayout {
  let raw: OpaquePointer
  /// The content laid out.
  public let content: TextContent
  /// The style it was laid out with.
  public let style: TextStyle
  /// The wrapping width in points, or nil for one unwrapped line per paragraph.
  public let width: Double?
  /// The height in points the layout must fit (ellipsizing what does not), or nil.
  public let height: Double?
  /// The device scale the glyphs are hinted for.
  public let scale: Double
  /// The limits the text was checked against.
  public let limits: TextLimits
  /// The spans of ``TextContent/attributed(_:)`` content at offsets of ``text`` (empty for other
  /// content).
  public let spans: [TextSpan]
  /// The layouts of a long text laid out in pieces (see `TextLayout+Pieces.swift`); empty when
  /// ``raw`` holds the whole layout. With pieces, ``raw`` holds the text and attributes and is
  /// never laid out itself.
  private(set) var pieces: [Piece] = []
  /// With pieces, the union of the kept lines' logical boxes across the width, in Pango units.
  private var pieceExtents: (minX: Int64, maxX: Int64)? = nil

  /// Lays out `content`; throws ``RenderError/invalidMarkup(_:)`` with Pango's message for bad
  /// markup, ``RenderError/invalidDimension(name:value:)`` for a width, height or scale that is
  /// not positive and finite, and ``RenderError/invalidValue(name:value:expected:)`` for a number
  /// Pango cannot represent (a width, height or line spacing beyond ``maximumLength``, a NaN or
  /// infinite line spacing, a negative ``TextStyle/maxLines``).
  ///
  /// Text over `limits` fails with ``RenderError/textTooLong(bytes:limit:)`` or
  /// ``RenderError/tooManyParagraphs(count:limit:)`` before Pango sees it, and text whose layout
  /// would overflow Pango's coordinates with ``RenderError/layoutTooLarge(dimension:points:limit:)``
  /// (see ``TextLimits``). The layout is computed here, so its metrics are ready when this returns.
  public convenience init(
    _ content: TextContent, style: TextStyle, width: Double?, height: Double? = nil, scale: Double = 1,
    limits: TextLimits = .default
  ) throws {
    try self.init(content, style: style, width: width, height: height, scale: scale, limits: limits, splitting: nil)
  }

  /// Lays out `content` as the public initializer does; a long text is laid out in pieces (see
  /// `TextLayout+Pieces.swift`), with `splitting`'s cancellation check between them.
  init(
    _ content: TextContent, style: TextStyle, width: Double?, height: Double? = nil, scale: Double = 1,
    limits: TextLimits = .default, splitting: Splitting?
  ) throws {
    let splitting = splitting ?? Splitting()
    // First: a 50 MB text fails here in microseconds instead of in a minute of layout.
    try limits.check(content.source)
    if let width { try ImageRenderer.validate(width, "width") }
    if let height { try ImageRenderer.validate(height, "height") }
    try ImageRenderer.validateScale(scale)
    try ImageRenderer.validate(style.fontSize, "font size")
    // FreeType cannot scale a face this large; catch it here rather than let Pango draw boxes.
    guard style.fontSize * scale <= TextLayout.maximumFontPixelSize else {
      throw RenderError.invalidDimension(
        name: "font size × scale (at most \(Int(TextLayout.maximumFontPixelSize)) pixels)",
        value: style.fontSize * scale)
    }
    let units = try PangoValues(style: style, width: width, height: height)
    try Self.checkStyleAttributes(style)
    if case .attributed(let text) = content { spans = try Self.layoutSpans(of: text) } else { spans = [] }
    self.content = content
    self.style = style
    self.width = width
    self.height = height
    self.scale = scale
    self.limits = limits
    let context = PangoThreadState.current.context(
      scale: scale, absoluteAlignment: style.alignment.isAbsolute, orientation: style.orientation)
    raw = pango_layout_new(context)
    try configure(units)
    if laysOutInPieces(splitting) {
      let laidOut = try layoutPieces(splitting)
      pieces = laidOut.pieces
      pieceExtents = laidOut.extents
      allLines = laidOut.lines
    }
    try checkExtents()
  }

  deinit {
    g_object_unref(UnsafeMutableRawPointer(raw))
    for piece in pieces { g_object_unref(UnsafeMutableRawPointer(piece.raw)) }
  }

  /// The largest font size in device pixels (`fontSize * scale`) a layout accepts.
  public static let maximumFontPixelSize: Double = 4096

  /// The longest length in points Pango can represent: its coordinates are 32-bit integers of
  /// 1/1024 point. A width, height or line spacing beyond it (either sign) is refused.
  public static let maximumLength = Double(Int32.max) / 1024

  /// The style's and the caller's numbers in Pango units, checked: Swift traps on a conversion
  /// that does not fit, so every number is range-checked here, with an error that names it.
  private struct PangoValues {
    var width: Int32?
    var height: Int32?
    var fontSize: Int32
    var spacing: Int32
    /// Pango's line limit (a negative height) or 0 for none.
    var maxLines: Int32

    init(style: TextStyle, width: Double?, height: Double?) throws {
      self.width = try width.map { try TextLayout.pangoUnits($0, "width") }
      self.height = try height.map { try TextLayout.pangoUnits($0, "height") }
      fontSize = try TextLayout.pangoUnits(style.fontSize, "font size")
      guard fontSize > 0 else {
        throw RenderError.invalidValue(
          name: "font size", value: "\(style.fontSize)", expected: "at least 1/1024 point")
      }
      spacing = try TextLayout.pangoUnits(style.lineSpacing, "line spacing")
      // More negative than half the font size, lines climb over the ones above them (and a tile
      // sized to the text collapses to a pixel).
      guard style.lineSpacing >= -style.fontSize / 2 else {
        throw RenderError.invalidValue(
          name: "line spacing", value: "\(style.lineSpacing)",
          expected:
            "at least minus half the font size (\(-style.fontSize / 2) points), so that lines do not climb over each other"
        )
      }
      guard style.maxLines >= 0 else {
        throw RenderError.invalidValue(name: "maxLines", value: "\(style.maxLines)", expected: "0 (no limit) or more")
      }
      // More lines than Pango can count is the same as no limit: clamping keeps that meaning.
      maxLines = Int32(clamping: style.maxLines)
    }
  }

  private func configure(_ units: PangoValues) throws {
    let attributes: OpaquePointer
    switch content {
    case .plain(let text):
      let text = Self.replacingNUL(text)
      pango_layout_set_text(raw, text, try Self.pangoLength(text))
      attributes = pango_attr_list_new()
    case .attributed(let attributed):
      let text = Self.replacingNUL(attributed.string)
      pango_layout_set_text(raw, text, try Self.pangoLength(text))
      attributes = pango_attr_list_new()
      do {
        try Self.insertSpanAttributes(spans, into: attributes, scale: scale)
      } catch {
        pango_attr_list_unref(attributes)
        throw error
      }
    case .markup(let markup):
      let markup = Self.replacingNUL(markup)
      var parsed: OpaquePointer?
      var text: UnsafeMutablePointer<CChar>?
      var error: UnsafeMutablePointer<GError>?
      guard pango_parse_markup(markup, try Self.pangoLength(markup), 0, &parsed, &text, nil, &error) != 0,
        let parsed, let text
      else {
        let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
        if let error { g_error_free(error) }
        throw RenderError.invalidMarkup(MarkupErrorPosition.rewrite(message, markup: markup))
      }
      pango_layout_set_text(raw, text, -1)
      g_free(text)
      attributes = parsed
    }
    defer { pango_attr_list_unref(attributes) }
    try Self.insertStyleAttributes(style, into: attributes)
    if style.orientation == .vertical, let text = pango_layout_get_text(raw) {
      Self.insertUprightEmoji(text, into: attributes)
    }
    pango_layout_set_attributes(raw, attributes)
    if style.firstLineIndent != 0 {
      pango_layout_set_indent(raw, try Self.pangoUnits(style.firstLineIndent, "first-line indent"))
    }

    let font = pango_font_description_new()
    pango_font_description_set_family(font, style.fontFamily)
    pango_font_description_set_size(font, units.fontSize)
    pango_font_description_set_weight(font, PangoWeight(UInt32(style.weight.rawValue)))
    pango_font_description_set_style(font, style.isItalic ? PANGO_STYLE_ITALIC : PANGO_STYLE_NORMAL)
    pango_layout_set_font_description(raw, font)
    pango_font_description_free(font)

    if let width = units.width { pango_layout_set_width(raw, width) }
    switch style.wrap {
    case .word:
      // Pango 1.50 finds words in Thai only; Lao, Khmer, Myanmar (and their neighbours) typed
      // without spaces would be one word wider than the line, drawn past the edge and cut. There
      // they break between grapheme clusters when a word does not fit.
      let unsegmented = pango_layout_get_text(raw).map(Self.hasScriptWithoutWordBreaks) ?? false
      pango_layout_set_wrap(raw, unsegmented ? PANGO_WRAP_WORD_CHAR : PANGO_WRAP_WORD)
    case .char: pango_layout_set_wrap(raw, PANGO_WRAP_CHAR)
    case .wordChar: pango_layout_set_wrap(raw, PANGO_WRAP_WORD_CHAR)
    }
    // Pango's LEFT is the start of a paragraph and RIGHT its end, except in the neutral-direction
    // context of absolute alignments (see PangoThreadState.context), where they are the edges.
    switch style.alignment {
    case .natural, .leading, .left: pango_layout_set_alignment(raw, PANGO_ALIGN_LEFT)
    case .trailing, .right: pango_layout_set_alignment(raw, PANGO_ALIGN_RIGHT)
    case .center: pango_layout_set_alignment(raw, PANGO_ALIGN_CENTER)
    case .justify:
      pango_layout_set_alignment(raw, PANGO_ALIGN_LEFT)
      pango_layout_set_justify(raw, 1)
    }
    if units.spacing != 0 { pango_layout_set_spacing(raw, units.spacing) }
    switch style.ellipsize {
    case .none: break
    case .start: pango_layout_set_ellipsize(raw, PANGO_ELLIPSIZE_START)
    case .middle: pango_layout_set_ellipsize(raw, PANGO_ELLIPSIZE_MIDDLE)
    case .end: pango_layout_set_ellipsize(raw, PANGO_ELLIPSIZE_END)
    }
    // Pango limits lines (negative height) or height only while ellipsizing; without an ellipsis
    // the extra lines are cut off in `visibleLineCount` instead.
    if style.ellipsize != .none {
      if units.maxLines > 0 {
        pango_layout_set_height(raw, -units.maxLines)
      } else if let height = units.height {
        pango_layout_set_height(raw, height)
      }
    }
  }

  /// The length Pango takes, a 32-bit byte count: text limits raised past 2 GiB still fail here,
  /// with an error rather than a trap.
  private static func pangoLength(_ text: String) throws -> Int32 {
    let bytes = text.utf8.count
    guard let length = Int32(exactly: bytes) else { throw RenderError.textTooLong(bytes: bytes, limit: Int(Int32.max)) }
    return length
  }

  /// `text` with each U+0000 replaced by U+FFFD: Pango would stop reading at the NUL.
  static func replacingNUL(_ text: String) -> String {
    // Over the contiguous bytes of a native string: the generic scan of the UTF-8 view cost ~30
    // instructions a byte.
    let hasNUL = text.utf8.withContiguousStorageIfAvailable { $0.contains(0) } ?? text.utf8.contains(0)
    guard hasNUL else { return text }
    var scalars = String.UnicodeScalarView()
    for scalar in text.unicodeScalars { scalars.append(scalar == "\u{0}" ? "\u{FFFD}" : scalar) }
    return String(scalars)
  }

  /// Refuses a layout Pango could not represent: a line whose glyphs are wider than its 32-bit
  /// units (Pango's sums overflow and the paragraph collapses to an empty line instead of wrapping),
  /// or lines whose total height is beyond them (later lines would be drawn over earlier ones).
  private func checkExtents() throws {
    if pieces.isEmpty {
      var lines = pango_layout_get_lines_readonly(raw)
      while let node = lines {
        if let line = node.pointee.data?.assumingMemoryBound(to: PangoLayoutLine.self) { try Self.checkWidth(of: line) }
        lines = node.pointee.next
      }
    } else {
      for piece in pieces { for line in piece.lines { try Self.checkWidth(of: line) } }
    }
    // Heights and spacing summed exactly here, where Pango's own sum would wrap around.
    let all = allLines
    let height = all.reduce(0) { $0 + $1.frame.height } + style.lineSpacing * Double(max(0, all.count - 1))
    guard height <= Self.maximumLength else {
      throw RenderError.layoutTooLarge(dimension: "tall", points: height, limit: Self.maximumLength)
    }
  }

  /// Refuses a line whose glyphs are wider than Pango's 32-bit units.
  private static func checkWidth(of line: UnsafeMutablePointer<PangoLayoutLine>) throws {
    var width: Int64 = 0
    var runs = line.pointee.runs
    while let run = runs {
      if let glyphs = run.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self).pointee.glyphs {
        for index in 0..<Int(glyphs.pointee.num_glyphs) {
          width += Int64(glyphs.pointee.glyphs[index].geometry.width)
        }
      }
      runs = run.pointee.next
    }
    guard width <= Int64(Int32.max) else {
      throw RenderError.layoutTooLarge(
        dimension: "wide (one paragraph before wrapping)", points: Double(width) / Double(PANGO_SCALE),
        limit: maximumLength)
    }
  }

  // MARK: Metrics

  /// All lines of the layout after wrapping and ellipsizing.
  public private(set) lazy var allLines: [TextLine] = computeLines()

  /// The lines that are shown: all of them, or the first ``TextStyle/maxLines``, and only those
  /// that fit ``height`` when one is given.
  public private(set) lazy var lines: [TextLine] = {
    var shown = allLines
    if style.maxLines > 0 && shown.count > style.maxLines { shown.removeLast(shown.count - style.maxLines) }
    if let height {
      // Keep at least one line so that a tile shorter than a line still shows the start.
      while shown.count > 1, let last = shown.last, last.frame.maxY > height + 0.01 { shown.removeLast() }
    }
    return shown
  }()

  /// The logical size of the shown lines, in points.
  public private(set) lazy var size: Size = {
    let width: Double
    if pieces.isEmpty {
      var logical = PangoRectangle()
      pango_layout_get_extents(raw, nil, &logical)
      width = Double(logical.width) / Double(PANGO_SCALE)
    } else {
      // Pango's logical width with a wrapping width: the union of the lines' boxes.
      width = pieceExtents.map { Double($0.maxX - $0.minX) / Double(PANGO_SCALE) } ?? 0
    }
    guard let last = lines.last else { return Size(width: 0, height: 0) }
    return Size(width: width, height: last.frame.maxY)
  }()

  /// The number of characters laid out (markup removed).
  var characterCount: Int { Int(pango_layout_get_character_count(raw)) }

  /// Characters no installed font could draw (shown as boxes). Non-zero means a missing font.
  public var unknownGlyphCount: Int {
    pieces.isEmpty ? Int(pango_layout_get_unknown_glyphs_count(raw)) : pieceUnknownGlyphCount()
  }

  /// True when Pango replaced text with an ellipsis.
  public var isEllipsized: Bool {
    // In pieces: the tail of a text ellipsized to a height, or any piece of one ellipsized per
    // paragraph (TextLayout+PiecesLineLimit).
    pieces.isEmpty ? pango_layout_is_ellipsized(raw) != 0 : pieces.contains { pango_layout_is_ellipsized($0.raw) != 0 }
  }

  private func computeLines() -> [TextLine] {
    PangoThreadState.current.retainFonts(of: raw)
    var result: [TextLine] = []
    let iterator = pango_layout_get_iter(raw)
    defer { pango_layout_iter_free(iterator) }
    let unit = Double(PANGO_SCALE)
    repeat {
      var ink = PangoRectangle()
      var logical = PangoRectangle()
      pango_layout_iter_get_line_extents(iterator, &ink, &logical)
      let baseline = Double(pango_layout_iter_get_baseline(iterator)) / unit
      let line = pango_layout_iter_get_line_readonly(iterator)!
      result.append(
        TextLine(
          index: result.count,
          frame: Rect(
            x: Double(logical.x) / unit, y: Double(logical.y) / unit, width: Double(logical.width) / unit,
            height: Double(logical.height) / unit),
          inkFrame: Rect(
            x: Double(ink.x) / unit, y: Double(ink.y) / unit, width: Double(ink.width) / unit,
            height: Double(ink.height) / unit),
          baseline: baseline, utf8Offset: Int(line.pointee.start_index), utf8Length: Int(line.pointee.length)))
    } while pango_layout_iter_next_line(iterator) != 0
    return result
  }

  /// True when the UTF-8 text has letters of a script written without spaces that Pango 1.50 has
  /// no dictionary for: Lao (U+0E80–0EFF), Myanmar (U+1000–109F, U+A9E0–A9FF, U+AA60–AA7F) and
  /// Khmer (U+1780–17FF, U+19E0–19FF), with the neighbours that share their lead bytes.
  static func hasScriptWithoutWordBreaks(_ text: UnsafePointer<CChar>) -> Bool {
    var byte = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
    while byte.pointee != 0 {
      let lead = byte.pointee
      if lead == 0xE0 || lead == 0xE1 || lead == 0xEA {
        let second = byte[1]
        switch (lead, second) {
        case (0xE0, 0xBA...0xBB), (0xE1, 0x80...0x82), (0xE1, 0x9E...0x9F), (0xE1, 0xA7), (0xEA, 0xA7), (0xEA, 0xA9):
          return true
        default: break
        }
        if second == 0 { return false }
      }
      byte += 1
    }
    return false
  }
}
