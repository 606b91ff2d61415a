internal import CCairo

// Owners of cairo's C handles. Each handle has exactly one Swift owner that destroys it once, in
// `deinit`. The owners are deliberately not Sendable: a cairo context or surface is used by one
// thread at a time, and the rendered result leaves that thread as an immutable `RenderedImage`.

/// Turns a cairo status into a typed error.
@inline(__always)
func checkCairo(_ status: cairo_status_t, _ operation: String) throws(RenderError) {
  guard status == CAIRO_STATUS_SUCCESS else {
    throw .cairo(operation: operation, status: String(cString: cairo_status_to_string(status)))
  }
}

/// Owns one `cairo_surface_t`.
final class CairoSurface {
  let raw: OpaquePointer

  /// Takes ownership of `raw` (a reference the caller was given by a `create` call), checking its
  /// status: cairo never returns NULL, it returns an "error surface" that carries the status.
  init(taking raw: OpaquePointer, operation: String) throws(RenderError) {
    self.raw = raw
    try checkCairo(cairo_surface_status(raw), operation)
  }

  /// A new ARGB32 image surface, cleared to transparent.
  static func image(pixelWidth: Int, pixelHeight: Int) throws(RenderError) -> CairoSurface {
    // A RenderedImage may be built with any dimensions; cairo takes 32-bit ones up to 32767.
    let limit = ImageRenderer.maximumPixelsPerSide
    guard (0...limit).contains(pixelWidth), (0...limit).contains(pixelHeight) else {
      throw .surfaceTooLarge(pixelWidth: pixelWidth, pixelHeight: pixelHeight, limit: limit)
    }
    return try CairoSurface(
      taking: cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(pixelWidth), Int32(pixelHeight)),
      operation: "cairo_image_surface_create")
  }

  /// Completes pending drawing and reports any error the surface recorded.
  func finish() throws {
    cairo_surface_finish(raw)
    try checkCairo(cairo_surface_status(raw), "cairo_surface_finish")
  }

  deinit { cairo_surface_destroy(raw) }
}

/// Owns one `cairo_t`.
final class CairoContext {
  let raw: OpaquePointer
  /// Keeps the target alive for as long as the context draws into it.
  let surface: CairoSurface

  init(surface: CairoSurface) throws {
    self.surface = surface
    self.raw = cairo_create(surface.raw)
    try checkCairo(cairo_status(raw), "cairo_create")
  }

  /// The first failure of a drawing call that cannot throw (see ``record(_:)``).
  private(set) var recordedFailure: RenderError?

  /// Keeps the first failure of a drawing call that cannot throw, as cairo keeps its first error
  /// status: ``check(_:)`` throws it once the drawing is done.
  func record(_ failure: RenderError) {
    if recordedFailure == nil { recordedFailure = failure }
  }

  /// The context's status: cairo records the first error and ignores later calls. A failure
  /// ``record(_:)`` kept comes first.
  func check(_ operation: String) throws {
    if let recordedFailure { throw recordedFailure }
    try checkCairo(cairo_status(raw), operation)
  }

  deinit { cairo_destroy(raw) }
}
