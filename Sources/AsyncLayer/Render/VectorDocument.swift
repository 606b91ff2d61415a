internal import CCairo
import Foundation

/// Owns one cairo PDF or SVG surface that writes into memory, and the buffer it writes to.
///
/// cairo calls the write function until the surface is finished, so the buffer is kept alive (one
/// retain, released in `deinit`) until after `cairo_surface_finish`. Text drawn with pango_cairo
/// stays text in a PDF (selectable, extractable); cairo's SVG surface draws glyphs as `<symbol>`
/// outlines referenced by `<use>`, so an SVG keeps the look but not the characters.
final class VectorDocument {
  /// PDF document information besides the title and the creator.
  enum PDFMetadataField: Int, Sendable {
    case author, subject, keywords, createDate

    var cairo: cairo_pdf_metadata_t {
      switch self {
      case .author: return CAIRO_PDF_METADATA_AUTHOR
      case .subject: return CAIRO_PDF_METADATA_SUBJECT
      case .keywords: return CAIRO_PDF_METADATA_KEYWORDS
      case .createDate: return CAIRO_PDF_METADATA_CREATE_DATE
      }
    }
  }

  enum Format {
    case pdf
    case svg
  }

  /// Collects the bytes the surface writes. cairo calls the write function once per PDF operator
  /// or object line it prints (tens of thousands of times for a tagged PDF's structure tree), so
  /// the buffer is a plain growing block of memory reached through a pointer: `Data.append` cost
  /// about 145 M instructions on the tagged 2,000-row table, most of it its own checks, and a class
  /// property would pay Swift's dynamic exclusivity check on every call.
  private struct Output {
    var bytes: UnsafeMutableRawPointer?
    var count = 0
    var capacity = 0

    /// Appends `length` bytes; false when the memory cannot be had (cairo then records a write
    /// error, which ``finish()`` throws).
    mutating func append(_ data: UnsafeRawPointer, count length: Int) -> Bool {
      if length > capacity - count {
        guard length <= Int.max / 2 - count else { return false }
        let wanted = max(64 * 1024, capacity * 2, count + length)
        guard let grown = realloc(bytes, wanted) else { return false }
        (bytes, capacity) = (grown, wanted)
      }
      guard let bytes else { return length == 0 }
      (bytes + count).copyMemory(from: data, byteCount: length)
      count += length
      return true
    }
  }

  let surface: CairoSurface
  let format: Format
  private let output: UnsafeMutablePointer<Output>

  /// A document whose (first) page is `size` points.
  init(format: Format, size: Size, title: String? = nil, metadata: [PDFMetadataField: String] = [:]) throws {
    try ImageRenderer.validate(size.width, "page width")
    try ImageRenderer.validate(size.height, "page height")
    let output = UnsafeMutablePointer<Output>.allocate(capacity: 1)
    output.initialize(to: Output())
    let write: cairo_write_func_t = { closure, data, length in
      guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
      let appended = closure.assumingMemoryBound(to: Output.self).pointee.append(data, count: Int(length))
      return appended ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR
    }
    let raw: OpaquePointer
    let closure = UnsafeMutableRawPointer(output)
    switch format {
    case .pdf: raw = cairo_pdf_surface_create_for_stream(write, closure, size.width, size.height)
    case .svg: raw = cairo_svg_surface_create_for_stream(write, closure, size.width, size.height)
    }
    do {
      let operation = format == .pdf ? "cairo_pdf_surface_create_for_stream" : "cairo_svg_surface_create_for_stream"
      surface = try CairoSurface(taking: raw, operation: operation)
    } catch {
      // An error surface never writes; the failed owner has already destroyed it.
      free(output.pointee.bytes)
      output.deinitialize(count: 1)
      output.deallocate()
      throw error
    }
    self.format = format
    self.output = output
    if format == .pdf {
      cairo_pdf_surface_set_metadata(surface.raw, CAIRO_PDF_METADATA_CREATOR, "AsyncLayer")
      if let title { cairo_pdf_surface_set_metadata(surface.raw, CAIRO_PDF_METADATA_TITLE, title) }
      for (field, value) in metadata.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
        cairo_pdf_surface_set_metadata(surface.raw, field.cairo, value)
      }
    }
  }

  deinit {
    // Finishing first guarantees cairo makes no further call into the buffer being released.
    // Finishing writes the fonts, which reads cairo's process-wide glyph cache (FontCacheLock).
    FontCacheLock.withLock { cairo_surface_finish(surface.raw) }
    free(output.pointee.bytes)
    output.deinitialize(count: 1)
    output.deallocate()
  }

  /// Finishes the document and returns its bytes; throws the first error cairo recorded. The
  /// returned data takes over the buffer cairo wrote into (no copy: at 20,000 table rows a tagged
  /// PDF is some 18 MB), so a second call returns empty data.
  func finish() throws -> Data {
    // Subsetting the fonts reads and fills cairo's process-wide glyph cache (see FontCacheLock).
    try FontCacheLock.withLock { try surface.finish() }
    let written = output.pointee
    guard let bytes = written.bytes else { return Data() }
    // A finished surface writes no more; from here the data frees the buffer, deinit nothing.
    output.pointee = Output()
    return Data(bytesNoCopy: bytes, count: written.count, deallocator: .free)
  }
}
