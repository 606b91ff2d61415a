public import Foundation

/// A fast PNG writer for ``RenderedImage``, built on libdeflate.
///
/// cairo's own writer (libpng with zlib at level 6) spends 6–8 ms on a 750×240 text tile, thirty
/// times the render. This encoder picks the smallest colour type that holds the pixels exactly
/// (gray, RGB, gray + alpha or RGBA), filters the rows and compresses them in one libdeflate call.
/// With the default options, an opaque gray image (black text on white) takes a faster path: one
/// pass that converts, checks and filters the rows (a row equal to the one above is not converted
/// at all), then a deflate writer made for text tiles, which skips runs of equal bytes instead of
/// hashing them; its files are a few percent larger than libdeflate's level 1, at a fraction of the
/// instructions. Decoding its output with cairo (``RenderedImage/init(pngData:scale:maximumPixelCount:)``) gives
/// back exactly the premultiplied pixels that were encoded.
///
/// ```swift
/// let tile = try TextTile(.plain("Hello"), width: 375, scale: 2, background: .white).render()
/// let png = try PNGEncoder().encode(tile.image)
/// let fastest = try PNGEncoder(compressionLevel: 1, filter: .none).encode(tile.image)
/// ```
///
/// The encoder is a value and is `Sendable`; it can be used from any number of threads at once
/// (each thread keeps its own libdeflate compressor and scratch buffers).
public struct PNGEncoder: Sendable, Hashable {
  /// How each row of pixels is transformed before compression (PNG filter types).
  public enum Filter: String, Sendable, Hashable, CaseIterable {
    /// Rows are stored as they are (filter type 0).
    case none
    /// Each byte minus the byte one pixel to its left (type 1).
    case sub
    /// Each byte minus the byte above it (type 2).
    case up
    /// Each byte minus the mean of its left and upper neighbours (type 3).
    case average
    /// Each byte minus the Paeth predictor of its left, upper and upper-left neighbours (type 4).
    case paeth
    /// Per row, the filter among the five whose output has the smallest sum of absolute values
    /// (as signed bytes): the heuristic libpng recommends. Smallest files, slowest encode.
    case adaptive
  }

  /// The lowest and highest compression levels libdeflate accepts.
  public static let compressionLevels: ClosedRange<Int> = 0...12

  /// The libdeflate compression level, 0 (stored) to 12 (smallest, slow). Levels 1–6 are the
  /// useful range for tiles; the default of 1 is the fastest real compression (and, with the `up`
  /// filter and grayscale allowed, sends opaque gray images to the text tile writer instead).
  public var compressionLevel: Int
  /// The row filter.
  public var filter: Filter
  /// Writes an image whose pixels are all gray (red = green = blue) with one channel instead of
  /// three: a third of the bytes to filter and compress for black-on-white text.
  public var allowsGrayscale: Bool
  /// The most bytes the encoder may allocate for one image's filtered rows; larger images fail
  /// with ``RenderError/memoryCapExceeded(bytes:cap:)``.
  public var memoryCap: Int

  /// An encoder with the given options.
  ///
  /// The defaults favour speed: level 1, the `up` filter (blank rows of a tile become zeros) and
  /// grayscale when it is exact.
  public init(
    compressionLevel: Int = 1, filter: Filter = .up, allowsGrayscale: Bool = true,
    memoryCap: Int = ImageRenderer.defaultMemoryCap
  ) {
    self.compressionLevel = compressionLevel
    self.filter = filter
    self.allowsGrayscale = allowsGrayscale
    self.memoryCap = memoryCap
  }

  /// Encodes `image` as an 8-bit PNG.
  ///
  /// Fully opaque images are written without alpha (colour type 0 or 2). Others are written with
  /// straight alpha (colour type 4 or 6), rounded so that cairo's premultiplication on decode
  /// restores the exact premultiplied values; a pixel whose colour exceeds its alpha (not valid
  /// premultiplied data) is clamped to full intensity.
  ///
  /// - Throws: ``RenderError/invalidDimension(name:value:)`` for an image with no pixels (PNG
  ///   requires at least one), ``RenderError/memoryCapExceeded(bytes:cap:)`` when the rows would
  ///   exceed ``memoryCap``, and ``RenderError/encodeFailed(_:)`` for a compression level outside
  ///   ``compressionLevels`` or a libdeflate failure.
  public func encode(_ image: RenderedImage) throws -> Data {
    try checkEncodable(image)
    let workspace = PNGWorkspace.current
    if triesGrayTilePath, let data = try encodeGrayTile(image, workspace: workspace) { return data }
    return try encodeGeneral(image, workspace: workspace)
  }

  /// The checks every encoding makes before it allocates: an image with pixels, sides PNG can
  /// store, and a compression level libdeflate has.
  func checkEncodable(_ image: RenderedImage) throws {
    guard image.pixelWidth > 0 else {
      throw RenderError.invalidDimension(name: "PNG width in pixels", value: Double(image.pixelWidth))
    }
    guard image.pixelHeight > 0 else {
      throw RenderError.invalidDimension(name: "PNG height in pixels", value: Double(image.pixelHeight))
    }
    // PNG stores each side as a 31-bit number.
    guard image.pixelWidth <= Int32.max, image.pixelHeight <= Int32.max else {
      throw RenderError.surfaceTooLarge(
        pixelWidth: image.pixelWidth, pixelHeight: image.pixelHeight, limit: Int(Int32.max))
    }
    guard Self.compressionLevels.contains(compressionLevel) else {
      throw RenderError.encodeFailed(
        "compression level \(compressionLevel) is outside \(Self.compressionLevels.lowerBound)..."
          + "\(Self.compressionLevels.upperBound)")
    }
  }

  /// The path for every image: picks the colour type from a scan of the pixels, filters the rows
  /// and compresses them with libdeflate. `image` has passed ``encode(_:)``'s checks.
  func encodeGeneral(_ image: RenderedImage, workspace: PNGWorkspace) throws -> Data {
    let layout = PNGPixelLayout(image, allowsGrayscale: allowsGrayscale)
    let (rowBytes, overflowA) = image.pixelWidth.multipliedReportingOverflow(by: layout.bytesPerPixel)
    let (filteredBytes, overflowB) = (rowBytes + 1).multipliedReportingOverflow(by: image.pixelHeight)
    guard !overflowA, !overflowB, filteredBytes <= memoryCap else {
      throw RenderError.memoryCapExceeded(bytes: overflowA || overflowB ? Int.max : filteredBytes, cap: memoryCap)
    }
    let deflater = try workspace.compressor(level: compressionLevel)
    // Signature, IHDR, the IDAT header and CRC, IEND.
    let outputBytes = 8 + 25 + 12 + 12 + deflater.zlibBound(for: filteredBytes)
    return try workspace.withBuffers(filteredBytes: filteredBytes, outputBytes: outputBytes) { filtered, output in
      writeFilteredRows(of: image, layout: layout, rowBytes: rowBytes, into: filtered)
      let count = try assemble(
        image: image, layout: layout, filtered: UnsafeRawBufferPointer(filtered), deflater: deflater, into: output)
      return Data(bytes: output.baseAddress!, count: count)
    }
  }

  /// Compresses the rows straight into the IDAT chunk's body and writes the chunks around them;
  /// returns the byte count.
  private func assemble(
    image: RenderedImage, layout: PNGPixelLayout, filtered: UnsafeRawBufferPointer, deflater: DeflateCompressor,
    into buffer: UnsafeMutableRawBufferPointer
  ) throws -> Int {
    let compressed = try deflater.zlibCompress(
      filtered, into: UnsafeMutableRawBufferPointer(rebasing: buffer[Self.idatBodyOffset...]))
    guard compressed <= Int(Int32.max) else {
      throw RenderError.encodeFailed("compressed rows of \(compressed) bytes exceed PNG's chunk size limit")
    }
    return Self.assemble(
      width: image.pixelWidth, height: image.pixelHeight, colorType: layout.colorType, compressedBytes: compressed,
      into: buffer)
  }

  /// Where the IDAT chunk's body starts: after the signature (8 bytes), IHDR (25) and the IDAT
  /// chunk's length and type (8).
  static let idatBodyOffset = 8 + 25 + 8

  /// Writes signature, IHDR, the IDAT chunk around `compressedBytes` bytes already at
  /// ``idatBodyOffset``, and IEND; returns the byte count.
  static func assemble(
    width: Int, height: Int, colorType: UInt8, bitDepth: UInt8 = 8, compressedBytes: Int,
    into buffer: UnsafeMutableRawBufferPointer
  ) -> Int {
    var writer = PNGChunkWriter(buffer: buffer)
    writer.append(bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    writer.appendChunk(type: "IHDR") { writer in
      writer.append(bigEndian: UInt32(width))
      writer.append(bigEndian: UInt32(height))
      writer.append(bytes: [bitDepth, colorType, 0, 0, 0])  // depth, colour type, deflate, filters, no interlace
    }
    writer.appendChunk(type: "IDAT") { writer in writer.offset += compressedBytes }
    writer.appendChunk(type: "IEND") { _ in }
    return writer.offset
  }
}

/// Sequential big-endian writing of PNG chunks into a buffer that is large enough.
private struct PNGChunkWriter {
  let buffer: UnsafeMutableRawBufferPointer
  var offset = 0

  init(buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

  mutating func append(bytes: [UInt8]) {
    for byte in bytes { buffer[offset] = byte; offset += 1 }
  }

  mutating func append(bigEndian value: UInt32) {
    buffer.storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
    offset += 4
  }

  /// Writes length, type, whatever `body` writes, and the CRC of type and body.
  mutating func appendChunk(type: StaticString, _ body: (inout PNGChunkWriter) throws -> Void) rethrows {
    let start = offset
    offset += 4
    type.withUTF8Buffer { name in for byte in name { buffer[offset] = byte; offset += 1 } }
    try body(&self)
    let length = offset - start - 8
    buffer.storeBytes(of: UInt32(length).bigEndian, toByteOffset: start, as: UInt32.self)
    let crc = crc32(UnsafeRawBufferPointer(rebasing: buffer[start + 4..<offset]))
    append(bigEndian: crc)
  }
}
