public import Foundation

extension PNGEncoder {
  /// The thresholds ``encodeBilevel(_:threshold:)`` accepts: a grey level at or above it is white.
  public static let bilevelThresholds: ClosedRange<Int> = 0...256

  /// Encodes `image` as a 1-bit black-and-white PNG (colour type 0, bit depth 1): each pixel's grey
  /// level as it looks over white (``RenderedImage/grayscale()``) is white when it is at least
  /// `threshold`, black otherwise. Eight pixels a byte: about an eighth of an 8-bit grey PNG's rows,
  /// what binarized OCR training data uses. Decoded, every pixel is exactly 0 or 255.
  ///
  /// ```swift
  /// let tile = try TextTile(.plain("Hello"), width: 200, background: .white).render()
  /// let png = try PNGEncoder().encodeBilevel(tile.image, threshold: 128)
  /// ```
  ///
  /// The rows are stored unfiltered (filter type 0; a 1-bit row has little for a filter to predict)
  /// and compressed at ``compressionLevel``.
  ///
  /// - Throws: ``RenderError/invalidDimension(name:value:)`` for an image with no pixels or a
  ///   threshold outside ``bilevelThresholds``, ``RenderError/memoryCapExceeded(bytes:cap:)`` when the
  ///   rows would exceed ``memoryCap``, ``RenderError/encodeFailed(_:)`` for a compression level outside
  ///   ``compressionLevels`` or a libdeflate failure.
  public func encodeBilevel(_ image: RenderedImage, threshold: Int = 128) throws -> Data {
    guard Self.bilevelThresholds.contains(threshold) else {
      throw RenderError.invalidDimension(name: "bilevel threshold (0…256)", value: Double(threshold))
    }
    try checkEncodable(image)
    let width = image.pixelWidth
    let height = image.pixelHeight
    let rowBytes = (width + 7) / 8
    let (filteredBytes, overflow) = (rowBytes + 1).multipliedReportingOverflow(by: height)
    guard !overflow, filteredBytes <= memoryCap else {
      throw RenderError.memoryCapExceeded(bytes: overflow ? Int.max : filteredBytes, cap: memoryCap)
    }
    let workspace = PNGWorkspace.current
    let deflater = try workspace.compressor(level: compressionLevel)
    let outputBytes = Self.idatBodyOffset + 12 + 12 + deflater.zlibBound(for: filteredBytes)
    return try workspace.withBuffers(filteredBytes: filteredBytes, outputBytes: outputBytes) { filtered, output in
      image.pixels.withUnsafeBufferPointer { pixels in
        for y in 0..<height {
          let row = y * (rowBytes + 1)
          filtered[row] = 0  // filter type 0
          let source = y * width
          for byteIndex in 0..<rowBytes {
            var packed: UInt8 = 0
            let first = byteIndex * 8
            for bit in 0..<min(8, width - first) {
              // Most significant bit first; 1 is white in a grey PNG.
              if Int(RenderedImage.grayLevel(pixels[source + first + bit])) >= threshold {
                packed |= 0x80 >> UInt8(bit)
              }
            }
            filtered[row + 1 + byteIndex] = packed
          }
        }
      }
      let compressed = try deflater.zlibCompress(
        UnsafeRawBufferPointer(filtered),
        into: UnsafeMutableRawBufferPointer(rebasing: output[Self.idatBodyOffset...]))
      guard compressed <= Int(Int32.max) else {
        throw RenderError.encodeFailed("compressed rows of \(compressed) bytes exceed PNG's chunk size limit")
      }
      let count = Self.assemble(
        width: width, height: height, colorType: 0, bitDepth: 1, compressedBytes: compressed, into: output)
      return Data(bytes: output.baseAddress!, count: count)
    }
  }
}
