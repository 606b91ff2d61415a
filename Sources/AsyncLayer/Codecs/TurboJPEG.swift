internal import CCairo
public import Foundation

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
      throw .decoderUnavailable(format: .jpeg, reason: String(cString: tjGetErrorStr2(nil)))
    }
    self.handle = handle
  }

  deinit { tjDestroy(handle) }

  private var lastError: String { String(cString: tjGetErrorStr2(handle)) }

  /// What a JPEG's header says: its size, and whether its pixels are CMYK (stored as CMYK or YCCK),
  /// which turbojpeg decodes only to CMYK.
  struct Header {
    var size: PixelSize
    var isCMYK: Bool
  }

  /// The image's header.
  func header(of data: Data) throws(ImageDecodingError) -> Header {
    var width: Int32 = 0
    var height: Int32 = 0
    var subsampling: Int32 = 0
    var colorspace: Int32 = 0
    let status = data.withUnsafeBytes { bytes in
      tjDecompressHeader3(
        handle, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(bytes.count),
        &width, &height, &subsampling, &colorspace)
    }
    guard status == 0 else { throw .corrupt(format: .jpeg, reason: lastError) }
    guard width > 0, height > 0 else {
      throw .corrupt(format: .jpeg, reason: "the header announces \(width)×\(height) pixels")
    }
    let isCMYK = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
    return Header(size: PixelSize(width: Int(width), height: Int(height)), isCMYK: isCMYK)
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
  ///
  /// A CMYK image is decoded as CMYK and converted (see ``cmykToARGB(_:invertedInks:)``); its
  /// values are Adobe's inverted ones (255 = no ink) when `invertedInks` is true.
  func decode(_ data: Data, to size: PixelSize, cmyk: Bool = false, invertedInks: Bool = false)
    throws(ImageDecodingError)
    -> RenderedImage
  {
    let count = size.width * size.height
    var failure: String?
    // CMYK is four bytes per pixel too: it lands in the same buffer and is converted in place.
    let format = cmyk ? TJPF_CMYK : argb32PixelFormat
    let pixels = [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
      let status = data.withUnsafeBytes { bytes in
        tjDecompress2(
          handle, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(bytes.count),
          UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: UInt8.self),
          Int32(size.width), Int32(size.width * 4), Int32(size.height), format.rawValue,
          TJFLAG_STOPONWARNING)
      }
      if status != 0 {
        failure = lastError
        // The buffer may be partly written; define every element before handing it back.
        buffer.baseAddress!.initialize(repeating: 0, count: count)
      } else if cmyk {
        Self.cmykToARGB(UnsafeMutableBufferPointer(rebasing: buffer[0..<count]), invertedInks: invertedInks)
      }
      initialized = count
    }
    if let failure { throw .corrupt(format: .jpeg, reason: failure) }
    return RenderedImage(pixelWidth: size.width, pixelHeight: size.height, pixels: pixels)
  }

  /// Converts CMYK bytes (C, M, Y, K in memory order, 0 = no ink) to opaque ARGB32 in place, with
  /// the naive formula R = (1 − C)(1 − K) and so on: no colour profile, so print colours come out
  /// close but not exact. `invertedInks`: the bytes are 255 − ink, as Adobe applications write them.
  static func cmykToARGB(_ pixels: UnsafeMutableBufferPointer<UInt32>, invertedInks: Bool) {
    let bytes = UnsafeMutableRawBufferPointer(pixels)
    for index in pixels.indices {
      // How much of the white each channel lets through: 255 = no ink.
      func white(_ offset: Int) -> UInt32 {
        let value = UInt32(bytes[4 * index + offset])
        return invertedInks ? value : 255 - value
      }
      let cyan = white(0), magenta = white(1), yellow = white(2), black = white(3)
      func channel(_ white: UInt32) -> UInt32 { (white * black + 127) / 255 }
      pixels[index] = 0xff00_0000 | channel(cyan) << 16 | channel(magenta) << 8 | channel(yellow)
    }
  }

  /// True when `data` has an Adobe APP14 segment before its first scan: CMYK written by Adobe
  /// applications (and libjpeg) stores inverted inks.
  static func hasAdobeMarker(_ data: Data) -> Bool {
    data.withUnsafeBytes { hasAdobeMarker(in: $0) }
  }

  private static func hasAdobeMarker(in bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 2  // after SOI
    while offset + 4 <= bytes.count, bytes[offset] == 0xff {
      let marker = bytes[offset + 1]
      if marker == 0xff {  // fill byte
        offset += 1
        continue
      }
      if marker == 0xda || marker == 0xd9 { return false }  // start of scan, end of image
      if (0xd0...0xd7).contains(marker) || marker == 0x01 {  // markers without a length
        offset += 2
        continue
      }
      let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
      guard length >= 2 else { return false }
      if marker == 0xee, length >= 7, offset + 9 <= bytes.count,
        bytes[offset + 4..<offset + 9].elementsEqual("Adobe".utf8)
      {
        return true
      }
      offset += 2 + length
    }
    return false
  }
}

/// Owns one turbojpeg compressor.
final class TurboJPEGCompressor {
  private let handle: tjhandle

  init() throws(RenderError) {
    guard let handle = tjInitCompress() else {
      throw .encodeFailed("libjpeg-turbo could not start a JPEG compressor: \(String(cString: tjGetErrorStr2(nil)))")
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
    guard status == 0, let output, length > 0 else {
      throw .encodeFailed(
        "libjpeg-turbo could not encode \(image.pixelWidth)×\(image.pixelHeight) pixels as JPEG: "
          + String(cString: tjGetErrorStr2(handle)))
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
