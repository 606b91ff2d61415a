internal import CCairo
public import Foundation

extension RenderedImage {
  /// Decodes PNG bytes (any colour type libpng reads) into premultiplied ARGB32 pixels.
  ///
  /// A header announcing more than `maximumPixelCount` pixels (by default
  /// ``ImageDecoder/defaultMaximumPixelCount``) or more than 32767 per side is refused with
  /// ``RenderError/undecodableImage(_:)`` before any pixel memory is allocated.
  ///
  /// ```swift
  /// let image = try RenderedImage(pngData: Data(contentsOf: url))
  /// ```
  public init(pngData: Data, scale: Double = 1, maximumPixelCount: Int = ImageDecoder.defaultMaximumPixelCount) throws {
    guard pngData.count >= 8, pngData.prefix(8).elementsEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) else {
      throw RenderError.undecodableImage("not PNG data (bad signature)")
    }
    do {
      try ImageDecoder.checkLimits(ImageDecoder.pngDimensions(pngData), maximumPixelCount: maximumPixelCount)
    } catch {
      throw RenderError.undecodableImage(error.description)
    }
    var reader = PNGByteReader(data: pngData)
    let raw = withUnsafeMutablePointer(to: &reader) { pointer in
      cairo_image_surface_create_from_png_stream(
        { closure, buffer, length in
          let reader = closure!.assumingMemoryBound(to: PNGByteReader.self)
          return reader.pointee.read(into: buffer!, count: Int(length))
            ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_READ_ERROR
        }, pointer)!
    }
    let surface: CairoSurface
    do {
      surface = try CairoSurface(taking: raw, operation: "PNG decode")
    } catch {
      throw RenderError.undecodableImage("corrupt or truncated PNG (\(error))")
    }
    try self.init(copying: surface, scale: scale)
  }

  /// Reads a PNG file; its pixel count is limited as in ``init(pngData:scale:maximumPixelCount:)``.
  public init(
    contentsOfPNGFile path: String, scale: Double = 1, maximumPixelCount: Int = ImageDecoder.defaultMaximumPixelCount
  ) throws {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      let failure = FileErrorDescription(path: path, operation: "cannot read", error: error)
      throw RenderError.io(path: path, reason: failure.operationAndReason)
    }
    try self.init(pngData: data, scale: scale, maximumPixelCount: maximumPixelCount)
  }

  /// Copies an ARGB32 (or RGB24) image surface's pixels.
  init(copying surface: CairoSurface, scale: Double) throws {
    cairo_surface_flush(surface.raw)
    let width = Int(cairo_image_surface_get_width(surface.raw))
    let height = Int(cairo_image_surface_get_height(surface.raw))
    let stride = Int(cairo_image_surface_get_stride(surface.raw))
    let opaque = cairo_image_surface_get_format(surface.raw) == CAIRO_FORMAT_RGB24
    guard let data = cairo_image_surface_get_data(surface.raw) else {
      throw RenderError.undecodableImage("image has no pixel data")
    }
    let pixels = [UInt32](unsafeUninitializedCapacity: width * height) { buffer, count in
      for row in 0..<height {
        let source = UnsafeRawPointer(data + row * stride).assumingMemoryBound(to: UInt32.self)
        for column in 0..<width {
          let value = source[column]
          buffer[row * width + column] = opaque ? value | 0xff00_0000 : value
        }
      }
      count = width * height
    }
    self.init(pixelWidth: width, pixelHeight: height, scale: scale, pixels: pixels)
  }

  /// Encodes the image as PNG with ``PNGEncoder``'s defaults (libdeflate, level 1): many times
  /// faster than cairo's own PNG writer, and decodes to the same pixels.
  public func pngData() throws -> Data {
    try PNGEncoder().encode(self)
  }

  /// Writes the image to a PNG file, atomically (a reader never sees half a file).
  public func writePNG(to path: String) throws {
    let data = try pngData()
    let directory = (path as NSString).deletingLastPathComponent
    var isDirectory: ObjCBool = false
    if !directory.isEmpty,
      !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) || !isDirectory.boolValue
    {
      throw RenderError.io(path: path, reason: "cannot write: directory \(directory) does not exist")
    }
    do {
      try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
      let failure = FileErrorDescription(path: path, operation: "cannot write", error: error)
      throw RenderError.io(path: path, reason: failure.operationAndReason)
    }
  }
}
