internal import CCairo

/// Composites the glyphs of a text layout through a glyph cache owned by one thread.
///
/// cairo 1.16's image compositor keeps one pixman glyph cache for the whole process and holds
/// `_cairo_glyph_cache_mutex` while it composites every glyph run, so threads that draw text take
/// turns: two draw threads reached ~1.6× one, and most of their context switches were waits on that
/// lock. This compositor does what cairo does for a run — the same glyph images (each rendered once
/// by cairo), the same rounded positions, the same choice between compositing glyphs directly and
/// through a mask — with a pixman glyph cache per thread, so threads share nothing. Pixels come out
/// identical to cairo's (the tests compare them).
///
/// Colour glyphs (emoji) are painted as cairo paints them (`composite_one_color_glyph`): their
/// colour image at the rounded glyph position, OVER, inside the clip, before the run's other glyphs.
///
/// It takes the common case: an image target, a solid colour with the OVER operator, a
/// scale-and-translate transform matching the fonts, a pixel-aligned clip, and runs without colour,
/// underline or rise attributes. Anything else is declined before drawing anything, and the caller
/// draws through cairo.
final class GlyphCompositor {
  /// The glyph caches, oldest first; new fonts join the last.
  private(set) var generations: [GlyphCacheGeneration] = []
  /// Per scaled font (keyed by its address), the glyphs seen: boxes for the overlap test, and the
  /// image in the font's generation.
  var fonts: [UInt: FontGlyphs] = [:] {
    didSet { lastFontGlyphs = nil }  // a dropped font's entry must not be found through the memo
  }
  /// The entry ``glyphs(of:)`` found last: a tile's runs mostly share one font, and the dictionary
  /// lookup (hashing, a retain) cost ~1,500 instructions a run. Its font is retained by it, so no
  /// other font can have its address while it is here.
  var lastFontGlyphs: FontGlyphs?
  /// Layouts this compositor has been asked to draw: the clock of ``GlyphCacheGeneration/lastUse``.
  private(set) var layoutCount = 0
  var limits = Limits()

  /// Layouts drawn here, and layouts declined (drawn by cairo instead); for tests and statistics.
  private(set) var layoutsComposited = 0
  private(set) var layoutsDeclined = 0
  /// Runs composited through a mask because their glyphs' boxes overlap (as cairo decides).
  private(set) var runsMasked = 0
  /// Glyph images rendered by cairo (each under ``FontCacheLock``), and generations dropped.
  var glyphsRendered = 0
  private(set) var generationsDropped = 0

  /// How much a thread keeps. Every glyph image rendered again costs a trip through
  /// ``FontCacheLock``, so the defaults hold a varied feed's working set: 240 tiles of the mixed
  /// workload (9 families, every weight, sizes 9–36, scales 1–3, 9 scripts) use 508 scaled fonts,
  /// 5 764 glyphs and 6.4 MB of images on one thread. Past that, the least recently used
  /// generation goes, and a working set larger than all generations together costs re-renders in
  /// proportion to what it lacks rather than a whole cache at a time.
  struct Limits {
    /// A generation takes no new fonts past these; a new generation starts.
    var fontsPerGeneration = 512
    var glyphsPerGeneration = 6_000
    var bytesPerGeneration = 16 << 20
    /// Generations kept: at most this many × the above, plus what old fonts add to theirs.
    var generations = 4
    /// Below pixman's own eviction (16 384): a generation never takes more glyphs than this, and
    /// one that reaches `glyphsPerGeneration × 2` is dropped at the next layout.
    var glyphsPerCache = 16_000
    /// Images of all generations: a layout that would pass it is left to cairo.
    var imageByteLimit = 128 << 20
  }

  init() {}

  /// Bytes of glyph images held, all generations.
  var imageBytes: Int { generations.reduce(0) { $0 + $1.imageBytes } }
  var colorBytes: Int { generations.reduce(0) { $0 + $1.colorBytes } }
  var glyphCount: Int { generations.reduce(0) { $0 + $1.glyphCount } }

  /// Draws `lines` of `layout` (each at its origin in user space) into `cr` with the source colour
  /// already set, checking `isCancelled` before each line.
  ///
  /// - Returns: the number of lines drawn, or nil when the layout or the context is outside what
  ///   this compositor handles; then nothing has been drawn.
  func show(lines: [PlacedLine], in cr: OpaquePointer, isCancelled: () -> Bool) -> Int? {
    guard let target = Target(cr) else {
      layoutsDeclined += 1
      return nil
    }
    layoutCount += 1
    makeRoom()
    // Generations only change here, between layouts: planned runs point into their caches.
    let frozen = generations
    for generation in frozen { pixman_glyph_cache_freeze(generation.cache) }
    defer { for generation in frozen { pixman_glyph_cache_thaw(generation.cache) } }
    var planned: [[PlannedRun]] = []
    planned.reserveCapacity(lines.count)
    for placed in lines {
      // pango's renderer starts from cairo's current point, which cairo keeps in 24.8 fixed point.
      cairo_move_to(cr, placed.origin.x, placed.origin.y)
      var origin = Point(x: 0, y: 0)
      cairo_get_current_point(cr, &origin.x, &origin.y)
      guard let runs = plan(placed, at: origin, target: target) else {
        layoutsDeclined += 1
        return nil
      }
      // A colour glyph's colours cannot be kept in one channel: cairo draws such a layout in colour.
      if target.format == PIXMAN_a8, runs.contains(where: { !$0.colorGlyphs.isEmpty }) {
        layoutsDeclined += 1
        return nil
      }
      planned.append(runs)
    }
    layoutsComposited += 1
    if target.format == PIXMAN_a8 {
      // The source is opaque here (TextTile's gray path sets it): only coverage is composited.
      return target.withBytes { bytes, stride in
        var drawn = 0
        for runs in planned {
          if isCancelled() { break }
          for run in runs { compositeA8(run, into: bytes, stride: stride, target: target) }
          drawn += 1
        }
        return drawn
      }
    }
    return target.withPixmanImages { destination, source in
      var drawn = 0
      for runs in planned {
        if isCancelled() { break }
        for run in runs { composite(run, source: source, destination: destination, clip: target.bounds) }
        drawn += 1
      }
      return drawn
    }
  }

  /// A line to draw: from `origin` (user space) plus an offset in pango units, as pango's
  /// renderer places it.
  struct PlacedLine {
    var line: UnsafeMutablePointer<PangoLayoutLine>
    var origin: Point
    var offsetX: Int32
    var offsetY: Int32
  }

  // MARK: Generations

  /// The generation new fonts join: the last, or a new one when the last is full.
  func newestGeneration() -> GlyphCacheGeneration {
    if let last = generations.last, last.fontCount < limits.fontsPerGeneration,
      last.glyphCount < limits.glyphsPerGeneration, last.imageBytes < limits.bytesPerGeneration
    {
      return last
    }
    let generation = GlyphCacheGeneration()
    generations.append(generation)
    return generation
  }

  /// Before a layout: starts a new generation if the last is full, drops generations that old
  /// fonts have overfilled, and drops the least recently used while there are too many.
  private func makeRoom() {
    let newest = newestGeneration()
    for generation in generations
    where generation !== newest && generation.glyphCount >= limits.glyphsPerGeneration * 2 {
      drop(generation)
    }
    while generations.count > max(1, limits.generations)
      || (imageBytes >= limits.imageByteLimit / 2 && generations.count > 1)
    {
      guard let oldest = generations.dropLast().min(by: { $0.lastUse < $1.lastUse }) else { break }
      drop(oldest)
    }
  }

  private func drop(_ generation: GlyphCacheGeneration) {
    generations.removeAll { $0 === generation }
    fonts = fonts.filter { $0.value.generation !== generation }
    generationsDropped += 1
  }

  // MARK: Planning

  /// One run's glyphs in device pixels, and whether cairo would composite it through a mask.
  private struct PlannedRun {
    /// The glyphs for pixman (ARGB32 targets; empty in A8 mode, which composites `masks`).
    var glyphs: [pixman_glyph_t]
    /// The cache holding the glyphs: their font's generation's.
    var cache: OpaquePointer
    /// Colour glyphs: painted first, in order, as `composite_color_glyphs` does.
    var colorGlyphs: [(glyph: ColorGlyph, x: Int32, y: Int32)] = []
    var usesMask: Bool
    /// In A8 mode, each inked glyph's image and where its top-left pixel goes.
    var masks: [(mask: GlyphMask, x: Int32, y: Int32)] = []
    /// The run's glyph boxes rounded out to pixels, cut to the clip: the area of the mask when
    /// there is one.
    var bounds = pixman_box32_t()
    /// True when the boxes reach outside the clip: cairo then clips the destination to `bounds`.
    var isClipped = false
  }

  /// The positions pango's cairo renderer gives each glyph of the line, mapped to device pixels as
  /// cairo maps them; nil when a run needs something only pango's renderer draws.
  private func plan(_ placed: PlacedLine, at origin: Point, target: Target) -> [PlannedRun]? {
    var runs: [PlannedRun] = []
    var xOffset: Int32 = 0  // pango units along the line, as pango_renderer_draw_layout_line counts
    var node = placed.line.pointee.runs
    while let current = node {
      node = current.pointee.next
      guard let run = current.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self).pointee,
        let item = run.item?.pointee, let glyphString = run.glyphs?.pointee
      else { return nil }
      guard item.analysis.flags & UInt8(PANGO_ANALYSIS_FLAG_CENTERED_BASELINE) == 0,
        Self.attributesAreDrawnByGlyphsAlone(item.analysis.extra_attrs),
        let pangoFont = item.analysis.font,
        let font = pango_cairo_font_get_scaled_font(OpaquePointer(pangoFont)),
        cairo_scaled_font_status(font) == CAIRO_STATUS_SUCCESS,
        target.matches(font)
      else { return nil }
      let width = pango_glyph_string_get_width(run.glyphs)
      xOffset += run.start_x_offset
      let baseX = origin.x + Double(placed.offsetX + xOffset) / Double(PANGO_SCALE)
      let baseY = origin.y + Double(placed.offsetY - run.y_offset) / Double(PANGO_SCALE)
      guard var planned = plan(glyphString, font: font, baseX: baseX, baseY: baseY, target: target) else {
        return nil
      }
      planned.glyphs.removeAll { $0.glyph == nil }  // blank glyphs count for the overlap test only
      if !planned.glyphs.isEmpty || !planned.masks.isEmpty || !planned.colorGlyphs.isEmpty { runs.append(planned) }
      xOffset += width + run.end_x_offset
    }
    return runs
  }

  private func plan(_ string: PangoGlyphString, font: OpaquePointer, baseX: Double, baseY: Double, target: Target)
    -> PlannedRun?
  {
    var scale = cairo_matrix_t()
    cairo_scaled_font_get_scale_matrix(font, &scale)
    // A sheared scale is a synthetic italic: it changes the glyph images and boxes, which cairo
    // renders, and not where glyphs go (the context's transform, checked to be a scale).
    let fontScale = max(abs(scale.xx) + abs(scale.xy), abs(scale.yx) + abs(scale.yy))  // max_scale
    let fontGlyphs = glyphs(of: font)
    var result = PlannedRun(glyphs: [], cache: fontGlyphs.generation.cache, usesMask: false)
    // In A8 mode only the masks are composited (compositeA8): no pixman glyph list is built.
    let a8 = target.format == PIXMAN_a8
    // Grown one append at a time, the masks cost 9 000 instructions per benchmark tile.
    if a8 {
      result.masks.reserveCapacity(Int(string.num_glyphs))
    } else {
      result.glyphs.reserveCapacity(Int(string.num_glyphs))
    }
    // _cairo_scaled_font_glyph_device_extents: overlap means a glyph's box meets the box of all
    // glyphs before it, in 24.8 fixed point, zero-size glyphs included in the box.
    var box = (x1: Int32.max, y1: Int32.max, x2: Int32.min, y2: Int32.min)
    var xPosition: Int32 = 0
    for index in 0..<Int(string.num_glyphs) {
      let pangoGlyph = string.glyphs[index]
      defer { xPosition += pangoGlyph.geometry.width }
      if pangoGlyph.glyph == PANGO_GLYPH_EMPTY { continue }
      if pangoGlyph.glyph & PANGO_GLYPH_UNKNOWN_FLAG != 0 {
        if pangoGlyph.glyph == (0x20 | PANGO_GLYPH_UNKNOWN_FLAG) { continue }  // pango draws no box for a space
        return nil  // pango draws a hex box
      }
      // pango_cairo_renderer_show_text_glyphs, then cairo's user-to-device transform.
      let geometry = pangoGlyph.geometry
      let userX = baseX + Double(xPosition + geometry.x_offset) / Double(PANGO_SCALE)
      let userY = geometry.y_offset == 0 ? baseY : baseY + Double(geometry.y_offset) / Double(PANGO_SCALE)
      let deviceX = target.ctm.xx * userX + target.ctm.x0
      let deviceY = target.ctm.yy * userY + target.ctm.y0
      guard target.keeps(deviceX, deviceY, fontScale: fontScale) else { return nil }
      guard let glyph = info(fontGlyphs, index: pangoGlyph.glyph) else { return nil }

      // Image surfaces turn cairo's round_glyph_positions on, so the boxes sit on rounded positions
      // (_cairo_lround, half up), where composite_glyphs also puts the glyph images.
      let pixelX = Int32((deviceX + 0.5).rounded(.down)), pixelY = Int32((deviceY + 0.5).rounded(.down))
      if let color = glyph.color {
        // cairo takes colour glyphs out of the run before it looks at overlaps and extents.
        result.colorGlyphs.append((color, pixelX &+ color.offsetX, pixelY &+ color.offsetY))
        continue
      }
      let fixedX = pixelX << 8, fixedY = pixelY << 8
      let x1 = fixedX &+ glyph.box.x1, x2 = fixedX &+ glyph.box.x2
      let y1 = fixedY &+ glyph.box.y1, y2 = fixedY &+ glyph.box.y2
      if !result.usesMask && x1 != x2 && y1 != y2 && x2 > box.x1 && x1 < box.x2 && y2 > box.y1 && y1 < box.y2 {
        result.usesMask = true
      }
      box = (min(box.x1, x1), min(box.y1, y1), max(box.x2, x2), max(box.y2, y2))

      if a8 {
        if glyph.image != nil {
          guard let mask = glyph.mask else { return nil }
          result.masks.append((mask, pixelX &- mask.originX, pixelY &- mask.originY))
        }
      } else {
        result.glyphs.append(pixman_glyph_t(x: pixelX, y: pixelY, glyph: glyph.image))  // nil: no ink, removed later
      }
    }
    // _cairo_box_round_to_rectangle. Inside the clip, cairo draws the run unclipped (ink that
    // hinting puts past the box included). When the box reaches outside (need_bounded_clip),
    // it clips the destination to the box cut to the clip, and skips a run with nothing inside.
    if box.x1 < box.x2 {
      let rounded = pixman_box32_t(
        x1: box.x1 >> 8, y1: box.y1 >> 8, x2: (box.x2 + 255) >> 8, y2: (box.y2 + 255) >> 8)
      if target.encloses(rounded) {
        result.bounds = rounded
      } else {
        result.isClipped = true
        result.bounds = pixman_box32_t(
          x1: max(rounded.x1, target.bounds.x1), y1: max(rounded.y1, target.bounds.y1),
          x2: min(rounded.x2, target.bounds.x2), y2: min(rounded.y2, target.bounds.y2))
        if result.bounds.x1 >= result.bounds.x2 || result.bounds.y1 >= result.bounds.y2 {
          result.glyphs = []
          result.masks = []
        }
      }
    }
    return result
  }

  /// `_cairo_fixed_from_double`: 24.8 fixed point, rounded to nearest even.
  static func fixed(_ value: Double) -> Int {
    Int((value * 256).rounded(.toNearestOrEven))
  }

  /// Attributes that only change which glyphs and fonts a run has; the rest (colours, lines,
  /// rise, shapes) are drawn by pango's renderer.
  static func attributesAreDrawnByGlyphsAlone(_ list: UnsafeMutablePointer<GSList>?) -> Bool {
    var node = list
    while let current = node {
      node = current.pointee.next
      guard let attribute = current.pointee.data?.assumingMemoryBound(to: PangoAttribute.self),
        let kind = attribute.pointee.klass?.pointee.type
      else { return false }
      if !glyphOnlyAttributes.contains(kind.rawValue) { return false }
    }
    return true
  }

  private static let glyphOnlyAttributes: Set<UInt32> = [
    PANGO_ATTR_LANGUAGE, PANGO_ATTR_FAMILY, PANGO_ATTR_STYLE, PANGO_ATTR_WEIGHT, PANGO_ATTR_VARIANT,
    PANGO_ATTR_STRETCH, PANGO_ATTR_SIZE, PANGO_ATTR_FONT_DESC, PANGO_ATTR_SCALE, PANGO_ATTR_FALLBACK,
    PANGO_ATTR_LETTER_SPACING, PANGO_ATTR_ABSOLUTE_SIZE, PANGO_ATTR_GRAVITY_HINT, PANGO_ATTR_FONT_FEATURES,
    PANGO_ATTR_ALLOW_BREAKS, PANGO_ATTR_INSERT_HYPHENS, PANGO_ATTR_LINE_HEIGHT, PANGO_ATTR_ABSOLUTE_LINE_HEIGHT,
    PANGO_ATTR_WORD, PANGO_ATTR_SENTENCE, PANGO_ATTR_TEXT_TRANSFORM,
  ].reduce(into: []) { $0.insert($1.rawValue) }

  // MARK: Compositing

  /// `composite(_:source:destination:clip:)` in A8 mode, with pixman's arithmetic
  /// (Sources/CCairo/gray_glyphs.h): each glyph OVER the destination, clipped to the surface (or to
  /// the run's box when cairo clips it), or, when the run's glyphs overlap, summed into a mask of
  /// the run's box first, as `pixman_composite_glyphs` does.
  private func compositeA8(_ run: PlannedRun, into bytes: UnsafeMutablePointer<UInt8>, stride: Int, target: Target) {
    guard !run.masks.isEmpty else { return }
    let end = UnsafePointer(bytes + stride * Int(target.height))
    let surface = pixman_box32_t(x1: 0, y1: 0, x2: target.width, y2: target.height)
    if run.usesMask {
      runsMasked += 1
      let area = run.bounds
      let width = Int(area.x2 - area.x1), height = Int(area.y2 - area.y1)
      guard width > 0, height > 0 else { return }
      // Padded as glyph images are (see GlyphCacheGeneration.insert).
      let maskStride = (width + 15) & ~15
      let mask = UnsafeMutablePointer<UInt8>.allocate(capacity: maskStride * height)
      defer { mask.deallocate() }
      mask.initialize(repeating: 0, count: maskStride * height)
      let maskEnd = UnsafePointer(mask + maskStride * height)
      for (glyph, x, y) in run.masks {
        asynclayer_a8_glyph(
          mask, maskStride, maskEnd, 0, 0, Int32(width), Int32(height), glyph.bits, Int(glyph.stride), glyph.width,
          glyph.height, x - area.x1, y - area.y1, 1)
      }
      asynclayer_a8_glyph(
        bytes, stride, end, surface.x1, surface.y1, surface.x2, surface.y2, mask, maskStride, Int32(width),
        Int32(height), area.x1, area.y1, 0)
    } else {
      let clip = run.isClipped ? run.bounds : surface
      for (glyph, x, y) in run.masks {
        asynclayer_a8_glyph(
          bytes, stride, end, clip.x1, clip.y1, clip.x2, clip.y2, glyph.bits, Int(glyph.stride), glyph.width,
          glyph.height, x, y, 0)
      }
    }
  }

  private func composite(_ run: PlannedRun, source: OpaquePointer, destination: OpaquePointer, clip: pixman_box32_t) {
    for (color, x, y) in run.colorGlyphs {
      // cairo paints the colour image through the clip: only the part inside it.
      let x1 = max(x, clip.x1), y1 = max(y, clip.y1)
      let x2 = min(x &+ color.width, clip.x2), y2 = min(y &+ color.height, clip.y2)
      guard x1 < x2, y1 < y2 else { continue }
      pixman_image_composite32(
        PIXMAN_OP_OVER, color.image, nil, destination, x1 - x, y1 - y, 0, 0, x1, y1, x2 - x1, y2 - y1)
    }
    guard !run.glyphs.isEmpty else { return }
    if run.isClipped {
      var region = pixman_region32_t()
      let area = run.bounds
      pixman_region32_init_rect(&region, area.x1, area.y1, UInt32(area.x2 - area.x1), UInt32(area.y2 - area.y1))
      pixman_image_set_clip_region32(destination, &region)
      pixman_region32_fini(&region)
    }
    defer { if run.isClipped { pixman_image_set_clip_region32(destination, nil) } }
    var glyphs = run.glyphs
    let count = Int32(glyphs.count)
    glyphs.withUnsafeMutableBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      if run.usesMask {
        runsMasked += 1
        let format = pixman_glyph_get_mask_format(run.cache, count, base)
        // Through a mask the size of the run's box: ink that hinting puts past the box is cut, as
        // in cairo. Directly (below), nothing is cut, as in cairo when the box is inside the clip.
        let area = run.bounds
        pixman_composite_glyphs(
          PIXMAN_OP_OVER, source, destination, format, area.x1, area.y1, area.x1, area.y1, area.x1, area.y1,
          area.x2 - area.x1, area.y2 - area.y1, run.cache, count, base)
      } else {
        pixman_composite_glyphs_no_mask(PIXMAN_OP_OVER, source, destination, 0, 0, 0, 0, run.cache, count, base)
      }
    }
  }
}
