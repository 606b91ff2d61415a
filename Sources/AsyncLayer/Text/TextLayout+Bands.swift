internal import CCairo

// The shown lines as bands of a `BandRecord`: what a text layer's draw puts where, so that a
// redraw over its previous pixels draws only the lines that changed.
extension TextLayout {
  /// Device rows added above and below each line's ink. Drawn glyphs reach past the extents Pango
  /// reports: cairo rounds glyph positions to whole pixels, hinting snaps outlines, antialiasing
  /// covers partial pixels. Over 120 tiles of the mixed workload (every family, weight, size and
  /// scale) the ink of 88 of ~200 lines reached past, by at most 2 rows; 3 keeps a row to spare
  /// (the test `bandsHoldTheInk` checks every line's drawn ink against its band).
  static let bandMargin = 3

  /// One band per shown line, drawn with the layout's top-left corner at `origin` (points) on a
  /// surface of `scale` device pixels per point.
  ///
  /// A line's signature covers everything that decides its pixels given the layout's style: its
  /// position, and per run the font, the analysis flags, the offsets, every glyph with its
  /// geometry, and the run's attributes (colours, underlines, rise). Fonts are named by their
  /// description, not their address, so that draws on different threads (different font maps)
  /// compare equal.
  func bands(origin: Point, scale: Double) -> [BandRecord.Band] {
    var fontNames: [UnsafeMutableRawPointer: Int] = [:]
    var bands: [BandRecord.Band] = []
    bands.reserveCapacity(lines.count)
    for line in lines {
      var hasher = Hasher()
      hasher.combine(line.frame.minX.bitPattern)
      hasher.combine(line.baseline.bitPattern)
      var paintsBackground = false
      if let pangoLine = pangoLine(line.index) {
        var node = pangoLine.pointee.runs
        while let current = node {
          node = current.pointee.next
          guard let run = current.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self).pointee else { continue }
          if Self.combine(run, into: &hasher, fontNames: &fontNames) { paintsBackground = true }
        }
      }
      // A background attribute paints the run's logical box, which reaches past its ink.
      let ink = line.inkFrame
      var top = ink.minY, bottom = ink.maxY
      if paintsBackground {
        top = min(top, line.frame.minY)
        bottom = max(bottom, line.frame.maxY)
      }
      let rows: Range<Int>
      if paintsBackground || (ink.width > 0 && ink.height > 0) {
        let top = Self.deviceRow((origin.y + top) * scale, .down) - Self.bandMargin
        let bottom = Self.deviceRow((origin.y + bottom) * scale, .up) + Self.bandMargin
        rows = top..<max(top, bottom)
      } else {
        rows = 0..<0
      }
      bands.append(BandRecord.Band(signature: hasher.finalize(), rows: rows))
    }
    return bands
  }

  /// A device coordinate as a row index, clamped far inside `Int` (layouts are checked to fit
  /// Pango's 32-bit units, so this only guards the arithmetic).
  private static func deviceRow(_ value: Double, _ rule: FloatingPointRoundingRule) -> Int {
    let limit = Double(1 << 40)
    return Int(min(limit, max(-limit, value.isFinite ? value.rounded(rule) : 0)))
  }

  /// Returns true when the run has a background attribute.
  private static func combine(
    _ run: PangoGlyphItem, into hasher: inout Hasher, fontNames: inout [UnsafeMutableRawPointer: Int]
  ) -> Bool {
    var paintsBackground = false
    hasher.combine(run.y_offset)
    hasher.combine(run.start_x_offset)
    hasher.combine(run.end_x_offset)
    if let item = run.item?.pointee {
      hasher.combine(item.analysis.flags)
      hasher.combine(item.analysis.gravity)
      hasher.combine(item.analysis.level)
      if let font = item.analysis.font {
        let key = UnsafeMutableRawPointer(font)
        if let name = fontNames[key] {
          hasher.combine(name)
        } else {
          let name = fontName(font)
          fontNames[key] = name
          hasher.combine(name)
        }
      }
      var attributes = item.analysis.extra_attrs
      while let node = attributes {
        attributes = node.pointee.next
        if let attribute = node.pointee.data?.assumingMemoryBound(to: PangoAttribute.self) {
          combine(attribute, into: &hasher)
          let kind = attribute.pointee.klass?.pointee.type
          if kind == PANGO_ATTR_BACKGROUND || kind == PANGO_ATTR_BACKGROUND_ALPHA { paintsBackground = true }
        }
      }
    }
    guard let glyphs = run.glyphs?.pointee else { return paintsBackground }
    hasher.combine(glyphs.num_glyphs)
    for index in 0..<Int(glyphs.num_glyphs) {
      let glyph = glyphs.glyphs[index]
      hasher.combine(glyph.glyph)
      hasher.combine(glyph.geometry.width)
      hasher.combine(glyph.geometry.x_offset)
      hasher.combine(glyph.geometry.y_offset)
    }
    return paintsBackground
  }

  /// The font's full description (family, style, weight, size, variations) hashed.
  private static func fontName(_ font: UnsafeMutablePointer<PangoFont>) -> Int {
    var hasher = Hasher()
    if let description = pango_font_describe(font) {
      if let text = pango_font_description_to_string(description) {
        hasher.combine(String(cString: text))
        g_free(text)
      }
      pango_font_description_free(description)
    }
    return hasher.finalize()
  }

  /// An attribute's type and value; an attribute of a kind not read here hashes its address, which
  /// no other layout shares: the line then never matches, and is always drawn again.
  private static func combine(_ attribute: UnsafeMutablePointer<PangoAttribute>, into hasher: inout Hasher) {
    hasher.combine(attribute.pointee.klass?.pointee.type.rawValue ?? 0)
    if let value = pango_attribute_as_int(attribute) {
      hasher.combine(value.pointee.value)
    } else if let color = pango_attribute_as_color(attribute) {
      hasher.combine(color.pointee.color.red)
      hasher.combine(color.pointee.color.green)
      hasher.combine(color.pointee.color.blue)
    } else if let value = pango_attribute_as_float(attribute) {
      hasher.combine(value.pointee.value.bitPattern)
    } else if let value = pango_attribute_as_size(attribute) {
      hasher.combine(value.pointee.size)
    } else if let value = pango_attribute_as_string(attribute) {
      hasher.combine(value.pointee.value.map { String(cString: $0) })
    } else if let value = pango_attribute_as_language(attribute) {
      hasher.combine(value.pointee.value.map { String(cString: pango_language_to_string($0)) })
    } else if let value = pango_attribute_as_font_features(attribute) {
      hasher.combine(value.pointee.features.map { String(cString: $0) })
    } else if let value = pango_attribute_as_font_desc(attribute) {
      if let text = pango_font_description_to_string(value.pointee.desc) {
        hasher.combine(String(cString: text))
        g_free(text)
      }
    } else {
      hasher.combine(UInt(bitPattern: attribute))
    }
  }
}
