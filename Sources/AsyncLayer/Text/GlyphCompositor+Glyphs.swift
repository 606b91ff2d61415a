internal import CCairo

extension GlyphCompositor {
  /// This thread's glyphs of `font`; a font seen for the first time joins the newest generation
  /// (only a layout's start adds generations: pixman inserts into frozen caches only).
  func glyphs(of font: OpaquePointer) -> FontGlyphs {
    if let last = lastFontGlyphs, last.font == font {
      last.generation.lastUse = layoutCount
      return last
    }
    let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(font)))
    if let known = fonts[key] {
      known.generation.lastUse = layoutCount
      lastFontGlyphs = known
      return known
    }
    let generation = generations.last ?? newestGeneration()
    generation.fontCount += 1
    generation.lastUse = layoutCount
    let glyphs = FontGlyphs(retaining: font, in: generation)
    fonts[key] = glyphs
    lastFontGlyphs = glyphs
    return glyphs
  }

  /// The glyph, rendered into its font's generation the first time this thread sees it; nil when
  /// it cannot be (cairo failed, or the generation or the image budget is full until the next
  /// layout makes room).
  func info(_ glyphs: FontGlyphs, index: UInt32) -> GlyphInfo? {
    if let known = glyphs[index] { return known }
    let generation = glyphs.generation
    guard generation.glyphCount < limits.glyphsPerCache, imageBytes < limits.imageByteLimit,
      var rendered = render(glyphs, index: index)
    else { return nil }
    glyphsRendered += 1
    if let color = rendered.color {
      rendered.info.color = generation.insert(color)
      guard rendered.info.color != nil else { return nil }
    } else if let image = rendered.image {
      guard let inserted = generation.insert(image, font: glyphs.font, index: index) else { return nil }
      rendered.info.image = inserted.glyph
      rendered.info.mask = inserted.mask
    }
    glyphs[index] = rendered.info
    return rendered.info
  }
}

extension GlyphCompositor {
  /// Renders one glyph through cairo, under ``FontCacheLock``: it fills cairo's glyph cache.
  func render(_ glyphs: FontGlyphs, index: UInt32) -> RenderedGlyph? {
    FontCacheLock.withLock {
      if glyphs.hasColorGlyphs == nil { glyphs.hasColorGlyphs = Self.faceHasColorGlyphs(glyphs.font) }
      return renderUnlocked(font: glyphs.font, index: index, fontHasColor: glyphs.hasColorGlyphs ?? true)
    }
  }

  /// FreeType's colour flag of the font's face (colour bitmaps or layers): only such faces can
  /// have glyphs cairo paints in their own colours.
  private static func faceHasColorGlyphs(_ font: OpaquePointer) -> Bool {
    guard let face = cairo_ft_scaled_font_lock_face(font) else { return true }  // unknown: check each glyph
    defer { cairo_ft_scaled_font_unlock_face(font) }
    return face.pointee.face_flags & FT_Long(FT_FACE_FLAG_COLOR) != 0
  }

  /// One probe drawing of a glyph: an ARGB image with the glyph origin at an integer position.
  private struct Probe {
    let surface: CairoSurface
    let width: Int
    let height: Int
    var stride: Int { Int(cairo_image_surface_get_stride(surface.raw)) }
    var pixels: UnsafeMutablePointer<UInt8>? { cairo_image_surface_get_data(surface.raw) }

    func row(_ y: Int) -> UnsafeBufferPointer<UInt32>? {
      guard let pixels else { return nil }
      return UnsafeBufferPointer(
        start: UnsafeRawPointer(pixels + y * stride).assumingMemoryBound(to: UInt32.self), count: width)
    }

    func samePixels(as other: Probe) -> Bool {
      (0..<height).allSatisfy { y in
        guard let a = row(y), let b = other.row(y) else { return false }
        return a.elementsEqual(b)
      }
    }
  }

  private func probe(
    font: OpaquePointer, index: UInt32, ctm: cairo_matrix_t, left: Int, top: Int, width: Int, height: Int,
    red: Double, blue: Double
  ) -> Probe? {
    guard let surface = try? CairoSurface.image(pixelWidth: width, pixelHeight: height) else { return nil }
    let cr = cairo_create(surface.raw)!
    var matrix = ctm
    cairo_set_matrix(cr, &matrix)
    cairo_set_scaled_font(cr, font)
    cairo_set_source_rgb(cr, red, 0, blue)
    var glyph = cairo_glyph_t(index: UInt(index), x: Double(-left) / ctm.xx, y: Double(-top) / ctm.yy)
    cairo_show_glyphs(cr, &glyph, 1)
    let status = cairo_status(cr)
    cairo_destroy(cr)
    guard status == CAIRO_STATUS_SUCCESS else { return nil }
    cairo_surface_flush(surface.raw)
    return Probe(surface: surface, width: width, height: height)
  }

  private func renderUnlocked(font: OpaquePointer, index: UInt32, fontHasColor: Bool) -> RenderedGlyph? {
    var ctm = cairo_matrix_t()
    cairo_scaled_font_get_ctm(font, &ctm)
    var probeGlyph = cairo_glyph_t(index: UInt(index), x: 0, y: 0)
    var extents = cairo_text_extents_t()
    cairo_scaled_font_glyph_extents(font, &probeGlyph, 1, &extents)
    guard cairo_scaled_font_status(font) == CAIRO_STATUS_SUCCESS else { return nil }
    // cairo keeps the box in device space (font space × scale); user space × ctm is the same box.
    let xs = [extents.x_bearing * ctm.xx, (extents.x_bearing + extents.width) * ctm.xx]
    let ys = [extents.y_bearing * ctm.yy, (extents.y_bearing + extents.height) * ctm.yy]
    let box = (
      x1: Int32(Self.fixed(xs.min()!)), y1: Int32(Self.fixed(ys.min()!)),
      x2: Int32(Self.fixed(xs.max()!)), y2: Int32(Self.fixed(ys.max()!))
    )
    var info = GlyphInfo(box: box, image: nil, color: nil)
    guard extents.width > 0, extents.height > 0 else { return RenderedGlyph(info: info, image: nil, color: nil) }

    // Two pixels of margin around the rounded-out box: hinting may move ink past the metrics.
    let left = Int((xs.min()!).rounded(.down)) - 2, top = Int((ys.min()!).rounded(.down)) - 2
    let width = Int((xs.max()!).rounded(.up)) + 2 - left, height = Int((ys.max()!).rounded(.up)) + 2 - top
    guard width > 0, height > 0, width < 16_384, height < 16_384,
      let red = probe(
        font: font, index: index, ctm: ctm, left: left, top: top, width: width, height: height, red: 1, blue: 0)
    else { return nil }

    var ink = (x1: width, y1: height, x2: 0, y2: 0)
    var alphaOnly = true
    for y in 0..<height {
      guard let pixels = red.row(y) else { return nil }
      for (x, pixel) in pixels.enumerated() where pixel != 0 {
        // Premultiplied red is (a, a, 0, 0); anything else was drawn in the glyph's own colours.
        if (pixel >> 16) & 0xff != pixel >> 24 || pixel & 0xffff != 0 { alphaOnly = false }
        ink = (min(ink.x1, x), min(ink.y1, y), max(ink.x2, x + 1), max(ink.y2, y + 1))
      }
    }
    guard ink.x2 > ink.x1 else { return RenderedGlyph(info: info, image: nil, color: nil) }
    let inkWidth = ink.x2 - ink.x1, inkHeight = ink.y2 - ink.y1
    let originX = -left - ink.x1, originY = -top - ink.y1

    if fontHasColor || !alphaOnly {
      // A colour glyph ignores the source: drawn again in blue, it comes out the same. (A glyph
      // that happens to be pure red passes this test too, which the pixel check alone would miss.)
      guard
        let blue = probe(
          font: font, index: index, ctm: ctm, left: left, top: top, width: width, height: height, red: 0, blue: 1)
      else { return nil }
      if blue.samePixels(as: red) {
        var pixels = [UInt32]()
        pixels.reserveCapacity(inkWidth * inkHeight)
        for y in ink.y1..<ink.y2 { pixels.append(contentsOf: red.row(y)![ink.x1..<ink.x2]) }
        let color = RenderedGlyph.ColorImage(
          pixels: pixels, width: inkWidth, height: inkHeight, originX: originX, originY: originY)
        info.image = nil
        return RenderedGlyph(info: info, image: nil, color: color)
      }
      guard alphaOnly else { return nil }  // neither a mask nor a colour image: left to cairo
    }

    let alphaStride = (inkWidth + 3) & ~3
    var alpha = [UInt8](repeating: 0, count: alphaStride * inkHeight)
    for row in 0..<inkHeight {
      let pixels = red.row(row + ink.y1)!
      for column in 0..<inkWidth {
        alpha[row * alphaStride + column] = UInt8(pixels[column + ink.x1] >> 24)
      }
    }
    let image = RenderedGlyph.Image(
      alpha: alpha, width: inkWidth, height: inkHeight, stride: alphaStride, originX: originX, originY: originY)
    return RenderedGlyph(info: info, image: image, color: nil)
  }
}
