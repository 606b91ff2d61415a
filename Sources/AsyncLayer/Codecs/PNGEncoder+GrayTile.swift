internal import CCairo
import Foundation

extension PNGEncoder {
  /// True when ``encode(_:)`` first tries the gray tile path: the default options (level 1, the
  /// `up` filter, grayscale allowed), which are what text tiles are written with.
  var triesGrayTilePath: Bool { allowsGrayscale && compressionLevel == 1 && filter == .up }

  /// Writes `image` as an opaque gray PNG in one pass over its pixels, or returns nil as soon as a
  /// pixel is not opaque gray (the caller then takes the general path).
  ///
  /// The general path reads every pixel twice (the colour-type scan, then the conversion) and
  /// hands every byte to libdeflate, which hashes each one; on a 750 × 240 text tile that is over
  /// 4 M instructions, most of them spent on white. Here a row equal to the row above (the blank
  /// rows of a tile: a vectorized `memcmp`) becomes a zero row without being converted, other rows
  /// are converted, checked and `up`-filtered 16 or 32 pixels at a time (`asynclayer_gray_up_rows`,
  /// Sources/CCairo/png_gray_rows.h: SSE2, or AVX2 where the CPU has it; `rowLevel` picks a
  /// narrower version for tests), and the rows go to
  /// `asynclayer_deflate_rows` (Sources/CCairo/png_deflate.h), which writes the blank rows the row
  /// pass found without reading them and skips other runs 64 bytes at a time. The decoded pixels are those of the general path: the same gray bytes, filtered and
  /// compressed differently.
  func encodeGrayTile(
    _ image: RenderedImage, workspace: PNGWorkspace, rowLevel: Int32 = PNGEncoder.grayRowsLevel
  ) throws -> Data? {
    let width = image.pixelWidth
    let height = image.pixelHeight
    let rowBytes = width
    // The caller checked that width and height fit PNG's 31 bits; the deflater's tokens take 4 bytes
    // per row byte, so an image whose rows, tokens and output would exceed the cap takes the general
    // path (which fails or succeeds on its own terms).
    let (filteredBytes, overflow) = (rowBytes + 1).multipliedReportingOverflow(by: height)
    guard !overflow, filteredBytes <= memoryCap / 8 else { return nil }
    let deflateBound = asynclayer_deflate_bound(filteredBytes)
    let outputBytes = Self.idatBodyOffset + 12 + 12 + deflateBound
    // The deflater's scratch, then two gray rows for the row pass (the row above, unfiltered),
    // then a flag per row: blank (equal to the row above), which the deflater writes unread.
    let deflateScratchBytes = asynclayer_deflate_scratch_bytes(filteredBytes)
    let scratchBytes = deflateScratchBytes + 2 * rowBytes + height
    return try workspace.withBuffers(
      filteredBytes: filteredBytes, outputBytes: outputBytes, scratchBytes: scratchBytes
    ) { filtered, output, scratch in
      let rows = filtered.baseAddress!.assumingMemoryBound(to: UInt8.self)
      let grayRows = scratch.baseAddress!.assumingMemoryBound(to: UInt8.self) + deflateScratchBytes
      let blankRows = grayRows + 2 * rowBytes
      if let gray = image.gray {
        // A gray text tile: one byte per pixel already, nothing to check or convert.
        gray.bytes.withUnsafeBufferPointer { bytes in
          asynclayer_gray8_up_rows(
            bytes.baseAddress!, gray.stride, width, height, gray.inverted ? 1 : 0, rows, blankRows, rowLevel)
        }
      } else {
        let isGrayOpaque = image.pixels.withUnsafeBufferPointer { pixels in
          asynclayer_gray_up_rows(pixels.baseAddress!, width, height, rows, grayRows, blankRows, rowLevel) != 0
        }
        guard isGrayOpaque else { return nil }
      }
      let compressed = asynclayer_deflate_rows(
        rows, filteredBytes, rowBytes + 1, blankRows,
        output.baseAddress!.assumingMemoryBound(to: UInt8.self) + Self.idatBodyOffset, deflateBound,
        scratch.baseAddress!)
      guard compressed > 0, compressed <= Int(Int32.max) else {
        throw RenderError.encodeFailed("the tile deflater could not fit \(filteredBytes) bytes into \(deflateBound)")
      }
      let count = PNGEncoder.assemble(
        width: width, height: height, colorType: 0, compressedBytes: compressed, into: output)
      return Data(bytes: output.baseAddress!, count: count)
    }
  }

  /// The widest version of the row pass this CPU runs (png_gray_rows.h): 0 scalar, 1 SSE2, 2 AVX2.
  /// Tests pass each lower level to ``encodeGrayTile(_:workspace:rowLevel:)`` too.
  static let grayRowsLevel: Int32 = asynclayer_gray_rows_best_level()
}
