internal import CCairo

extension GlyphCompositor {
  /// What a draw into a cairo context needs to bypass cairo's glyph path, read from the context;
  /// nil when the context is outside the common case (see ``GlyphCompositor``).
  struct Target {
    let surface: OpaquePointer
    let format: pixman_format_code_t
    let width: Int32
    let height: Int32
    /// User space to device pixels, the target's device offset included.
    let ctm: cairo_matrix_t
    /// The source colour as cairo hands it to pixman: premultiplied, 16 bits per channel.
    let color: pixman_color_t
    /// The clip in device pixels: one rectangle, within the surface.
    let bounds: pixman_box32_t

    init?(_ cr: OpaquePointer) {
      guard cairo_status(cr) == CAIRO_STATUS_SUCCESS, cairo_get_operator(cr) == CAIRO_OPERATOR_OVER,
        let surface = cairo_get_group_target(cr), cairo_surface_get_type(surface) == CAIRO_SURFACE_TYPE_IMAGE
      else { return nil }
      switch cairo_image_surface_get_format(surface) {
      case CAIRO_FORMAT_ARGB32: format = PIXMAN_a8r8g8b8
      case CAIRO_FORMAT_RGB24: format = PIXMAN_x8r8g8b8
      // Coverage only (TextTile's gray path): pixman composites the source's alpha as it composites
      // each colour channel, and colour glyphs are declined (see `GlyphCompositor.show`).
      case CAIRO_FORMAT_A8: format = PIXMAN_a8
      default: return nil
      }
      var scaleX = 0.0, scaleY = 0.0, offsetX = 0.0, offsetY = 0.0
      cairo_surface_get_device_scale(surface, &scaleX, &scaleY)
      cairo_surface_get_device_offset(surface, &offsetX, &offsetY)
      var matrix = cairo_matrix_t()
      cairo_get_matrix(cr, &matrix)
      guard scaleX == 1, scaleY == 1, matrix.xy == 0, matrix.yx == 0, matrix.xx > 0, matrix.yy > 0 else { return nil }
      // cairo multiplies the ctm by the device transform, which only adds the offset here.
      matrix.x0 += offsetX
      matrix.y0 += offsetY

      guard let source = cairo_get_source(cr), cairo_pattern_get_type(source) == CAIRO_PATTERN_TYPE_SOLID else {
        return nil
      }
      var red = 0.0, green = 0.0, blue = 0.0, alpha = 0.0
      guard cairo_pattern_get_rgba(source, &red, &green, &blue, &alpha) == CAIRO_STATUS_SUCCESS, alpha > 0 else {
        return nil
      }
      // _cairo_color_double_to_short of the premultiplied channels.
      func short(_ value: Double) -> UInt16 { UInt16(value * 65535.0 + 0.5) }
      color = pixman_color_t(
        red: short(red * alpha), green: short(green * alpha), blue: short(blue * alpha), alpha: short(alpha))

      width = cairo_image_surface_get_width(surface)
      height = cairo_image_surface_get_height(surface)
      guard let rectangles = cairo_copy_clip_rectangle_list(cr) else { return nil }
      defer { cairo_rectangle_list_destroy(rectangles) }
      // A clip with antialiased edges is not representable as rectangles: cairo masks it, we decline.
      guard rectangles.pointee.status == CAIRO_STATUS_SUCCESS else { return nil }
      // One pixel-aligned rectangle (a whole-surface one when there is no clip); cairo clips runs
      // against several rectangles, which the compositor leaves to cairo.
      guard rectangles.pointee.num_rectangles == 1 else { return nil }
      let rect = rectangles.pointee.rectangles[0]
      let edges = [
        matrix.xx * rect.x + matrix.x0, matrix.yy * rect.y + matrix.y0,
        matrix.xx * (rect.x + rect.width) + matrix.x0, matrix.yy * (rect.y + rect.height) + matrix.y0,
      ]
      let rounded = edges.map { $0.rounded() }
      guard zip(edges, rounded).allSatisfy({ abs($0 - $1) < 1e-6 }) else { return nil }
      let bounds = pixman_box32_t(
        x1: max(0, Int32(rounded[0])), y1: max(0, Int32(rounded[1])),
        x2: min(width, Int32(rounded[2])), y2: min(height, Int32(rounded[3])))
      guard bounds.x1 < bounds.x2, bounds.y1 < bounds.y2 else { return nil }
      self.surface = surface
      self.ctm = matrix
      self.bounds = bounds
    }

    /// True when the font was made for this transform, so cairo would draw with it unchanged.
    func matches(_ font: OpaquePointer) -> Bool {
      var fontCTM = cairo_matrix_t()
      cairo_scaled_font_get_ctm(font, &fontCTM)
      return fontCTM.xx == ctm.xx && fontCTM.yy == ctm.yy && fontCTM.xy == 0 && fontCTM.yx == 0
    }

    /// True when cairo keeps a glyph at this device position: `_cairo_gstate_transform_glyphs_to_backend`
    /// drops glyphs further than 10 × the font's scale outside the clip extents before it decides
    /// how to composite a run. The compositor only takes runs in which cairo drops nothing.
    func keeps(_ x: Double, _ y: Double, fontScale: Double) -> Bool {
      let margin = 10 * fontScale
      return Double(bounds.x1) - margin <= x && x <= Double(bounds.x2) + margin && Double(bounds.y1) - margin <= y
        && y <= Double(bounds.y2) + margin
    }

    /// True when `box` lies inside the clip (and the surface).
    func encloses(_ box: pixman_box32_t) -> Bool {
      box.x1 >= bounds.x1 && box.y1 >= bounds.y1 && box.x2 <= bounds.x2 && box.y2 <= bounds.y2
    }

    /// Lends an A8 target's bytes and stride (the compositor's A8 mode composites them itself).
    func withBytes<R>(_ body: (_ bytes: UnsafeMutablePointer<UInt8>, _ stride: Int) -> R) -> R {
      cairo_surface_flush(surface)
      defer { cairo_surface_mark_dirty(surface) }
      return body(cairo_image_surface_get_data(surface)!, Int(cairo_image_surface_get_stride(surface)))
    }

    /// Lends the target's pixels to pixman with a solid source of the colour.
    func withPixmanImages<R>(_ body: (_ destination: OpaquePointer, _ source: OpaquePointer) -> R) -> R {
      cairo_surface_flush(surface)
      defer { cairo_surface_mark_dirty(surface) }
      let data = cairo_image_surface_get_data(surface).map { UnsafeMutableRawPointer($0) }
      let destination = pixman_image_create_bits(
        format, width, height, data?.assumingMemoryBound(to: UInt32.self), cairo_image_surface_get_stride(surface))!
      defer { pixman_image_unref(destination) }
      var solid = color
      let source = pixman_image_create_solid_fill(&solid)!
      defer { pixman_image_unref(source) }
      return body(destination, source)
    }
  }
}
