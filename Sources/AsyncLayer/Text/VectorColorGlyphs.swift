internal import CCairo
import Foundation

/// Colour bitmap glyphs (emoji) for vector documents: each distinct glyph stored once, at its
/// font's own bitmap size, and kept in the text layer.
///
/// cairo 1.16 paints a colour glyph as an image rendered at the font's size in user space (a
/// 14 × 14 image at 72 ppi for 14-point text), one image per occurrence, and leaves it out of the
/// text. Here a line with colour glyphs is drawn by pango with those glyphs blanked, then each is
/// painted from one image per (font face, glyph) rendered at the font's largest bitmap strike
/// (Noto Color Emoji: 136 × 128 pixels), scaled into place; cairo's PDF and SVG surfaces store a
/// source surface drawn many times once. In a PDF, an inkless glyph carrying the glyph's
/// characters (`cairo_show_text_glyphs` with one cluster: cairo writes it as `/ActualText` or
/// through the font's ToUnicode map) lies over the image, so copy and search find the emoji.
///
/// One per output, on its drawing thread, like the layouts it draws.
final class VectorColorGlyphs {
  private struct Key: Hashable {
    let face: UInt
    let glyph: UInt32
  }

  /// A glyph's image at the strike size, and its top-left corner relative to the glyph origin in
  /// strike pixels.
  private struct Image {
    let surface: CairoSurface
    let left: Double
    let top: Double
  }

  /// A colour glyph of a line, where pango would have drawn it.
  private struct Placed {
    let font: OpaquePointer
    let strike: Double
    let glyph: UInt32
    let x: Double
    let y: Double
    let advance: Double
    let text: String?
  }

  private var images: [Key: Image?] = [:]
  /// Per cairo scaled font: its face's largest strike in pixels per em, or nil when the face has
  /// no colour bitmaps.
  private var strikes: [UInt: Double?] = [:]
  private let writesText: Bool
  /// Distinct glyph images made (for tests and the document's post-pass).
  private(set) var imageCount = 0
  /// Colour glyphs painted.
  private(set) var paintedCount = 0

  /// `writesText`: add the invisible text layer (PDF; an SVG from cairo has no text to add to).
  init(writesText: Bool) { self.writesText = writesText }

  /// Draws `line` with its left baseline end at (`x`, `y`), as `pango_cairo_show_layout_line` would,
  /// colour glyphs as described above.
  func show(_ line: UnsafeMutablePointer<PangoLayoutLine>, x: Double, y: Double, in cr: OpaquePointer) {
    var hidden: [(info: UnsafeMutablePointer<PangoGlyphInfo>, glyph: PangoGlyph)] = []
    var placed: [Placed] = []
    collect(line, x: x, y: y, hidden: &hidden, placed: &placed)
    // The line is only read-only to callers of pango's API: blanking a glyph for one draw and
    // putting it back, on the thread that owns the layout, leaves it as it was.
    for entry in hidden { entry.info.pointee.glyph = PANGO_GLYPH_EMPTY }
    cairo_move_to(cr, x, y)
    // Vector surfaces draw through cairo's glyph cache, shared by every thread (FontCacheLock).
    FontCacheLock.withLock { pango_cairo_show_layout_line(cr, line) }
    for entry in hidden { entry.info.pointee.glyph = entry.glyph }
    guard !placed.isEmpty else { return }
    FontCacheLock.withLock {
      for glyph in placed { paint(glyph, in: cr) }
    }
  }

  /// The colour glyphs of `line` and their positions (pango_renderer_draw_layout_line's walk).
  private func collect(
    _ line: UnsafeMutablePointer<PangoLayoutLine>, x: Double, y: Double,
    hidden: inout [(info: UnsafeMutablePointer<PangoGlyphInfo>, glyph: PangoGlyph)], placed: inout [Placed]
  ) {
    let text = line.pointee.layout.flatMap { pango_layout_get_text($0) }
    var xOffset: Int32 = 0
    var node = line.pointee.runs
    while let current = node {
      node = current.pointee.next
      guard let run = current.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self).pointee,
        let item = run.item?.pointee, let glyphs = run.glyphs
      else { continue }
      let width = pango_glyph_string_get_width(glyphs)
      defer { xOffset += width + run.end_x_offset }
      xOffset += run.start_x_offset
      guard let pangoFont = item.analysis.font,
        let font = pango_cairo_font_get_scaled_font(OpaquePointer(pangoFont)),
        let strike = strike(of: font)
      else { continue }
      var fontMatrix = cairo_matrix_t()
      cairo_scaled_font_get_font_matrix(font, &fontMatrix)
      let baseX = x + Double(xOffset) / Double(PANGO_SCALE)
      let baseY = y - Double(run.y_offset) / Double(PANGO_SCALE)
      let string = glyphs.pointee
      var position: Int32 = 0
      for index in 0..<Int(string.num_glyphs) {
        let info = string.glyphs + index
        let glyph = info.pointee.glyph
        let geometry = info.pointee.geometry
        defer { position += geometry.width }
        guard glyph != PANGO_GLYPH_EMPTY, glyph & PANGO_GLYPH_UNKNOWN_FLAG == 0 else { continue }
        hidden.append((info, glyph))
        let glyphX = baseX + Double(position + geometry.x_offset) / Double(PANGO_SCALE)
        let glyphY = baseY + Double(geometry.y_offset) / Double(PANGO_SCALE)
        placed.append(
          Placed(
            font: font, strike: strike, glyph: glyph, x: glyphX, y: glyphY,
            advance: Double(geometry.width) / Double(PANGO_SCALE),
            text: Self.cluster(of: index, in: string, item: item, text: text)))
      }
    }
  }

  /// The characters of the cluster glyph `index` starts; nil for a glyph after the first of its
  /// cluster (the first one carries the text).
  private static func cluster(
    of index: Int, in string: PangoGlyphString, item: PangoItem, text: UnsafePointer<CChar>?
  ) -> String? {
    guard let text, let clusters = string.log_clusters else { return nil }
    let start = clusters[index]
    if index > 0, clusters[index - 1] == start { return nil }
    // The cluster ends where the next cluster (in either direction) starts, or at the item's end.
    var end = item.length
    for other in 0..<Int(string.num_glyphs) where clusters[other] > start { end = min(end, clusters[other]) }
    guard start >= 0, end > start else { return nil }
    let bytes = UnsafeRawBufferPointer(start: text + Int(item.offset) + Int(start), count: Int(end - start))
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The largest bitmap strike of `font`'s face when the face has colour glyphs.
  private func strike(of font: OpaquePointer) -> Double? {
    let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(font)))
    if let known = strikes[key] { return known }
    let found = Self.colourStrike(of: font)
    strikes[key] = found
    return found
  }

  /// The largest bitmap strike of the face behind cairo scaled font `font` when the face has
  /// colour glyphs, read under `FontCacheLock`; nil for an ordinary face. Not remembered: callers
  /// keep their own per-font answer.
  static func colourStrike(of font: OpaquePointer) -> Double? {
    FontCacheLock.withLock {
      guard let face = cairo_ft_scaled_font_lock_face(font) else { return nil }
      defer { cairo_ft_scaled_font_unlock_face(font) }
      guard face.pointee.face_flags & FT_Long(FT_FACE_FLAG_COLOR) != 0, face.pointee.num_fixed_sizes > 0,
        let sizes = face.pointee.available_sizes
      else { return nil }
      let largest = (0..<Int(face.pointee.num_fixed_sizes)).map { Double(sizes[$0].y_ppem) / 64 }.max() ?? 0
      // A strike past this is not a bitmap a font would ship; treat the face as an ordinary one.
      return largest > 0 && largest <= 1024 ? largest : nil
    }
  }

  /// The glyph's image at the strike size, rendered the first time (under FontCacheLock).
  private func image(font: OpaquePointer, strike: Double, glyph: UInt32) -> Image? {
    guard let face = cairo_scaled_font_get_font_face(font) else { return nil }
    let key = Key(face: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(face))), glyph: glyph)
    if let known = images[key] { return known }
    let made = render(face: face, options: font, strike: strike, glyph: glyph)
    images[key] = made
    return made
  }

  private func render(face: OpaquePointer, options font: OpaquePointer, strike: Double, glyph: UInt32) -> Image? {
    var fontMatrix = cairo_matrix_t()
    cairo_matrix_init_scale(&fontMatrix, strike, strike)
    var identity = cairo_matrix_t()
    cairo_matrix_init_identity(&identity)
    let options = cairo_font_options_create()
    defer { cairo_font_options_destroy(options) }
    cairo_scaled_font_get_font_options(font, options)
    guard let large = cairo_scaled_font_create(face, &fontMatrix, &identity, options) else { return nil }
    defer { cairo_scaled_font_destroy(large) }
    var probe = cairo_glyph_t(index: UInt(glyph), x: 0, y: 0)
    var extents = cairo_text_extents_t()
    cairo_scaled_font_glyph_extents(large, &probe, 1, &extents)
    guard cairo_scaled_font_status(large) == CAIRO_STATUS_SUCCESS, extents.width > 0, extents.height > 0,
      extents.width <= 4096, extents.height <= 4096
    else { return nil }
    let left = extents.x_bearing.rounded(.down), top = extents.y_bearing.rounded(.down)
    let width = Int((extents.x_bearing + extents.width).rounded(.up) - left)
    let height = Int((extents.y_bearing + extents.height).rounded(.up) - top)
    guard let surface = try? CairoSurface.image(pixelWidth: width, pixelHeight: height) else { return nil }
    let cr = cairo_create(surface.raw)!
    cairo_set_scaled_font(cr, large)
    var placed = cairo_glyph_t(index: UInt(glyph), x: -left, y: -top)
    cairo_show_glyphs(cr, &placed, 1)
    let status = cairo_status(cr)
    cairo_destroy(cr)
    guard status == CAIRO_STATUS_SUCCESS else { return nil }
    cairo_surface_flush(surface.raw)
    // Tells cairo's PDF and SVG surfaces that every paint of it is the same image.
    let id = "asynclayer-color-glyph-\(imageCount)"
    if let bytes = strdup(id) {
      cairo_surface_set_mime_data(
        surface.raw, CAIRO_MIME_TYPE_UNIQUE_ID, UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self),
        UInt(id.utf8.count), { free($0) }, bytes)
    }
    imageCount += 1
    return Image(surface: surface, left: left, top: top)
  }

  /// Paints one colour glyph and, in a PDF, its characters (under FontCacheLock).
  private func paint(_ glyph: Placed, in cr: OpaquePointer) {
    guard let image = image(font: glyph.font, strike: glyph.strike, glyph: glyph.glyph) else { return }
    var fontMatrix = cairo_matrix_t()
    cairo_scaled_font_get_font_matrix(glyph.font, &fontMatrix)
    let scale = fontMatrix.yy / glyph.strike
    guard scale.isFinite, scale > 0 else { return }
    cairo_save(cr)
    cairo_translate(cr, glyph.x, glyph.y)
    cairo_scale(cr, scale, scale)
    cairo_set_source_surface(cr, image.surface.raw, image.left, image.top)
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
    cairo_paint(cr)
    cairo_restore(cr)
    paintedCount += 1
    if writesText, let text = glyph.text, !text.isEmpty { showText(text, over: glyph, size: fontMatrix.yy, in: cr) }
  }

  /// An inkless glyph (a space of the default sans-serif face) stretched to the colour glyph's
  /// advance, carrying `text`: a selection covers the emoji and extraction yields its characters.
  private func showText(_ text: String, over glyph: Placed, size: Double, in cr: OpaquePointer) {
    cairo_save(cr)
    defer { cairo_restore(cr) }
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
    cairo_set_font_size(cr, size)
    var space = cairo_glyph_t(index: 0, x: glyph.x, y: glyph.y)
    var glyphs: UnsafeMutablePointer<cairo_glyph_t>? = nil
    var count: Int32 = 0
    guard let font = cairo_get_scaled_font(cr),
      cairo_scaled_font_text_to_glyphs(font, glyph.x, glyph.y, " ", 1, &glyphs, &count, nil, nil, nil)
        == CAIRO_STATUS_SUCCESS, let glyphs, count == 1
    else { return }
    space.index = glyphs[0].index
    cairo_glyph_free(glyphs)
    var extents = cairo_text_extents_t()
    cairo_scaled_font_glyph_extents(font, &space, 1, &extents)
    if extents.x_advance > 0, glyph.advance > 0 {
      var matrix = cairo_matrix_t()
      cairo_matrix_init_scale(&matrix, size * glyph.advance / extents.x_advance, size)
      cairo_set_font_matrix(cr, &matrix)
    }
    let length = Int32(text.utf8.count)
    var cluster = cairo_text_cluster_t(num_bytes: length, num_glyphs: 1)
    cairo_show_text_glyphs(cr, text, length, &space, 1, &cluster, 1, cairo_text_cluster_flags_t(0))
  }
}
