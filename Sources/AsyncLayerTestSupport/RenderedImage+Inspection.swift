package import AsyncLayer

/// Pixel-level questions the tests (and the CLI tests, which read PNGs back) ask. They look at colours and bounds, never at glyph
/// shapes, which differ between font versions.
extension RenderedImage {
  /// Pixels whose colour differs noticeably from `background`.
  package func inkPixelCount(background: Color) -> Int {
    var count = 0
    for y in 0..<pixelHeight {
      for x in 0..<pixelWidth where isInk(x: x, y: y, background: background) { count += 1 }
    }
    return count
  }

  /// The bounding box in pixels of everything that is not `background`, or nil for a blank image.
  package func inkBounds(background: Color) -> (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
    var bounds: (minX: Int, minY: Int, maxX: Int, maxY: Int)?
    for y in 0..<pixelHeight {
      for x in 0..<pixelWidth where isInk(x: x, y: y, background: background) {
        if let b = bounds {
          bounds = (min(b.minX, x), min(b.minY, y), max(b.maxX, x), max(b.maxY, y))
        } else {
          bounds = (x, y, x, y)
        }
      }
    }
    return bounds
  }

  /// The leftmost and rightmost ink columns within the pixel rows `rows`, or nil when they are blank.
  package func inkColumns(rows: Range<Int>, background: Color) -> (minX: Int, maxX: Int)? {
    var columns: (minX: Int, maxX: Int)?
    for y in max(0, rows.lowerBound)..<min(pixelHeight, rows.upperBound) {
      for x in 0..<pixelWidth where isInk(x: x, y: y, background: background) {
        columns = (min(columns?.minX ?? x, x), max(columns?.maxX ?? x, x))
      }
    }
    return columns
  }

  package func isInk(x: Int, y: Int, background: Color) -> Bool {
    let c = color(x: x, y: y)
    let d =
      abs(c.red - background.red) + abs(c.green - background.green) + abs(c.blue - background.blue)
      + abs(c.alpha - background.alpha)
    return d > 0.1
  }
}
