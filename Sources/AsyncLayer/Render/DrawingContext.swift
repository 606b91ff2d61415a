internal import CCairo

/// What draw code draws with: rectangles, rounded rectangles, colours, clipping, transforms, text
/// layouts and images, in points.
///
/// A context belongs to the thread running the draw; it is not `Sendable` and must not outlive the
/// draw closure. Long draws poll ``isCancelled`` (or call ``checkCancellation()``) between steps so
/// that a redisplay stops them part-way.
///
/// ```swift
/// let image = try ImageRenderer(size: Size(width: 100, height: 40), scale: 2).render { context in
///   context.fill(roundedRect: Rect(x: 0, y: 0, width: 100, height: 40), cornerRadius: 8, color: .white)
///   try context.checkCancellation()
///   try context.draw(TextLayout(.plain("Hello"), style: TextStyle(), width: 100, scale: 2), at: .zero)
/// }
/// ```
public final class DrawingContext {
  let cairo: CairoContext
  private let cancellationCheck: () -> Bool

  /// The drawing area in points.
  public let size: Size
  /// Device pixels per point of the target.
  public let scale: Double

  init(context: CairoContext, size: Size, scale: Double, isCancelled: @escaping () -> Bool) {
    self.cairo = context
    self.size = size
    self.scale = scale
    self.cancellationCheck = isCancelled
  }

  private var cr: OpaquePointer { cairo.raw }

  /// How text drawn from here on reaches the pixels (see ``GlyphCompositing``).
  @_spi(Benchmarks) public var glyphCompositing: GlyphCompositing = .threadCache

  // MARK: Cancellation

  /// True once the draw this context serves has been cancelled (for example by `setNeedsDisplay`).
  /// Cheap enough to poll per line or per item.
  public var isCancelled: Bool { cancellationCheck() }

  /// Throws `CancellationError` when ``isCancelled`` is true.
  public func checkCancellation() throws {
    if cancellationCheck() { throw CancellationError() }
  }

  // MARK: Colour and shapes

  private func setSource(_ color: Color) {
    // cairo keeps a NaN channel as it is (and the glyph compositor converts it to an integer).
    let color = color.clamped
    cairo_set_source_rgba(cr, color.red, color.green, color.blue, color.alpha)
  }

  private func addRect(_ rect: Rect) {
    cairo_rectangle(cr, rect.minX, rect.minY, rect.width, rect.height)
  }

  private func addRoundedRect(_ rect: Rect, _ radius: Double) {
    let r = max(0, min(radius, rect.width / 2, rect.height / 2))
    guard r > 0 else { return addRect(rect) }
    cairo_new_sub_path(cr)
    cairo_arc(cr, rect.maxX - r, rect.minY + r, r, -Double.pi / 2, 0)
    cairo_arc(cr, rect.maxX - r, rect.maxY - r, r, 0, Double.pi / 2)
    cairo_arc(cr, rect.minX + r, rect.maxY - r, r, Double.pi / 2, Double.pi)
    cairo_arc(cr, rect.minX + r, rect.minY + r, r, Double.pi, 3 * Double.pi / 2)
    cairo_close_path(cr)
  }

  /// Replaces every pixel of the whole target (inside the clip) with `color`, alpha included.
  public func clear(to color: Color = .clear) {
    cairo_save(cr)
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
    setSource(color)
    cairo_paint(cr)
    cairo_restore(cr)
  }

  /// Fills a rectangle.
  public func fill(_ rect: Rect, color: Color) {
    setSource(color)
    addRect(rect)
    cairo_fill(cr)
  }

  /// Fills a rectangle with rounded corners.
  public func fill(roundedRect rect: Rect, cornerRadius: Double, color: Color) {
    setSource(color)
    addRoundedRect(rect, cornerRadius)
    cairo_fill(cr)
  }

  /// Strokes the outline of a rectangle, centred on its edges.
  public func stroke(_ rect: Rect, color: Color, lineWidth: Double = 1) {
    setSource(color)
    cairo_set_line_width(cr, lineWidth)
    addRect(rect)
    cairo_stroke(cr)
  }

  /// Strokes the outline of a rounded rectangle.
  public func stroke(roundedRect rect: Rect, cornerRadius: Double, color: Color, lineWidth: Double = 1) {
    setSource(color)
    cairo_set_line_width(cr, lineWidth)
    addRoundedRect(rect, cornerRadius)
    cairo_stroke(cr)
  }

  /// Strokes a straight line.
  public func strokeLine(from start: Point, to end: Point, color: Color, lineWidth: Double = 1) {
    setSource(color)
    cairo_set_line_width(cr, lineWidth)
    cairo_move_to(cr, start.x, start.y)
    cairo_line_to(cr, end.x, end.y)
    cairo_stroke(cr)
  }

  // MARK: Clipping and transforms

  /// Narrows drawing to a rectangle until the enclosing ``withSavedState(_:)`` ends.
  public func clip(to rect: Rect) {
    addRect(rect)
    cairo_clip(cr)
  }

  /// Narrows drawing to the whole device pixels `rect` touches.
  ///
  /// A tile of 37.4 points at scale 1.5 is 57 pixels tall, and a clip at its 56.1-pixel edge is one
  /// cairo applies through an antialiased mask, which also keeps text off the per-thread glyph
  /// compositor (onto cairo's locked path). Rounded out to pixels, the clip is a plain rectangle.
  func clip(toPixelsCovering rect: Rect) {
    var x1 = rect.minX, y1 = rect.minY, x2 = rect.maxX, y2 = rect.maxY
    cairo_user_to_device(cr, &x1, &y1)
    cairo_user_to_device(cr, &x2, &y2)
    var matrix = cairo_matrix_t()
    cairo_get_matrix(cr, &matrix)
    cairo_identity_matrix(cr)
    let left = min(x1, x2).rounded(.down), top = min(y1, y2).rounded(.down)
    cairo_rectangle(cr, left, top, max(x1, x2).rounded(.up) - left, max(y1, y2).rounded(.up) - top)
    cairo_set_matrix(cr, &matrix)
    cairo_clip(cr)
  }

  /// Narrows drawing to a rounded rectangle.
  public func clip(toRoundedRect rect: Rect, cornerRadius: Double) {
    addRoundedRect(rect, cornerRadius)
    cairo_clip(cr)
  }

  /// Moves the origin.
  public func translateBy(x: Double, y: Double) { cairo_translate(cr, x, y) }

  /// Scales the user space.
  public func scaleBy(x: Double, y: Double) { cairo_scale(cr, x, y) }

  /// Runs `body` and then restores the clip, transform and colour that were in force before it.
  public func withSavedState<R>(_ body: () throws -> R) rethrows -> R {
    cairo_save(cr)
    defer { cairo_restore(cr) }
    return try body()
  }

  /// Draws what `body` draws as one group, composited with `opacity` (0…1).
  public func withOpacity<R>(_ opacity: Double, _ body: () throws -> R) rethrows -> R {
    guard opacity < 1 else { return try body() }
    cairo_push_group(cr)
    defer {
      cairo_pop_group_to_source(cr)
      cairo_paint_with_alpha(cr, max(0, opacity))
    }
    return try body()
  }

  // MARK: Text

  /// Draws a laid-out text with its top-left corner at `origin`, in the style's colour.
  ///
  /// It draws line by line and checks ``isCancelled`` between lines, stopping part-way when the
  /// draw has been cancelled. Only the layout's visible lines are drawn (see ``TextStyle/maxLines``).
  /// - Returns: the number of lines drawn.
  @discardableResult
  public func draw(_ layout: TextLayout, at origin: Point) -> Int {
    if let background = layout.style.backgroundColor {
      fill(Rect(origin: origin, size: layout.size), color: background)
    }
    setSource(layout.style.color)
    return layout.show(
      in: cr, at: origin, threadGlyphCache: glyphCompositing == .threadCache, isCancelled: cancellationCheck)
  }

  /// Draws only the shown lines in `lines` (indices into ``TextLayout/lines``), as a draw of the
  /// whole layout draws them; the style's background is not drawn. Returns the lines drawn.
  func draw(_ layout: TextLayout, at origin: Point, lines: Range<Int>) -> Int {
    setSource(layout.style.color)
    return layout.show(
      in: cr, at: origin, lines: lines, threadGlyphCache: glyphCompositing == .threadCache,
      isCancelled: cancellationCheck)
  }

  // MARK: Images

  /// Draws an image scaled to fill `rect` (bilinear filtering).
  ///
  /// An image cairo cannot take as a source (wider or taller than
  /// ``ImageRenderer/maximumPixelsPerSide``, or no memory for its copy) draws nothing here, and
  /// the render, PDF or SVG page it belongs to then throws that ``RenderError``: the failure is
  /// recorded the way cairo records its own, so that a page never comes out silently blank.
  public func draw(_ image: RenderedImage, in rect: Rect) {
    guard image.pixelWidth > 0, image.pixelHeight > 0, !rect.size.isEmpty else { return }
    let source: CairoSurface
    do {
      source = try image.makeCairoSurface()
    } catch {
      cairo.record(error)
      return
    }
    cairo_save(cr)
    cairo_rectangle(cr, rect.minX, rect.minY, rect.width, rect.height)
    cairo_clip(cr)
    cairo_translate(cr, rect.minX, rect.minY)
    cairo_scale(cr, rect.width / Double(image.pixelWidth), rect.height / Double(image.pixelHeight))
    cairo_set_source_surface(cr, source.raw, 0, 0)
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
    cairo_paint(cr)
    cairo_restore(cr)
  }
}

extension RenderedImage {
  /// A copy of the pixels as a cairo image surface, to lend to cairo as a source.
  ///
  /// The surface is a copy owned by cairo: vector targets (PDF, SVG) keep a reference to their
  /// sources past the call, so lending the array's own storage would leave them a dangling pointer.
  /// - Throws: ``RenderError/surfaceTooLarge(pixelWidth:pixelHeight:limit:)`` past cairo's side
  ///   limit, ``RenderError/cairo(operation:status:)`` when cairo cannot allocate it.
  func makeCairoSurface() throws(RenderError) -> CairoSurface {
    let surface = try CairoSurface.image(pixelWidth: pixelWidth, pixelHeight: pixelHeight)
    cairo_surface_flush(surface.raw)
    let stride = Int(cairo_image_surface_get_stride(surface.raw))
    guard let destination = cairo_image_surface_get_data(surface.raw) else {
      throw .cairo(operation: "cairo_image_surface_get_data", status: "the surface has no pixel data")
    }
    pixels.withUnsafeBytes { source in
      for row in 0..<pixelHeight {
        (destination + row * stride).update(
          from: source.baseAddress!.advanced(by: row * pixelWidth * 4).assumingMemoryBound(to: UInt8.self),
          count: pixelWidth * 4)
      }
    }
    cairo_surface_mark_dirty(surface.raw)
    return surface
  }
}
