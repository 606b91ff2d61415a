internal import CCairo

/// What the compositor keeps of a glyph.
struct GlyphInfo {
  /// The glyph's ink box in device space relative to its origin, in 24.8 fixed point, as cairo's
  /// `scaled_glyph->bbox`.
  var box: (x1: Int32, y1: Int32, x2: Int32, y2: Int32)
  /// True when cairo draws the glyph in its own colours (emoji): left to cairo.
  var isColor: Bool
  /// The glyph's image in the pixman cache; nil for a glyph without ink (a space) or in colour.
  var image: UnsafeRawPointer?
}

/// The glyphs one thread has seen of one scaled font, in pages of 128 by glyph index, so a lookup
/// is two array reads. It retains the font: the font's address keys the pixman cache, and must not
/// be reused by another font while glyphs are cached under it.
final class FontGlyphs {
  let font: OpaquePointer
  private var pages: [ContiguousArray<GlyphInfo?>?] = []

  init(retaining font: OpaquePointer) {
    self.font = cairo_scaled_font_reference(font)
  }

  deinit { cairo_scaled_font_destroy(font) }

  subscript(index: UInt32) -> GlyphInfo? {
    get {
      let page = Int(index >> 7)
      guard page < pages.count, let glyphs = pages[page] else { return nil }
      return glyphs[Int(index & 127)]
    }
    set {
      let page = Int(index >> 7)
      if page >= pages.count { pages.append(contentsOf: repeatElement(nil, count: page + 1 - pages.count)) }
      if pages[page] == nil { pages[page] = ContiguousArray(repeating: nil, count: 128) }
      pages[page]![Int(index & 127)] = newValue
    }
  }
}

extension GlyphCompositor {
  /// This thread's glyphs of `font`.
  func glyphs(of font: OpaquePointer) -> FontGlyphs {
    let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(font)))
    if let known = fonts[key] { return known }
    let glyphs = FontGlyphs(retaining: font)
    fonts[key] = glyphs
    return glyphs
  }

  /// The glyph, rendered into the cache the first time this thread sees it; nil when it cannot be
  /// (cairo failed, or the cache is full until the next layout starts it again).
  func info(_ glyphs: FontGlyphs, index: UInt32) -> GlyphInfo? {
    if let known = glyphs[index] { return known }
    guard glyphCount < Self.glyphLimit, var rendered = render(font: glyphs.font, index: index) else { return nil }
    if let image = rendered.image {
      rendered.info.image = insert(image, font: glyphs.font, index: index)
      guard rendered.info.image != nil else { return nil }
      glyphCount += 1
    }
    glyphs[index] = rendered.info
    return rendered.info
  }

  private func insert(_ image: RenderedGlyph.Image, font: OpaquePointer, index: UInt32) -> UnsafeRawPointer? {
    var alpha = image.alpha
    return alpha.withUnsafeMutableBytes { bytes -> UnsafeRawPointer? in
      guard
        let pixman = pixman_image_create_bits(
          PIXMAN_a8, Int32(image.width), Int32(image.height),
          bytes.baseAddress?.assumingMemoryBound(to: UInt32.self), Int32(image.stride))
      else { return nil }
      defer { pixman_image_unref(pixman) }
      // pixman copies the image into the cache. Glyph 0 (.notdef) must not be a null key: + 1.
      return pixman_glyph_cache_insert(
        cache, UnsafeMutableRawPointer(font), UnsafeMutableRawPointer(bitPattern: UInt(index) + 1),
        Int32(image.originX), Int32(image.originY), pixman)
    }
  }

  /// Starts the caches again and lets go of the fonts. Only between layouts: planned runs point
  /// into the cache.
  func reset() {
    pixman_glyph_cache_destroy(cache)
    cache = pixman_glyph_cache_create()
    fonts.removeAll(keepingCapacity: true)
    glyphCount = 0
  }
}

/// One glyph drawn by cairo on its own, at an integer device position, in red: the alpha is the
/// mask cairo composites, and any other colour means a colour glyph.
struct RenderedGlyph {
  struct Image {
    var alpha: [UInt8]
    var width: Int
    var height: Int
    var stride: Int
    /// The glyph origin inside the image.
    var originX: Int
    var originY: Int
  }

  var info: GlyphInfo
  var image: Image?
}

extension GlyphCompositor {
  /// Renders one glyph through cairo, under ``FontCacheLock``: it fills cairo's glyph cache.
  func render(font: OpaquePointer, index: UInt32) -> RenderedGlyph? {
    FontCacheLock.withLock { renderUnlocked(font: font, index: index) }
  }

  private func renderUnlocked(font: OpaquePointer, index: UInt32) -> RenderedGlyph? {
    var ctm = cairo_matrix_t()
    cairo_scaled_font_get_ctm(font, &ctm)
    var probe = cairo_glyph_t(index: UInt(index), x: 0, y: 0)
    var extents = cairo_text_extents_t()
    cairo_scaled_font_glyph_extents(font, &probe, 1, &extents)
    guard cairo_scaled_font_status(font) == CAIRO_STATUS_SUCCESS else { return nil }
    // cairo keeps the box in device space (font space × scale); user space × ctm is the same box.
    let xs = [extents.x_bearing * ctm.xx, (extents.x_bearing + extents.width) * ctm.xx]
    let ys = [extents.y_bearing * ctm.yy, (extents.y_bearing + extents.height) * ctm.yy]
    let box = (
      x1: Int32(Self.fixed(xs.min()!)), y1: Int32(Self.fixed(ys.min()!)),
      x2: Int32(Self.fixed(xs.max()!)), y2: Int32(Self.fixed(ys.max()!))
    )
    var info = GlyphInfo(box: box, isColor: false, image: nil)
    guard extents.width > 0, extents.height > 0 else { return RenderedGlyph(info: info, image: nil) }

    // Two pixels of margin around the rounded-out box: hinting may move ink past the metrics.
    let left = Int((xs.min()!).rounded(.down)) - 2, top = Int((ys.min()!).rounded(.down)) - 2
    let width = Int((xs.max()!).rounded(.up)) + 2 - left, height = Int((ys.max()!).rounded(.up)) + 2 - top
    guard width > 0, height > 0, width < 16_384, height < 16_384,
      let surface = try? CairoSurface.image(pixelWidth: width, pixelHeight: height)
    else { return nil }
    let cr = cairo_create(surface.raw)!
    cairo_set_matrix(cr, &ctm)
    cairo_set_scaled_font(cr, font)
    cairo_set_source_rgb(cr, 1, 0, 0)
    var glyph = cairo_glyph_t(index: UInt(index), x: Double(-left) / ctm.xx, y: Double(-top) / ctm.yy)
    cairo_show_glyphs(cr, &glyph, 1)
    let status = cairo_status(cr)
    cairo_destroy(cr)
    guard status == CAIRO_STATUS_SUCCESS else { return nil }
    cairo_surface_flush(surface.raw)

    let stride = Int(cairo_image_surface_get_stride(surface.raw))
    guard let data = cairo_image_surface_get_data(surface.raw) else { return nil }
    var ink = (x1: width, y1: height, x2: 0, y2: 0)
    for row in 0..<height {
      let pixels = UnsafeRawPointer(data + row * stride).assumingMemoryBound(to: UInt32.self)
      for column in 0..<width {
        let pixel = pixels[column]
        if pixel == 0 { continue }
        // Premultiplied red is (a, a, 0, 0); anything else was drawn in the glyph's own colours.
        if (pixel >> 16) & 0xff != pixel >> 24 || pixel & 0xffff != 0 { info.isColor = true }
        ink = (min(ink.x1, column), min(ink.y1, row), max(ink.x2, column + 1), max(ink.y2, row + 1))
      }
    }
    guard ink.x2 > ink.x1 else { return RenderedGlyph(info: info, image: nil) }
    if info.isColor { return RenderedGlyph(info: info, image: nil) }

    let inkWidth = ink.x2 - ink.x1, inkHeight = ink.y2 - ink.y1
    let alphaStride = (inkWidth + 3) & ~3
    var alpha = [UInt8](repeating: 0, count: alphaStride * inkHeight)
    for row in 0..<inkHeight {
      let pixels = UnsafeRawPointer(data + (row + ink.y1) * stride).assumingMemoryBound(to: UInt32.self)
      for column in 0..<inkWidth {
        alpha[row * alphaStride + column] = UInt8(pixels[column + ink.x1] >> 24)
      }
    }
    let image = RenderedGlyph.Image(
      alpha: alpha, width: inkWidth, height: inkHeight, stride: alphaStride,
      originX: -left - ink.x1, originY: -top - ink.y1)
    return RenderedGlyph(info: info, image: image)
  }
}
