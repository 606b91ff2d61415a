import Foundation

/// Decodes PNG and JPEG bytes into a ``RenderedImage``, optionally downscaled while decoding.
///
/// The format is sniffed from the magic bytes. With a target size the result is the largest size
/// with the image's aspect ratio that fits inside the target (never upscaled): JPEG decodes straight
/// to the nearest DCT scaling factor at or above that size (1/2, 1/4, 1/8, ...) and cairo scales the
/// remainder; PNG decodes fully and cairo scales it down. This is CPU work: call it off the loop.
///
/// ```swift
/// let thumbnail = try ImageDecoder.decode(data, targetPixelSize: PixelSize(width: 64, height: 64))
/// ```
public enum ImageDecoder {
  /// The largest side the decoder accepts (cairo's image surface limit).
  public static let maximumPixelsPerSide = ImageRenderer.maximumPixelsPerSide

  /// Decodes `data`; throws ``ImageDecodingError`` for empty, unsupported, corrupt or truncated data.
  public static func decode(
    _ data: Data, targetPixelSize: PixelSize? = nil
  ) throws(ImageDecodingError) -> RenderedImage {
    if let target = targetPixelSize, target.width <= 0 || target.height <= 0 {
      throw .invalidTargetSize(target)
    }
    guard !data.isEmpty else { throw .empty }
    guard let format = ImageFormat(sniffing: data) else {
      throw .unsupportedFormat(signature: data.prefix(4).map { hex($0) }.joined(separator: " "))
    }
    let decoded: RenderedImage
    switch format {
    case .png:
      decoded = try decodePNG(data)
    case .jpeg:
      decoded = try decodeJPEG(data, targetPixelSize: targetPixelSize)
    }
    guard let target = targetPixelSize else { return decoded }
    return try downscale(decoded, toFit: target, format: format)
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16)
    return digits.count == 1 ? "0" + digits : digits
  }

  private static func checkLimit(_ size: PixelSize) throws(ImageDecodingError) {
    guard size.width <= maximumPixelsPerSide, size.height <= maximumPixelsPerSide else {
      throw .tooLarge(pixelWidth: size.width, pixelHeight: size.height, limit: maximumPixelsPerSide)
    }
  }

  private static func decodePNG(_ data: Data) throws(ImageDecodingError) -> RenderedImage {
    // IHDR is always the first chunk: width and height are big-endian at offsets 16 and 20. Checking
    // them first keeps a hostile header from making cairo allocate gigabytes.
    guard data.count >= 24 else { throw .corrupt(format: .png, reason: "shorter than a PNG header") }
    func bigEndian(_ offset: Int) -> Int {
      data.dropFirst(offset).prefix(4).reduce(0) { $0 << 8 | Int($1) }
    }
    try checkLimit(PixelSize(width: bigEndian(16), height: bigEndian(20)))
    do {
      return try RenderedImage(pngData: data)
    } catch {
      throw .corrupt(format: .png, reason: "\(error)")
    }
  }

  private static func decodeJPEG(_ data: Data, targetPixelSize: PixelSize?) throws(ImageDecodingError) -> RenderedImage
  {
    let decompressor = try TurboJPEGDecompressor()
    let source = try decompressor.dimensions(of: data)
    try checkLimit(source)
    var size = source
    if let target = targetPixelSize {
      size = TurboJPEGDecompressor.scaledSize(of: source, atLeast: target.aspectFit(source))
    }
    return try decompressor.decode(data, to: size)
  }

  /// Scales `image` down with cairo's GOOD filter (a box filter when shrinking) to fit `target`.
  static func downscale(
    _ image: RenderedImage, toFit target: PixelSize, format: ImageFormat
  ) throws(ImageDecodingError) -> RenderedImage {
    let source = PixelSize(width: image.pixelWidth, height: image.pixelHeight)
    let fitted = target.aspectFit(source)
    guard fitted != source else { return image }
    do {
      let renderer = try ImageRenderer(size: Size(width: Double(fitted.width), height: Double(fitted.height)))
      return try renderer.render { context in
        context.draw(image, in: Rect(x: 0, y: 0, width: Double(fitted.width), height: Double(fitted.height)))
      }
    } catch {
      throw .corrupt(format: format, reason: "cannot scale to \(fitted): \(error)")
    }
  }
}
