internal import CCairo

extension TextTile {
  /// The gray value (0…255) of the background and whether the text is black, when this tile can be
  /// drawn in one byte per pixel: black or white opaque text, no text background, on an opaque gray
  /// background, through the thread's glyph compositor. nil otherwise.
  ///
  /// Why only black and white text: pixman composites a glyph's coverage `m` into a colour channel
  /// `d` as `MUL(c, m) + MUL(d, 255 − m)` (`MUL` rounding `x·y/255` to the nearest integer) and into
  /// an A8 byte `a` as `m + MUL(a, 255 − m)`. With white text (`c` = 255) the two are the same
  /// formula, so an A8 surface cleared to the background's gray holds the gray; with black text
  /// (`c` = 0), since `MUL(x, y) + MUL(255 − x, y) = y` exactly, `255 − d` follows the A8 formula,
  /// so an A8 surface cleared to 255 − gray holds 255 − gray. This holds pixel by pixel however
  /// often glyphs overlap. For other grays, coverage accumulated and then mapped rounds differently
  /// where glyphs overlap, so those tiles keep ARGB32.
  func grayPlan() throws -> (backgroundGray: UInt8, blackText: Bool)? {
    guard drawsGray, glyphCompositing == .threadCache, style.backgroundColor == nil, let background else {
      return nil
    }
    let text = style.color.clamped
    guard text.alpha == 1 else { return nil }
    let blackText: Bool
    if text.red == 0 && text.green == 0 && text.blue == 0 {
      blackText = true
    } else if text.red == 1 && text.green == 1 && text.blue == 1 {
      blackText = false
    } else {
      return nil
    }
    // The background pixel exactly as the ARGB32 path clears to it.
    let pixel = try ImageRenderer.clearPixel(background)
    let gray = UInt8(truncatingIfNeeded: pixel)
    guard pixel == GrayPixels.argb(gray) else { return nil }
    return (gray, blackText)
  }

  /// Draws `layout` at `origin` into one byte per pixel (see ``grayPlan()``), following the
  /// cancellation rule of ``render(isCancelled:)``: `isCancelled` is checked before and while the
  /// bytes are filled, between lines and at the end. Returns nil, having drawn nothing that
  /// counts, when the glyph compositor declines the layout (colour glyphs, underlines, shapes…):
  /// the caller then draws in ARGB32.
  func renderGray(
    _ layout: TextLayout, at origin: Point, clip: Rect, renderer: ImageRenderer,
    plan: (backgroundGray: UInt8, blackText: Bool), isCancelled: @escaping () -> Bool
  ) throws -> (image: RenderedImage, linesDrawn: Int)? {
    var cancelled = false
    let check = {
      if !cancelled { cancelled = isCancelled() }
      return cancelled
    }
    if check() { throw CancellationError() }
    let width = renderer.pixelWidth, height = renderer.pixelHeight
    let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_A8, Int32(width)))
    guard stride >= width else { return nil }
    let count = stride * height
    let initial = plan.blackText ? 255 - plan.backgroundGray : plan.backgroundGray
    var bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      var done = 0
      // In chunks, with a cancellation check before each, as ImageRenderer fills ARGB32 pixels.
      while done < count, !check() {
        let chunk = min(ImageRenderer.fillChunk * 4, count - done)
        (buffer.baseAddress! + done).initialize(repeating: initial, count: chunk)
        done += chunk
      }
      initialized = done
    }
    guard bytes.count == count else { throw CancellationError() }
    let drawn = try bytes.withUnsafeMutableBufferPointer { buffer -> Int? in
      let surface = try CairoSurface(
        taking: cairo_image_surface_create_for_data(
          buffer.baseAddress!, CAIRO_FORMAT_A8, Int32(width), Int32(height), Int32(stride)),
        operation: "cairo_image_surface_create_for_data")
      // Finishing detaches the surface from the array.
      defer { cairo_surface_finish(surface.raw) }
      let context = try CairoContext(surface: surface)
      cairo_scale(context.raw, renderer.scale, renderer.scale)
      let drawing = DrawingContext(context: context, size: renderer.size, scale: renderer.scale, isCancelled: check)
      drawing.clip(toPixelsCovering: clip)
      // Opaque: on A8 only the alpha counts (see grayPlan).
      cairo_set_source_rgba(context.raw, 0, 0, 0, 1)
      let drawn = layout.showThroughCompositor(in: context.raw, at: origin, isCancelled: check)
      try context.check("drawing")
      cairo_surface_flush(surface.raw)
      return drawn
    }
    guard let drawn else { return nil }
    if check() { throw CancellationError() }
    let gray = GrayPixels(width: width, height: height, stride: stride, inverted: plan.blackText, bytes: bytes)
    return (RenderedImage(gray: gray, scale: renderer.scale), drawn)
  }
}
