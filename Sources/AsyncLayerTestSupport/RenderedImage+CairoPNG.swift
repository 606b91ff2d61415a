package import AsyncLayer
internal import CCairo
package import Foundation

extension RenderedImage {
  /// Encodes the image as PNG with cairo's writer (libpng, zlib level 6 — thorough but slow): the
  /// reference that the tests and `layerbench throughput` hold ``pngData()`` against.
  package func cairoPNGData() throws -> Data {
    let limit = ImageRenderer.maximumPixelsPerSide
    guard (0...limit).contains(pixelWidth), (0...limit).contains(pixelHeight) else {
      throw RenderError.surfaceTooLarge(pixelWidth: pixelWidth, pixelHeight: pixelHeight, limit: limit)
    }
    let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(pixelWidth), Int32(pixelHeight))!
    defer { cairo_surface_destroy(surface) }
    try check(cairo_surface_status(surface), "cairo_image_surface_create")
    // The pixels are cairo's premultiplied ARGB32 already: copied row by row into the surface's stride.
    cairo_surface_flush(surface)
    let stride = Int(cairo_image_surface_get_stride(surface))
    guard let destination = cairo_image_surface_get_data(surface) else {
      throw RenderError.cairo(operation: "cairo_image_surface_get_data", status: "the surface has no pixel data")
    }
    pixels.withUnsafeBytes { source in
      for row in 0..<pixelHeight {
        (destination + row * stride).update(
          from: source.baseAddress!.advanced(by: row * pixelWidth * 4).assumingMemoryBound(to: UInt8.self),
          count: pixelWidth * 4)
      }
    }
    cairo_surface_mark_dirty(surface)
    var output = Data()
    let status = withUnsafeMutablePointer(to: &output) { pointer in
      cairo_surface_write_to_png_stream(
        surface,
        { closure, bytes, length in
          closure!.assumingMemoryBound(to: Data.self).pointee.append(bytes!, count: Int(length))
          return CAIRO_STATUS_SUCCESS
        }, pointer)
    }
    try check(status, "PNG encode")
    guard !output.isEmpty else { throw RenderError.encodeFailed("cairo wrote no PNG bytes") }
    return output
  }

  private func check(_ status: cairo_status_t, _ operation: String) throws {
    guard status == CAIRO_STATUS_SUCCESS else {
      throw RenderError.cairo(operation: operation, status: String(cString: cairo_status_to_string(status)))
    }
  }
}
