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
  /// are converted, checked and `up`-filtered in the same pass, and the rows go to
  /// `asynclayer_deflate_tile` (Sources/CCairo/png_deflate.h), which skips runs sixteen bytes at a
  /// time. The decoded pixels are those of the general path: the same gray bytes, filtered and
  /// compressed differently.
  func encodeGrayTile(_ image: RenderedImage, workspace: PNGWorkspace) throws -> Data? {
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
    let scratchBytes = asynclayer_deflate_scratch_bytes(filteredBytes)
    return try workspace.withBuffers(
      filteredBytes: filteredBytes, outputBytes: outputBytes, scratchBytes: scratchBytes
    ) { filtered, output, scratch in
      let rows = filtered.baseAddress!.assumingMemoryBound(to: UInt8.self)
      let isGrayOpaque = image.pixels.withUnsafeBufferPointer { pixels in
        Self.writeGrayUpRows(pixels.baseAddress!, width: width, height: height, into: rows)
      }
      guard isGrayOpaque else { return nil }
      let compressed = asynclayer_deflate_tile(
        rows, filteredBytes, output.baseAddress!.assumingMemoryBound(to: UInt8.self) + Self.idatBodyOffset,
        deflateBound, scratch.baseAddress!)
      guard compressed > 0, compressed <= Int(Int32.max) else {
        throw RenderError.encodeFailed("the tile deflater could not fit \(filteredBytes) bytes into \(deflateBound)")
      }
      let count = PNGEncoder.assemble(
        width: width, height: height, colorType: 0, compressedBytes: compressed, into: output)
      return Data(bytes: output.baseAddress!, count: count)
    }
  }

  /// Converts and `up`-filters every row into `out` (filter byte, then one gray byte per pixel);
  /// false as soon as a row holds a pixel that is not opaque gray.
  private static func writeGrayUpRows(
    _ pixels: UnsafePointer<UInt32>, width: Int, height: Int, into out: UnsafeMutablePointer<UInt8>
  ) -> Bool {
    for row in 0..<height {
      let source = pixels + row * width
      let target = out + row * (width + 1)
      target[0] = 2
      if row > 0, memcmp(source, source - width, width * 4) == 0 {
        // The same pixels as the row above (already checked): `up` gives zeros.
        (target + 1).initialize(repeating: 0, count: width)
        continue
      }
      var allBits: UInt32 = 0xffff_ffff
      var channelDifferences: UInt32 = 0
      if row == 0 {
        for index in 0..<width {
          let pixel = source[index]
          allBits &= pixel
          channelDifferences |= (pixel ^ (pixel >> 8)) & 0xffff
          target[1 + index] = UInt8(truncatingIfNeeded: pixel)
        }
      } else {
        let above = source - width
        for index in 0..<width {
          let pixel = source[index]
          allBits &= pixel
          channelDifferences |= (pixel ^ (pixel >> 8)) & 0xffff
          target[1 + index] = UInt8(truncatingIfNeeded: pixel) &- UInt8(truncatingIfNeeded: above[index])
        }
      }
      // Opaque: alpha 0xff in every pixel. Gray: red = green = blue (see PNGPixelLayout).
      guard allBits >= 0xff00_0000, channelDifferences == 0 else { return false }
    }
    return true
  }
}
