internal import CCairo

// The tile drawn vertically, with a stroke or through a `TileTransform`: the layout is made as for
// any tile, then cairo draws it through one affine map, from the layout's points to the image,
// and the layout's boxes go through the same map. Glyphs are drawn by cairo at the final
// transform (its own glyph cache, under `FontCacheLock`), never resampled: they stay sharp.
extension TextTile {
  /// True when the tile is drawn here rather than by the plain (and gray) path: vertical text, a
  /// stroke or a transform. Without any of them the plain path draws exactly what it always did.
  var drawsThroughMap: Bool { style.orientation.isVertical || stroke != nil || !transform.isIdentity }

  /// The stroke and transform checked (NaN, infinities, out of range), before any work.
  func validateStrokeAndTransform() throws {
    try transform.validate()
    try stroke?.validate()
  }

  /// Where the tile's parts go: the image's size in pixels, the map from the layout's points to
  /// the image's points, and the untransformed tile (the page) with its map to the image.
  struct Placement {
    var pixelWidth: Int
    var pixelHeight: Int
    /// Layout points → image points.
    var layoutToImage: AffineMap
    /// The page (the tile before the transform, stroke margin included), in its own points.
    var page: Size
    /// Page points → image points.
    var pageToImage: AffineMap
  }

  /// Where `layout` goes. `along` is the tile's extent along the lines (its width, or the fitted
  /// width), `origin` where the layout's left edge sits along them (the leading padding, moved by
  /// a tight crop).
  func placement(of layout: TextLayout, along: Double, origin: Double) throws -> Placement {
    let vertical = style.orientation.isVertical
    let margin = stroke?.halfWidth ?? 0
    // The padding across the lines before the first one: the top, or for columns the right.
    let acrossStart = vertical ? padding.right : padding.top
    let acrossPadding = vertical ? padding.left + padding.right : padding.top + padding.bottom
    let across = height ?? layout.size.height + acrossPadding
    let length = along + 2 * margin
    let breadth = across + 2 * margin
    let page: Size
    let layoutToPage: AffineMap
    if vertical {
      // A quarter turn clockwise: the layout's x runs down the page, its lines stack leftwards
      // from the right edge.
      page = Size(width: breadth, height: length)
      layoutToPage = AffineMap(a: 0, b: 1, c: -1, d: 0, tx: breadth - acrossStart - margin, ty: origin + margin)
    } else {
      page = Size(width: length, height: breadth)
      layoutToPage = AffineMap.identity.translated(x: origin + margin, y: acrossStart + margin)
    }
    let linear = transform.map
    let bound = AffineMap.bound(of: linear.corners(of: Rect(x: 0, y: 0, width: page.width, height: page.height)))
    let pageToImage = linear.translated(x: -bound.minX, y: -bound.minY)
    // Whole pixels; a bound a rounding error past a whole pixel (cos 90° is 6e-17) does not
    // take one more.
    func pixels(_ points: Double) -> Double { max(1, (points * scale - 1e-6).rounded(.up)) }
    let width = pixels(bound.width)
    let height = pixels(bound.height)
    let limit = Double(ImageRenderer.maximumPixelsPerSide)
    guard width <= limit, height <= limit else {
      throw RenderError.surfaceTooLarge(
        pixelWidth: Int(min(width, limit * 1000)), pixelHeight: Int(min(height, limit * 1000)),
        limit: ImageRenderer.maximumPixelsPerSide)
    }
    return Placement(
      pixelWidth: Int(width), pixelHeight: Int(height), layoutToImage: pageToImage.concatenating(layoutToPage),
      page: page, pageToImage: pageToImage)
  }

  /// ``render(isCancelled:)`` for a tile that ``drawsThroughMap``, after the common checks.
  func renderThroughMap(isCancelled: @escaping () -> Bool) throws -> RenderedText {
    let vertical = style.orientation.isVertical
    // Along the lines: the width between the left and right padding, or for columns between the
    // top and bottom padding.
    let leading = vertical ? padding.top : padding.left
    let alongPadding = vertical ? padding.top + padding.bottom : padding.left + padding.right
    let acrossPadding = vertical ? padding.left + padding.right : padding.top + padding.bottom
    let textWidth = width - alongPadding
    guard textWidth > 0 else {
      throw RenderError.invalidDimension(
        name: vertical ? "width (the column length) inside the top and bottom padding" : "width inside the padding",
        value: textWidth)
    }
    var textHeight: Double? = nil
    if let height {
      let inside = height - acrossPadding
      guard inside > 0 else {
        throw RenderError.invalidDimension(
          name: vertical
            ? "height (across the columns) inside the left and right padding" : "height inside the padding",
          value: inside)
      }
      textHeight = inside
    }
    let layout = try layOut(width: textWidth, height: textHeight, isCancelled: isCancelled)
    var along = width
    var origin = leading
    if fitsWidth, let extent = Self.horizontalExtent(of: layout.lines) {
      let fitted = ((extent.maxX - extent.minX + alongPadding) * scale).rounded(.up) / scale
      along = min(width, fitted)
      origin = leading - extent.minX
    }
    let placement = try placement(of: layout, along: along, origin: origin)
    // Half a pixel short of each whole pixel count: the renderer rounds the size up to it.
    let renderer = try ImageRenderer(
      size: Size(
        width: (Double(placement.pixelWidth) - 0.5) / scale, height: (Double(placement.pixelHeight) - 0.5) / scale),
      scale: scale, memoryCap: memoryCap)
    let startPixel = try background.map(ImageRenderer.clearPixel) ?? 0
    var linesDrawn = 0
    let image = try renderer.renderFollowingCancellationRule(startingWith: startPixel, isCancelled: isCancelled) {
      context in
      linesDrawn = draw(layout, placement: placement, in: context)
    }
    let toPixels = placement.layoutToImage
    let pixelMap = AffineMap(
      a: toPixels.a * scale, b: toPixels.b * scale, c: toPixels.c * scale, d: toPixels.d * scale,
      tx: toPixels.tx * scale, ty: toPixels.ty * scale)
    return RenderedText(
      image: image, lineCount: layout.lines.count, linesDrawn: linesDrawn,
      unknownGlyphCount: layout.unknownGlyphCount, isEllipsized: layout.isEllipsized,
      missingFontFamilies: FontCatalog.missingFamilies(in: style.fontFamily),
      boxes: collectsBoxes
        ? layout.boxes().shifted(by: style.orientation.isVertical ? layout.centredBaselineShifts() : []).mapped(
          by: pixelMap, inkOutset: stroke?.halfWidth ?? 0) : nil,
      text: collectsBoxes || collectsText ? layout.text : nil)
  }

  /// Draws `layout` through `placement`: the text's background, the stroke, then the glyphs.
  /// Returns the lines drawn (fewer when cancelled part-way).
  private func draw(_ layout: TextLayout, placement: Placement, in context: DrawingContext) -> Int {
    let cr = context.cairo.raw
    // The page clips the text, as the tile's edges clip an untransformed tile's.
    if transform.isIdentity {
      // The page is the image: a clip on whole pixels (no antialiased mask).
      context.clip(toPixelsCovering: Rect(x: 0, y: 0, width: placement.page.width, height: placement.page.height))
    } else {
      var points = cairo_matrix_t()
      cairo_get_matrix(cr, &points)
      var pageMatrix = Self.cairoMatrix(placement.pageToImage)
      cairo_transform(cr, &pageMatrix)
      cairo_rectangle(cr, 0, 0, placement.page.width, placement.page.height)
      cairo_clip(cr)
      cairo_set_matrix(cr, &points)
    }
    var layoutMatrix = Self.cairoMatrix(placement.layoutToImage)
    cairo_transform(cr, &layoutMatrix)
    // cairo's glyph path: the thread's compositor draws upright, untransformed glyphs only.
    context.glyphCompositing = .cairo
    if let background = style.backgroundColor {
      context.fill(Rect(origin: .zero, size: layout.size), color: background)
    }
    if let stroke {
      strokeOutline(of: layout, with: stroke, in: cr, isCancelled: { context.isCancelled })
      guard stroke.fills else { return context.isCancelled ? 0 : layout.lines.count }
    }
    return context.draw(layout, at: .zero, lines: 0..<layout.lines.count)
  }

  /// Strokes the contours of the shown lines' glyphs (round joins and caps: the outline reaches
  /// half the width past them and no further), checking `isCancelled` between lines.
  private func strokeOutline(
    of layout: TextLayout, with stroke: TextStroke, in cr: OpaquePointer, isCancelled: () -> Bool
  ) {
    cairo_new_path(cr)
    for line in layout.lines {
      if isCancelled() { return }
      guard let pangoLine = layout.pangoLine(line.index) else { break }
      // Where TextLayout.show puts a line: its logical left edge, on its baseline.
      cairo_move_to(cr, line.frame.minX, line.baseline)
      // The outlines come from cairo's process-wide glyph cache: one thread at a time.
      FontCacheLock.withLock { pango_cairo_layout_line_path(cr, pangoLine) }
    }
    let color = stroke.color.clamped
    cairo_set_source_rgba(cr, color.red, color.green, color.blue, color.alpha)
    cairo_set_line_width(cr, stroke.width)
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
    cairo_stroke(cr)
  }

  private static func cairoMatrix(_ map: AffineMap) -> cairo_matrix_t {
    cairo_matrix_t(xx: map.a, yx: map.b, xy: map.c, yy: map.d, x0: map.tx, y0: map.ty)
  }
}
