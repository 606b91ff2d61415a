internal import CCairo
public import Foundation

/// An SVG document, checked by librsvg, drawn as vectors into PDF and SVG output and rasterized at
/// the page's scale in PNG output.
///
/// The bytes are parsed once here to check them and read the natural size; each draw parses them
/// again on the drawing thread (librsvg's handle is not `Sendable`). A file that references
/// other files (`<image href="…">`) draws without them: the document has no base location.
///
/// ```swift
/// let logo = try SVGImage(data: Data(contentsOf: URL(fileURLWithPath: "logo.svg")))
/// logo.size  // its width and height in points (CSS pixels at 96 per inch)
/// ```
public struct SVGImage: Sendable, Hashable {
  /// The largest SVG accepted: 16 MiB, refused before it is parsed.
  public static let maximumBytes = 16 << 20
  /// The largest width or height accepted, in CSS pixels: 16,384. A 20,000 × 20,000 document is
  /// refused (it is drawn scaled to its frame, but so large a canvas is almost always a mistake
  /// or an attack on whoever rasterizes it).
  public static let maximumSide = 16_384.0

  /// The document's bytes.
  public let data: Data
  /// The natural size in points: the document's width and height (or its viewBox's) in CSS
  /// pixels, at 72 points to 96 pixels.
  public let size: Size

  /// Parses and checks `data`.
  ///
  /// - Throws: ``SVGImageError`` for too many bytes, a document librsvg cannot read, or a size or
  ///   viewBox that is missing, not finite or out of range.
  public init(data: Data) throws(SVGImageError) {
    guard data.count <= Self.maximumBytes else { throw .tooLarge(bytes: data.count, limit: Self.maximumBytes) }
    let handle = try SVGHandle(data)
    var width = 0.0
    var height = 0.0
    var hasWidth: gboolean = 0
    var hasHeight: gboolean = 0
    var hasViewBox: gboolean = 0
    var widthLength = RsvgLength()
    var heightLength = RsvgLength()
    var viewBox = RsvgRectangle()
    rsvg_handle_get_intrinsic_dimensions(
      handle.raw, &hasWidth, &widthLength, &hasHeight, &heightLength, &hasViewBox, &viewBox)
    if hasViewBox != 0 {
      let box = [viewBox.x, viewBox.y, viewBox.width, viewBox.height]
      guard box.allSatisfy({ $0.isFinite && abs($0) <= 1e9 }), viewBox.width > 0, viewBox.height > 0,
        viewBox.width / viewBox.height <= 1e4, viewBox.height / viewBox.width <= 1e4
      else {
        throw .badSize("viewBox \(viewBox.x) \(viewBox.y) \(viewBox.width) \(viewBox.height)")
      }
    }
    if rsvg_handle_get_intrinsic_size_in_pixels(handle.raw, &width, &height) == 0 {
      // Percentages or no width and height: the viewBox gives the size.
      guard hasViewBox != 0 else { throw .badSize("no width, height or viewBox") }
      width = viewBox.width
      height = viewBox.height
    }
    guard width.isFinite, height.isFinite, width > 0, height > 0 else {
      throw .badSize("width \(width), height \(height)")
    }
    guard width <= Self.maximumSide, height <= Self.maximumSide else {
      throw .tooLargeCanvas(width: width, height: height, limit: Self.maximumSide)
    }
    self.data = data
    size = Size(width: width * 0.75, height: height * 0.75)
  }
}

/// Why an ``SVGImage`` cannot be used.
public enum SVGImageError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The document has more bytes than ``SVGImage/maximumBytes``.
  case tooLarge(bytes: Int, limit: Int)
  /// librsvg could not read the document (its message).
  case unreadable(String)
  /// The width, height or viewBox is missing, zero, negative or not finite.
  case badSize(String)
  /// The document is wider or taller than ``SVGImage/maximumSide``.
  case tooLargeCanvas(width: Double, height: Double, limit: Double)

  public var description: String {
    switch self {
    case .tooLarge(let bytes, let limit): return "the SVG has \(bytes) bytes, over the limit of \(limit)"
    case .unreadable(let message): return "not a readable SVG document: \(message)"
    case .badSize(let what): return "the SVG has no usable size (\(what)): give it a width and height or a viewBox"
    case .tooLargeCanvas(let width, let height, let limit):
      return "the SVG is \(width) × \(height) pixels, over the limit of \(Int(limit)) a side"
    }
  }
}

/// Owns one `RsvgHandle` (a GObject), unreferenced once.
final class SVGHandle {
  let raw: OpaquePointer

  init(_ data: Data) throws(SVGImageError) {
    var error: UnsafeMutablePointer<GError>?
    let handle = data.withUnsafeBytes { bytes in
      rsvg_handle_new_from_data(bytes.bindMemory(to: guint8.self).baseAddress, gsize(bytes.count), &error)
    }
    guard let handle else {
      let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
      if let error { g_error_free(error) }
      throw .unreadable(message)
    }
    raw = handle
  }

  deinit { g_object_unref(UnsafeMutableRawPointer(raw)) }
}

extension DrawingContext {
  /// Draws `image` scaled into `rect` (its aspect ratio kept, centred), as vectors on PDF and SVG
  /// surfaces.
  ///
  /// A document librsvg fails to draw records the failure, which the render, PDF or SVG page
  /// throws, as ``draw(_:in:)-(RenderedImage,_)`` does.
  ///
  /// ```swift
  /// context.draw(logo, in: Rect(x: 10, y: 10, width: 120, height: 40))
  /// ```
  public func draw(_ image: SVGImage, in rect: Rect) {
    guard !rect.size.isEmpty, rect.width.isFinite, rect.height.isFinite else { return }
    let handle: SVGHandle
    do {
      handle = try SVGHandle(image.data)
    } catch {
      cairo.record(.undecodableImage(error.description))
      return
    }
    var viewport = RsvgRectangle(x: rect.minX, y: rect.minY, width: rect.width, height: rect.height)
    var error: UnsafeMutablePointer<GError>?
    cairo_save(cairo.raw)
    // librsvg lays out and draws an SVG's text with Pango through cairo's shared glyph cache:
    // under the lock every such draw takes (FontCacheLock explains the deadlock it prevents).
    let drawn = FontCacheLock.withLock { rsvg_handle_render_document(handle.raw, cairo.raw, &viewport, &error) }
    cairo_restore(cairo.raw)
    if drawn == 0 {
      let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
      if let error { g_error_free(error) }
      cairo.record(.undecodableImage("librsvg could not draw the SVG: \(message)"))
    }
  }
}
