internal import CCairo
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Renders draw code into a new ``RenderedImage`` of a given size and scale.
///
/// The renderer validates its dimensions up front, so a bad width, height or scale fails with a
/// ``RenderError`` before any memory is touched:
///
/// ```swift
/// let renderer = try ImageRenderer(size: Size(width: 375, height: 120), scale: 2)
/// let image = try renderer.render { context in
///   context.fill(Rect(x: 0, y: 0, width: 375, height: 120), color: .white)
/// }
/// ```
public struct ImageRenderer: Sendable, Hashable {
  /// cairo's image surfaces are limited to 32767 pixels per side.
  public static let maximumPixelsPerSide = 32767
  /// The default memory cap for one image: 512 MiB.
  public static let defaultMemoryCap = 512 << 20
  /// The smallest scale accepted, 1/100 device pixel per point: below it a whole page or tile
  /// collapses to a few pixels (a 375-point tile at a scale of 1e-9 would be 1×1 pixel).
  public static let minimumScale = 0.01

  /// The size in points.
  public let size: Size
  /// Device pixels per point.
  public let scale: Double
  /// Width in device pixels: `ceil(size.width * scale)`.
  public let pixelWidth: Int
  /// Height in device pixels: `ceil(size.height * scale)`.
  public let pixelHeight: Int

  /// Validates the dimensions; throws ``RenderError`` when they are not positive and finite, when
  /// the scale is below ``minimumScale``, when a side exceeds ``maximumPixelsPerSide`` or when the
  /// pixels would exceed `memoryCap` bytes.
  public init(size: Size, scale: Double = 1, memoryCap: Int = ImageRenderer.defaultMemoryCap) throws {
    try Self.validate(size.width, "width")
    try Self.validate(size.height, "height")
    try Self.validateScale(scale)
    let w = (size.width * scale).rounded(.up)
    let h = (size.height * scale).rounded(.up)
    let limit = Double(Self.maximumPixelsPerSide)
    guard w <= limit, h <= limit else {
      throw RenderError.surfaceTooLarge(
        pixelWidth: w > Double(Int.max / 8) ? Int.max / 8 : Int(w),
        pixelHeight: h > Double(Int.max / 8) ? Int.max / 8 : Int(h), limit: Self.maximumPixelsPerSide)
    }
    let bytes = Int(w) * Int(h) * 4
    guard bytes <= memoryCap else { throw RenderError.memoryCapExceeded(bytes: bytes, cap: memoryCap) }
    self.size = size
    self.scale = scale
    self.pixelWidth = Int(w)
    self.pixelHeight = Int(h)
  }

  static func validate(_ value: Double, _ name: String) throws {
    guard value.isFinite, value > 0 else { throw RenderError.invalidDimension(name: name, value: value) }
  }

  /// Positive, finite and at least ``minimumScale``.
  static func validateScale(_ scale: Double) throws {
    try validate(scale, "scale")
    guard scale >= minimumScale else {
      throw RenderError.invalidValue(
        name: "scale", value: "\(scale)",
        expected:
          "at least \(minimumScale) (ImageRenderer.minimumScale): a smaller scale collapses the drawing to a few pixels"
      )
    }
  }

  /// Runs `draw` on this thread with a context scaled to points and returns the pixels.
  ///
  /// The image starts transparent. `isCancelled` is what ``DrawingContext/isCancelled`` reports to
  /// the draw code. If `draw` throws (for example `CancellationError` from
  /// ``DrawingContext/checkCancellation()``), so does this.
  ///
  /// **Cancellation rule** (the same as the async ``render(on:_:)``): a render is cancelled when
  /// `isCancelled` returns true at any check — before the buffer is allocated, while it is filled
  /// (every few megabytes), at the draw code's checks, or once more at the end — and a cancelled
  /// render throws `CancellationError`; it never returns a partly drawn image, even when the draw
  /// code stopped without throwing (``DrawingContext/draw(_:at:)`` just stops between lines).
  ///
  /// ```swift
  /// let stop = Atomic<Bool>(false)
  /// do {
  ///   let image = try renderer.render(isCancelled: { stop.load(ordering: .relaxed) }) { context in
  ///     context.draw(layout, at: .zero)
  ///   }
  /// } catch is CancellationError {
  ///   // stopped part-way: nothing to show
  /// }
  /// ```
  public func render(
    isCancelled: @escaping () -> Bool = { false },
    _ draw: (DrawingContext) throws -> Void
  ) throws -> RenderedImage {
    try renderFollowingCancellationRule(startingWith: 0, isCancelled: isCancelled, draw)
  }

  /// ``render(isCancelled:_:)`` with every pixel starting at `pixel` (premultiplied ARGB32): the
  /// buffer filled with it in chunks, checking for cancellation between them.
  func renderFollowingCancellationRule(
    startingWith pixel: UInt32, isCancelled: @escaping () -> Bool, _ draw: (DrawingContext) throws -> Void
  ) throws -> RenderedImage {
    // Once seen, a cancellation stays: the draw code may have stopped at it without throwing.
    var cancelled = false
    let check = {
      if !cancelled { cancelled = isCancelled() }
      return cancelled
    }
    if check() { throw CancellationError() }
    let image = try render(startingWith: pixel, isCancelled: check, pollsWhileFilling: true, draw)
    if check() { throw CancellationError() }
    return image
  }

  /// The pixel `DrawingContext.clear(to: color)` writes (cairo's own conversion, read off a 1×1
  /// image), so that a buffer can start with it instead of being painted a second time.
  ///
  /// Remembered per colour (a few dozen at most): the 1×1 surface, context and image cost ~6,500
  /// instructions, 0.7% of a text tile's render, for a value that depends on the colour alone.
  static func clearPixel(_ color: Color) throws -> UInt32 {
    if let known = clearPixels.withLock({ $0[color] }) { return known }
    let pixel = try ImageRenderer(size: Size(width: 1, height: 1)).render(startingWith: 0) { $0.clear(to: color) }
      .pixels[0]
    clearPixels.withLock { known in
      // A bound, not an eviction policy: a feed of ever new colours (or NaN, never equal to itself)
      // starts over instead of growing.
      if known.count >= 64 { known.removeAll(keepingCapacity: true) }
      known[color] = pixel
    }
    return pixel
  }

  private static let clearPixels = Mutex<[Color: UInt32]>([:])

  /// Whether the pixel grid covers ``size`` exactly (no partly covered edge pixels): a fill of the
  /// whole size then sets every pixel to one value, which ``render(startingWith:reusing:isCancelled:_:)`` can
  /// write in the same pass that initializes the memory.
  var coversWholePixels: Bool {
    Double(pixelWidth) == size.width * scale && Double(pixelHeight) == size.height * scale
  }

  /// Renders with every pixel starting at `pixel` (premultiplied ARGB32): one pass over the memory
  /// instead of zeroing it and then filling a background over it. With a `recycler` holding a spare
  /// buffer of this size, the pixels are written over the spare instead of fresh memory; a draw that
  /// throws gives its buffer (the spare or the new memory) to the recycler. `pollsWhileFilling`:
  /// `isCancelled` is also checked every ``fillChunk`` pixels while the buffer is filled (the
  /// engine's draws leave it off: their poll counts are what its tests stop draws at).
  func render(
    startingWith pixel: UInt32, reusing recycler: PixelRecycler? = nil, isCancelled: @escaping () -> Bool = { false },
    pollsWhileFilling: Bool = false, _ draw: (DrawingContext) throws -> Void
  ) throws -> RenderedImage {
    let spare = recycler?.take(count: pixelWidth * pixelHeight)?.pixels ?? []
    let (pixels, failure) = self.draw(
      over: spare, rows: 0..<pixelHeight, startingWith: pixel, isCancelled: isCancelled,
      fillCheck: pollsWhileFilling ? isCancelled : { false }, draw)
    if let failure {
      recycler?.giveBack(pixels)
      throw failure
    }
    return RenderedImage(pixelWidth: pixelWidth, pixelHeight: pixelHeight, scale: scale, pixels: pixels)
  }

  /// Sets `rows` of `pixels` to `pixel` and runs `draw` over them; empty `pixels` means new memory,
  /// every row. Returns the buffer with the error `draw` threw, if any, so that the caller can give a
  /// part-written buffer back. cairo draws straight into the array's storage: no copy between
  /// render and result, and none of a spare held only here (unique: written in place).
  private func draw(
    over pixels: consuming [UInt32], rows: Range<Int>, startingWith pixel: UInt32,
    isCancelled: @escaping () -> Bool, fillCheck: () -> Bool, _ draw: (DrawingContext) throws -> Void
  ) -> (pixels: [UInt32], failure: (any Error)?) {
    var pixels = pixels
    var failure: (any Error)? = nil
    func run(_ base: UnsafeMutablePointer<UInt32>) {
      do {
        try self.draw(into: base, rows: rows, isCancelled: isCancelled, draw)
      } catch {
        failure = error
      }
    }
    if pixels.isEmpty {
      let count = pixelWidth * pixelHeight
      pixels = [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
        let base = buffer.baseAddress!
        Self.adviseHugePages(UnsafeMutableRawPointer(base), byteCount: count * 4)
        initialized = Self.fill(base, count: count, with: pixel, initializing: true, isCancelled: fillCheck)
        guard initialized == count else {
          failure = CancellationError()
          return
        }
        run(base)
      }
      // Cancelled while filling: the part-filled memory is no spare for anyone.
      if failure != nil { pixels = [] }
    } else {
      // Unique here unless someone kept the old contents: then this copies them first.
      pixels.withUnsafeMutableBufferPointer { buffer in
        let base = buffer.baseAddress!
        let count = rows.count * pixelWidth
        let filled = Self.fill(
          base + rows.lowerBound * pixelWidth, count: count, with: pixel, initializing: false, isCancelled: fillCheck)
        guard filled == count else {
          failure = CancellationError()
          return
        }
        run(base)
      }
    }
    return (pixels, failure)
  }

  /// Pixels filled between two cancellation checks while a buffer is cleared: 4 MiB, a
  /// millisecond or two of memory bandwidth (the whole of a 12000 × 10000 pixel buffer takes
  /// hundreds of milliseconds, most of it faulting fresh pages in).
  static let fillChunk = 1 << 20

  /// Fills `count` pixels at `base` with `pixel` (initializing new memory, or updating old), in
  /// chunks of ``fillChunk`` with `isCancelled` checked before each one. Returns the pixels filled:
  /// fewer than `count` when it was cancelled.
  static func fill(
    _ base: UnsafeMutablePointer<UInt32>, count: Int, with pixel: UInt32, initializing: Bool,
    isCancelled: () -> Bool
  ) -> Int {
    var done = 0
    while done < count {
      if isCancelled() { return done }
      let chunk = min(fillChunk, count - done)
      if initializing {
        (base + done).initialize(repeating: pixel, count: chunk)
      } else {
        (base + done).update(repeating: pixel, count: chunk)
      }
      done += chunk
    }
    return done
  }

  /// Renders a banded drawing (see ``BandRecord``) with every pixel starting at `pixel`, drawing
  /// only the rows where what it draws over differs from it:
  /// - the recycler's spare, when its record can be compared (it shows an older state);
  /// - else a copy of `shown` (the contents on screen, one state old), when its record can be and
  ///   a quarter of the rows or more stay — a copy costs a fraction of drawing, and breaks the loop
  ///   in which every draw, cancelled before its commit, leaves no spare with a record for the next;
  /// - else nothing: every row is drawn.
  ///
  /// The image carries the drawing's record. A draw that throws gives its buffer to the recycler,
  /// with the record of what it drew over, its damaged rows marked part-written (none: new memory).
  func render(
    startingWith pixel: UInt32, reusing recycler: PixelRecycler?, shown: RenderedImage? = nil,
    banded: BandedDrawing, isCancelled: @escaping () -> Bool
  ) throws -> RenderedImage {
    var record = banded.record
    var hasher = Hasher()
    hasher.combine(record.key)
    hasher.combine(pixel)
    hasher.combine(pixelWidth)
    hasher.combine(pixelHeight)
    hasher.combine(scale.bitPattern)
    record.key = hasher.finalize()
    let count = pixelWidth * pixelHeight
    var spare = recycler?.take(count: count)
    var pixels: [UInt32] = []
    var reference = spare?.bands
    if spare != nil { swap(&pixels, &spare!.pixels) }  // moved out, unique: written in place, not copied
    var damage = reference.flatMap { BandRecord.damage(from: $0, to: record, height: pixelHeight) }
    // The copy pays when it saves drawing: when a quarter of the rows or more stay as they are.
    if damage == nil, let shown, shown.pixels.count == count, let shownBands = shown.bands,
      let shownDamage = BandRecord.damage(from: shownBands, to: record, height: pixelHeight),
      shownDamage.rows.count <= pixelHeight - pixelHeight / 4
    {
      shown.pixels.withUnsafeBufferPointer { source in
        if pixels.isEmpty {
          pixels = [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
            Self.adviseHugePages(UnsafeMutableRawPointer(buffer.baseAddress!), byteCount: count * 4)
            buffer.baseAddress!.initialize(from: source.baseAddress!, count: count)
            initialized = count
          }
        } else {
          pixels.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: source.baseAddress!, count: count) }
        }
      }
      reference = shownBands
      damage = shownDamage
    }
    // New memory (no spare, nothing copied) or no comparable record: every row.
    let rows = damage?.rows ?? 0..<pixelHeight
    guard !rows.isEmpty else {
      var image = RenderedImage(pixelWidth: pixelWidth, pixelHeight: pixelHeight, scale: scale, pixels: pixels)
      image.bands = record
      return image
    }
    let bands = damage?.newBands ?? 0..<record.bands.count
    let (drawn, failure) = draw(
      over: consume pixels, rows: rows, startingWith: pixel, isCancelled: isCancelled, fillCheck: { false }
    ) { try banded.draw($0, bands) }
    if let failure {
      recycler?.giveBack(drawn, bands: damage.flatMap { damage in reference?.invalidating(damage) })
      throw failure
    }
    var image = RenderedImage(pixelWidth: pixelWidth, pixelHeight: pixelHeight, scale: scale, pixels: drawn)
    image.bands = record
    return image
  }

  /// Runs `draw` on a cairo surface over `rows` of `base`, `pixelWidth × pixelHeight` initialized
  /// pixels. The draw code sees the whole image's coordinates; the surface holds only those rows
  /// (its device offset moves them into place, by whole pixels, so every glyph lands on exactly the
  /// pixels a draw of the whole image gives it).
  private func draw(
    into base: UnsafeMutablePointer<UInt32>, rows: Range<Int>, isCancelled: @escaping () -> Bool,
    _ draw: (DrawingContext) throws -> Void
  ) throws {
    let raw = UnsafeMutableRawPointer(base + rows.lowerBound * pixelWidth).assumingMemoryBound(to: UInt8.self)
    let surface = try CairoSurface(
      taking: cairo_image_surface_create_for_data(
        raw, CAIRO_FORMAT_ARGB32, Int32(pixelWidth), Int32(rows.count), Int32(pixelWidth * 4)),
      operation: "cairo_image_surface_create_for_data")
    if rows.lowerBound > 0 { cairo_surface_set_device_offset(surface.raw, 0, -Double(rows.lowerBound)) }
    // Finishing detaches the surface from the array, even if `draw` leaked the context.
    defer { cairo_surface_finish(surface.raw) }
    let context = try CairoContext(surface: surface)
    cairo_scale(context.raw, scale, scale)
    let drawing = DrawingContext(context: context, size: size, scale: scale, isCancelled: isCancelled)
    try draw(drawing)
    try context.check("drawing")
    cairo_surface_flush(surface.raw)
  }

  /// Images from this size up ask the kernel for 2 MiB pages.
  static let hugePageThreshold = 8 << 20

  /// Asks for transparent huge pages on the 2 MiB-aligned part of a large, not yet touched buffer.
  /// A tall text layer's contents (a long document at 2×: 100 MB and more) otherwise take one page
  /// fault per 4 KiB on first touch: a quarter of a 6,000-word paragraph's draw went to faulting in
  /// and zeroing fresh pages. Only a hint: where the kernel has huge pages off, nothing changes.
  static func adviseHugePages(_ start: UnsafeMutableRawPointer, byteCount: Int) {
    #if os(Linux)
      guard byteCount >= hugePageThreshold else { return }
      let huge = UInt(2 << 20)
      let first = (UInt(bitPattern: start) + huge - 1) & ~(huge - 1)
      let end = (UInt(bitPattern: start) + UInt(byteCount)) & ~(huge - 1)
      guard end > first, let aligned = UnsafeMutableRawPointer(bitPattern: first) else { return }
      _ = madvise(aligned, Int(end - first), MADV_HUGEPAGE)
    #endif
  }
}
