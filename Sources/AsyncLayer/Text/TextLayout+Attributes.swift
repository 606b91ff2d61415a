internal import CCairo

extension TextLayout {
  /// The style-wide numbers of ``TextStyle`` that become Pango attributes, checked: each is
  /// refused with ``RenderError/invalidValue(name:value:expected:)`` before any conversion.
  static func checkStyleAttributes(_ style: TextStyle) throws {
    guard style.lineHeight.isFinite, (0.25...10).contains(style.lineHeight) else {
      throw RenderError.invalidValue(
        name: "line height", value: "\(style.lineHeight)",
        expected: "a multiple of the natural line height from 0.25 to 10")
    }
    guard style.letterSpacing.isFinite, style.letterSpacing >= -style.fontSize, style.letterSpacing <= 1000 else {
      throw RenderError.invalidValue(
        name: "letter spacing", value: "\(style.letterSpacing)",
        expected: "points from minus the font size (\(-style.fontSize)) to 1000")
    }
    _ = try pangoUnits(style.firstLineIndent, "first-line indent")
  }

  /// Attributes that apply to the whole text, inserted before the content's own so that markup
  /// and spans override them.
  static func insertStyleAttributes(_ style: TextStyle, into list: OpaquePointer) throws {
    if let language = style.language {
      pango_attr_list_insert_before(list, pango_attr_language_new(pango_language_from_string(language)))
    }
    if style.lineHeight != 1 { pango_attr_list_insert_before(list, pango_attr_line_height_new(style.lineHeight)) }
    if style.letterSpacing != 0 {
      pango_attr_list_insert_before(
        list, pango_attr_letter_spacing_new(try pangoUnits(style.letterSpacing, "letter spacing")))
    }
    if !style.hyphenates { pango_attr_list_insert_before(list, pango_attr_insert_hyphens_new(0)) }
  }

  /// `points` in Pango units, or an error naming `name` when it is not finite or beyond Pango's range.
  static func pangoUnits(_ points: Double, _ name: String) throws -> Int32 {
    let units = (points * Double(PANGO_SCALE)).rounded()
    guard units.isFinite, abs(units) <= Double(Int32.max) else {
      throw RenderError.invalidValue(
        name: name, value: "\(points)",
        expected: "a finite number of points within ±\(Int(TextLayout.maximumLength)) (Pango's coordinate range)")
    }
    return Int32(units)
  }

  /// The spans of `text` checked and moved to the laid-out text's byte offsets (each NUL became
  /// the three bytes of U+FFFD there).
  static func layoutSpans(of text: AttributedText) throws -> [TextSpan] {
    guard !text.spans.isEmpty else { return [] }
    guard text.spans.count <= AttributedText.maximumSpanCount else {
      throw RenderError.invalidValue(
        name: "span count", value: "\(text.spans.count)", expected: "at most \(AttributedText.maximumSpanCount)")
    }
    let bytes = Array(text.string.utf8)
    let nulOffsets = bytes.indices.filter { bytes[$0] == 0 }
    func isBoundary(_ offset: Int) -> Bool { offset == bytes.count || bytes[offset] & 0xC0 != 0x80 }
    func moved(_ offset: Int) -> Int {
      guard !nulOffsets.isEmpty else { return offset }
      var low = 0
      var high = nulOffsets.count
      while low < high {
        let middle = (low + high) / 2
        if nulOffsets[middle] < offset { low = middle + 1 } else { high = middle }
      }
      return offset + 2 * low
    }
    return try text.spans.enumerated().map { index, span in
      let range = span.utf8Range
      guard range.lowerBound >= 0, range.upperBound <= bytes.count, isBoundary(range.lowerBound),
        isBoundary(range.upperBound)
      else {
        throw RenderError.invalidValue(
          name: "span \(index) range", value: "\(range)",
          expected: "UTF-8 offsets within 0...\(bytes.count) on character boundaries")
      }
      return TextSpan(utf8Range: moved(range.lowerBound)..<moved(range.upperBound), attributes: span.attributes)
    }
  }

  /// Adds the Pango attributes of `spans` (already at layout offsets) to `list`, later spans after
  /// earlier ones so that they win where they overlap.
  static func insertSpanAttributes(_ spans: [TextSpan], into list: OpaquePointer, scale: Double) throws {
    for (index, span) in spans.enumerated() where !span.utf8Range.isEmpty {
      let start = UInt32(span.utf8Range.lowerBound)
      let end = UInt32(span.utf8Range.upperBound)
      for attribute in try pangoAttributes(span.attributes, name: "span \(index)", scale: scale) {
        attribute.pointee.start_index = start
        attribute.pointee.end_index = end
        pango_attr_list_insert(list, attribute)
      }
    }
  }

  /// New Pango attributes for `attributes` (the caller owns them), its numbers checked first.
  private static func pangoAttributes(_ attributes: TextAttributes, name: String, scale: Double) throws
    -> [UnsafeMutablePointer<PangoAttribute>]
  {
    // Check every number before creating anything, so an error leaks no attribute.
    var size: Int32?
    if let fontSize = attributes.fontSize {
      guard fontSize.isFinite, fontSize > 0, fontSize * scale <= maximumFontPixelSize else {
        throw RenderError.invalidValue(
          name: "\(name) font size", value: "\(fontSize)",
          expected: "points above 0, at most \(Int(maximumFontPixelSize)) pixels at scale \(scale)")
      }
      size = max(1, try pangoUnits(fontSize, "\(name) font size"))
    }
    let spacing = try attributes.letterSpacing.map { try bounded($0, "\(name) letter spacing") }
    let rise = try attributes.baselineShift.map { try bounded($0, "\(name) baseline shift") }

    var made: [UnsafeMutablePointer<PangoAttribute>] = []
    if let family = attributes.fontFamily { made.append(pango_attr_family_new(family)) }
    if let size { made.append(pango_attr_size_new(size)) }
    if let weight = attributes.weight { made.append(pango_attr_weight_new(PangoWeight(UInt32(weight.rawValue)))) }
    if let italic = attributes.isItalic {
      made.append(pango_attr_style_new(italic ? PANGO_STYLE_ITALIC : PANGO_STYLE_NORMAL))
    }
    if let color = attributes.color?.clamped {
      made.append(pango_attr_foreground_new(channel(color.red), channel(color.green), channel(color.blue)))
      made.append(pango_attr_foreground_alpha_new(max(1, channel(color.alpha))))
    }
    if let color = attributes.backgroundColor?.clamped {
      made.append(pango_attr_background_new(channel(color.red), channel(color.green), channel(color.blue)))
      made.append(pango_attr_background_alpha_new(max(1, channel(color.alpha))))
    }
    if let underline = attributes.underline {
      let kind: PangoUnderline
      switch underline {
      case .none: kind = PANGO_UNDERLINE_NONE
      case .single: kind = PANGO_UNDERLINE_SINGLE
      case .double: kind = PANGO_UNDERLINE_DOUBLE
      case .error: kind = PANGO_UNDERLINE_ERROR
      }
      made.append(pango_attr_underline_new(kind))
    }
    if let strikethrough = attributes.strikethrough { made.append(pango_attr_strikethrough_new(strikethrough ? 1 : 0)) }
    if let spacing { made.append(pango_attr_letter_spacing_new(spacing)) }
    if let rise { made.append(pango_attr_rise_new(rise)) }
    return made
  }

  /// Letter spacing and baseline shift: finite and within ±1000 points.
  private static func bounded(_ points: Double, _ name: String) throws -> Int32 {
    guard points.isFinite, abs(points) <= 1000 else {
      throw RenderError.invalidValue(name: name, value: "\(points)", expected: "points from -1000 to 1000")
    }
    return try pangoUnits(points, name)
  }

  /// A colour channel from 0...1 (already clamped) on Pango's 16-bit scale; Pango treats an alpha
  /// of 0 as "unset", so callers raise it to 1.
  private static func channel(_ value: Double) -> UInt16 { UInt16((value * 65535).rounded()) }
}
