internal import CCairo
public import Foundation

/// Decodes PNG and JPEG bytes into a ``RenderedImage``, optionally downscaled while decoding.
///
/// JPEG may be YCbCr, greyscale or CMYK: CMYK (as print workflows write it) is converted to RGB
/// without a colour profile, with Adobe's inverted inks when the file has an Adobe APP14 marker.
///
/// The format is sniffed from the magic bytes. With a target size the result is the largest size
/// with the image's aspect ratio that fits inside the target (never upscaled): JPEG decodes straight
/// to the nearest DCT scaling factor at or above that size (1/2, 1/4, 1/8, ...) and cairo scales the
/// remainder; PNG decodes row by row straight to the target size, averaging the pixels that fall in
/// each target pixel, so the full-size image is never held (an interlaced PNG, whose rows come in
/// seven passes, decodes fully and cairo scales it down). This is CPU work: call it off the loop.
///
/// ```swift
/// let thumbnail = try ImageDecoder.decode(data, targetPixelSize: PixelSize(width: 64, height: 64))
/// ```
public enum ImageDecoder {
  /// The largest side the decoder accepts (cairo's image surface limit).
  public static let maximumPixelsPerSide = ImageRenderer.maximumPixelsPerSide

  /// The most pixels a decode accepts by default: 64 Mi (67 108 864), 256 MiB of decoded pixels.
  ///
  /// Above full-frame camera sensors (up to about 61 megapixels; larger medium-format images need
  /// a raised limit) and half of ``ImageRenderer``'s default memory cap, so that the decode and a
  /// copy of it fit. A header announcing more is
  /// refused before any pixel memory is allocated: a 649-byte JPEG can claim 30000×30000 pixels
  /// (3.6 GB). Pass `maximumPixelCount` to ``decode(_:targetPixelSize:maximumPixelCount:)`` or to
  /// ``ImageLoader/init(memoryCache:diskCache:timeout:maximumPixelCount:transport:clock:)`` to change it.
  public static let defaultMaximumPixelCount = 64 << 20

  /// Decodes `data`; throws ``ImageDecodingError`` for empty, unsupported, corrupt or truncated data,
  /// and ``ImageDecodingError/tooManyPixels(pixelWidth:pixelHeight:limit:)`` when the header announces
  /// more than `maximumPixelCount` pixels (checked in the source image, before any downscaling).
  public static func decode(
    _ data: Data, targetPixelSize: PixelSize? = nil, maximumPixelCount: Int = defaultMaximumPixelCount
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
      decoded = try decodePNG(data, targetPixelSize: targetPixelSize, maximumPixelCount: maximumPixelCount)
    case .jpeg:
      decoded = try decodeJPEG(data, targetPixelSize: targetPixelSize, maximumPixelCount: maximumPixelCount)
    }
    guard let target = targetPixelSize else { return decoded }
    return try downscale(decoded, toFit: target)
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16)
    return digits.count == 1 ? "0" + digits : digits
  }

  /// Checks a header's dimensions against the side limit and `maximumPixelCount`.
  static func checkLimits(_ size: PixelSize, maximumPixelCount: Int) throws(ImageDecodingError) {
    guard size.width <= maximumPixelsPerSide, size.height <= maximumPixelsPerSide else {
      throw .tooLarge(pixelWidth: size.width, pixelHeight: size.height, limit: maximumPixelsPerSide)
    }
    // Both sides are at most 32767 here: the product cannot overflow.
    guard size.width * size.height <= maximumPixelCount else {
      throw .tooManyPixels(pixelWidth: size.width, pixelHeight: size.height, limit: maximumPixelCount)
    }
  }

  /// The width and height in a PNG's IHDR chunk, which must come first: big-endian at offsets 16
  /// and 20, after the signature, the chunk length and the type.
  static func pngDimensions(_ data: Data) throws(ImageDecodingError) -> PixelSize {
    guard data.count >= 24 else { throw .corrupt(format: .png, reason: "shorter than a PNG header") }
    let bytes = [UInt8](data.prefix(24))
    guard bytes[12..<16].elementsEqual(Array("IHDR".utf8)) else {
      throw .corrupt(format: .png, reason: "the first chunk is not IHDR")
    }
    func bigEndian(_ offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
    let size = PixelSize(width: bigEndian(16), height: bigEndian(20))
    guard size.width > 0, size.height > 0 else { throw .corrupt(format: .png, reason: "the header announces \(size)") }
    return size
  }

  /// The pixel size a PNG or JPEG header announces, without decoding.
  package static func pixelSize(of data: Data) throws(ImageDecodingError) -> PixelSize {
    guard !data.isEmpty else { throw .empty }
    switch ImageFormat(sniffing: data) {
    case .png: return try pngDimensions(data)
    case .jpeg: return try TurboJPEGDecompressor().header(of: data).size
    case nil: throw .unsupportedFormat(signature: data.prefix(4).map { hex($0) }.joined(separator: " "))
    }
  }

  private static func decodePNG(
    _ data: Data, targetPixelSize: PixelSize?, maximumPixelCount: Int
  ) throws(ImageDecodingError) -> RenderedImage {
    // Checking the header first keeps a hostile one from making cairo allocate gigabytes.
    let source = try pngDimensions(data)
    try checkLimits(source, maximumPixelCount: maximumPixelCount)
    if let target = targetPixelSize?.aspectFit(source), target != source,
      let reduced = try decodePNGReduced(data, to: target)
    {
      return reduced
    }
    do {
      return try RenderedImage(pngData: data, maximumPixelCount: maximumPixelCount)
    } catch {
      throw .corrupt(format: .png, reason: "\(error)")
    }
  }

  /// The PNG decoded straight to `size` (smaller than the image), or nil for an interlaced PNG.
  private static func decodePNGReduced(_ data: Data, to size: PixelSize) throws(ImageDecodingError) -> RenderedImage? {
    let count = size.width * size.height
    var message = [CChar](repeating: 0, count: 256)
    var status: Int32 = 0
    let pixels = [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
      buffer.baseAddress!.initialize(repeating: 0, count: count)
      initialized = count
      status = data.withUnsafeBytes { bytes in
        asynclayer_png_decode_reduced(
          bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count, UInt32(size.width),
          UInt32(size.height), buffer.baseAddress!, &message, message.count)
      }
    }
    switch status {
    case 0: return RenderedImage(pixelWidth: size.width, pixelHeight: size.height, pixels: pixels)
    case 2: return nil
    default:
      let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
      throw .corrupt(format: .png, reason: text)
    }
  }

  private static func decodeJPEG(
    _ data: Data, targetPixelSize: PixelSize?, maximumPixelCount: Int
  ) throws(ImageDecodingError) -> RenderedImage {
    let decompressor = try TurboJPEGDecompressor()
    let header = try decompressor.header(of: data)
    let source = header.size
    // The source's pixel count, even for a downscaled decode: libjpeg's time (and, for
    // progressive files, its coefficient buffers) grows with it.
    try checkLimits(source, maximumPixelCount: maximumPixelCount)
    var size = source
    if let target = targetPixelSize {
      size = TurboJPEGDecompressor.scaledSize(of: source, atLeast: target.aspectFit(source))
    }
    return try decompressor.decode(
      data, to: size, cmyk: header.isCMYK,
      invertedInks: header.isCMYK && TurboJPEGDecompressor.hasAdobeMarker(data))
  }

  /// Scales `image` down with cairo's GOOD filter (a box filter when shrinking) to fit `target`.
  static func downscale(
    _ image: RenderedImage, toFit target: PixelSize
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
      throw .scalingFailed(target: fitted, reason: "\(error)")
    }
  }
}
