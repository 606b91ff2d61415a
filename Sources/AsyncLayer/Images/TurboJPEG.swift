internal import CCairo
import Foundation

// Owners of libturbojpeg handles. Each `tjhandle` has exactly one Swift owner that calls `tjDestroy`
// once, in `deinit`. A handle is not thread-safe, so these owners are not Sendable: each decode
// creates its own (initialisation is a few small allocations, negligible next to a decode).

/// The turbojpeg pixel format whose bytes, read as native-endian `UInt32`, are cairo's ARGB32.
private var argb32PixelFormat: TJPF {
  #if _endian(little)
    return TJPF_BGRA
  #else
    return TJPF_ARGB
  #endif
}

/// Owns one turbojpeg decompressor.
final class TurboJPEGDecompressor {
  private let handle: tjhandle

  init() throws(ImageDecodingError) {
    guard let handle = tjInitDecompress() else {
      throw .corrupt(format: .jpeg, reason: "tjInitDecompress failed: \(String(cString: tjGetErrorStr2(nil)))")
    }
    self.handle = handle
  }

  deinit { tjDestroy(handle) }

  private var lastError: String { String(cString: tjGetErrorStr2(handle)) }

  /// The image's dimensions, read from its header.
  func dimensions(of data: Data) throws(ImageDecodingError) -> PixelSize {
    var width: Int32 = 0
    var height: Int32 = 0
    var subsampling: Int32 = 0
    var colorspace: Int32 = 0
    let status = data.withUnsafeBytes { bytes in
      tjDecompressHeader3(
        handle, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(bytes.count),
        &width, &height, &subsampling, &colorspace)
    }
    guard status == 0, width > 0, height > 0 else { throw .corrupt(format: .jpeg, reason: lastError) }
    return PixelSize(width: Int(width), height: Int(height))
  }

  /// The smallest size turbojpeg can decode to directly (its DCT scaling factors, at most 1/1) that is
  /// still at least `minimum` on both sides.
  static func scaledSize(of source: PixelSize, atLeast minimum: PixelSize) -> PixelSize {
    var count: Int32 = 0
    guard let factors = tjGetScalingFactors(&count) else { return source }
    var best = source
    for factor in UnsafeBufferPointer(start: factors, count: Int(count)) where factor.num <= factor.denom {
      // TJSCALED(dimension, factor) from turbojpeg.h.
      func scaled(_ dimension: Int) -> Int {
        (dimension * Int(factor.num) + Int(factor.denom) - 1) / Int(factor.denom)
      }
      let candidate = PixelSize(width: scaled(source.width), height: scaled(source.height))
      if candidate.width >= minimum.width, candidate.height >= minimum.height,
        candidate.width * candidate.height < best.width * best.height
      {
        best = candidate
      }
    }
    return best
  }

  /// Decodes into premultiplied ARGB32 at `size`, which must be one of the sizes turbojpeg scales to.
  /// Truncated or damaged data fails (warnings are treated as errors) instead of yielding grey rows.
  func decode(_ data: Data, to size: PixelSize) throws(ImageDecodingError) -> RenderedImage {
    let count = size.width * size.height
    var failure: String?
    let pixels = [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
      let status = data.withUnsafeBytes { bytes in
        tjDecompress2(
          handle, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(bytes.count),
          UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: UInt8.self),
          Int32(size.width), Int32(size.width * 4), Int32(size.height), argb32PixelFormat.rawValue,
          TJFLAG_STOPONWARNING)
      }
      if status != 0 {
        failure = lastError
        // The buffer may be partly written; define every element before handing it back.
        buffer.baseAddress!.initialize(repeating: 0, count: count)
      }
      initialized = count
    }
    if let failure { throw .corrupt(format: .jpeg, reason: failure) }
    return RenderedImage(pixelWidth: size.width, pixelHeight: size.height, pixels: pixels)
  }
}

/// Owns one turbojpeg compressor.
final class TurboJPEGCompressor {
  private let handle: tjhandle

  init() throws(RenderError) {
    guard let handle = tjInitCompress() else {
      throw .cairo(operation: "tjInitCompress", status: String(cString: tjGetErrorStr2(nil)))
    }
    self.handle = handle
  }

  deinit { tjDestroy(handle) }

  /// Encodes ARGB32 pixels as a baseline 4:4:4 JPEG.
  func encode(_ image: RenderedImage, quality: Int) throws(RenderError) -> Data {
    var output: UnsafeMutablePointer<UInt8>?
    var length: UInt = 0
    let status = image.pixels.withUnsafeBytes { bytes in
      tjCompress2(
        handle, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(image.pixelWidth),
        Int32(image.pixelWidth * 4), Int32(image.pixelHeight), argb32PixelFormat.rawValue,
        &output, &length, Int32(TJSAMP_444.rawValue), Int32(quality), 0)
    }
    defer { if let output { tjFree(output) } }
    guard status == 0, let output else {
      throw .cairo(operation: "JPEG encode", status: String(cString: tjGetErrorStr2(handle)))
    }
    return Data(bytes: output, count: Int(length))
  }
}

extension RenderedImage {
  /// Encodes the image as a baseline JPEG (4:4:4, no chroma subsampling) with libturbojpeg.
  ///
  /// JPEG has no alpha: the premultiplied colour is encoded, i.e. the image as composited over black.
  /// `quality` is clamped to 1…100; JPEG's sides are limited to 65535 pixels.
  ///
  /// ```swift
  /// let data = try image.jpegData(quality: 90)
  /// ```
  public func jpegData(quality: Int = 90) throws -> Data {
    guard pixelWidth > 0, pixelHeight > 0 else {
      throw RenderError.invalidDimension(name: pixelWidth > 0 ? "height" : "width", value: 0)
    }
    // JPEG stores each side as a 16-bit number.
    guard pixelWidth <= 65535, pixelHeight <= 65535 else {
      throw RenderError.surfaceTooLarge(pixelWidth: pixelWidth, pixelHeight: pixelHeight, limit: 65535)
    }
    return try TurboJPEGCompressor().encode(self, quality: min(100, max(1, quality)))
  }
}
