import Foundation

extension PNGEncoder {
  /// Straight colour values that cairo's premultiplication turns back into the premultiplied ones.
  ///
  /// Indexed by `alpha << 8 | premultiplied`. cairo (like libpng users generally) computes
  /// `premultiplied = round(alpha × straight / 255)`; as `straight` runs over 0…255 that value
  /// steps by at most one, so every `premultiplied` in 0…alpha has a preimage: the round trip is
  /// exact for all valid premultiplied pixels. The table holds the preimage nearest to
  /// `premultiplied × 255 / alpha`; values above alpha (invalid) map to 255.
  static let unpremultiplyTable: [UInt8] = {
    var table = [UInt8](repeating: 0, count: 256 * 256)
    func premultiply(_ alpha: Int, _ straight: Int) -> Int {
      let product = alpha * straight + 0x80
      return (product + (product >> 8)) >> 8
    }
    for alpha in 1...255 {
      for value in 0...255 {
        guard value < alpha else {
          table[alpha << 8 | value] = 255
          continue
        }
        var straight = min(255, (value * 255 + alpha / 2) / alpha)
        while premultiply(alpha, straight) < value { straight += 1 }
        while premultiply(alpha, straight) > value { straight -= 1 }
        table[alpha << 8 | value] = UInt8(straight)
      }
    }
    return table
  }()

  /// Converts every row to the layout's channels and writes it, filtered, after its filter byte.
  func writeFilteredRows(
    of image: RenderedImage, layout: PNGPixelLayout, rowBytes: Int, into output: UnsafeMutableRawBufferPointer
  ) {
    let width = image.pixelWidth
    let bpp = layout.bytesPerPixel
    let out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
    // Two raw rows (current and previous) plus four filtered candidates (with their filter byte)
    // for the adaptive filter.
    let scratchBytes = 2 * rowBytes + (filter == .adaptive ? 4 * (rowBytes + 1) : 0)
    image.pixels.withUnsafeBufferPointer { pixels in
      Self.unpremultiplyTable.withUnsafeBufferPointer { table in
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: scratchBytes) { scratch in
          let base = scratch.baseAddress!
          var current = base
          var previous = base + rowBytes
          previous.initialize(repeating: 0, count: rowBytes)  // the row above the first is zeros
          for row in 0..<image.pixelHeight {
            let source = pixels.baseAddress! + row * width
            let target = out + row * (rowBytes + 1)
            if filter == .none {
              target[0] = 0
              Self.convert(source, count: width, layout: layout, table: table.baseAddress!, into: target + 1)
              continue
            }
            Self.convert(source, count: width, layout: layout, table: table.baseAddress!, into: current)
            switch filter {
            case .none: break
            case .sub: Self.apply(1, current, previous, rowBytes, bpp, target)
            case .up: Self.apply(2, current, previous, rowBytes, bpp, target)
            case .average: Self.apply(3, current, previous, rowBytes, bpp, target)
            case .paeth: Self.apply(4, current, previous, rowBytes, bpp, target)
            case .adaptive:
              Self.applyAdaptive(current, previous, rowBytes, bpp, candidates: base + 2 * rowBytes, target)
            }
            swap(&current, &previous)
          }
        }
      }
    }
  }

  /// Writes `count` pixels as the layout's bytes (straight alpha, PNG channel order).
  @inline(__always)
  private static func convert(
    _ source: UnsafePointer<UInt32>, count: Int, layout: PNGPixelLayout, table: UnsafePointer<UInt8>,
    into target: UnsafeMutablePointer<UInt8>
  ) {
    switch layout.colorType {
    case 0:
      for index in 0..<count { target[index] = UInt8(truncatingIfNeeded: source[index]) }
    case 2:
      for index in 0..<count {
        let pixel = source[index]
        target[3 * index] = UInt8(truncatingIfNeeded: pixel >> 16)
        target[3 * index + 1] = UInt8(truncatingIfNeeded: pixel >> 8)
        target[3 * index + 2] = UInt8(truncatingIfNeeded: pixel)
      }
    case 4:
      for index in 0..<count {
        let pixel = source[index]
        let alpha = Int(pixel >> 24)
        target[2 * index] = table[alpha << 8 | Int(pixel & 0xff)]
        target[2 * index + 1] = UInt8(alpha)
      }
    default:
      for index in 0..<count {
        let pixel = source[index]
        let alpha = Int(pixel >> 24)
        let row = table + (alpha << 8)
        target[4 * index] = row[Int((pixel >> 16) & 0xff)]
        target[4 * index + 1] = row[Int((pixel >> 8) & 0xff)]
        target[4 * index + 2] = row[Int(pixel & 0xff)]
        target[4 * index + 3] = UInt8(alpha)
      }
    }
  }

  /// Writes the filter byte and the row filtered with PNG filter `type` (1…4) to `target`.
  @inline(__always)
  private static func apply(
    _ type: UInt8, _ current: UnsafeMutablePointer<UInt8>, _ previous: UnsafeMutablePointer<UInt8>,
    _ count: Int, _ bpp: Int, _ target: UnsafeMutablePointer<UInt8>
  ) {
    target[0] = type
    let out = target + 1
    switch type {
    case 1:
      for index in 0..<min(bpp, count) { out[index] = current[index] }
      for index in bpp..<max(bpp, count) { out[index] = current[index] &- current[index - bpp] }
    case 2:
      for index in 0..<count { out[index] = current[index] &- previous[index] }
    case 3:
      for index in 0..<min(bpp, count) { out[index] = current[index] &- previous[index] >> 1 }
      for index in bpp..<max(bpp, count) {
        let mean = (UInt16(current[index - bpp]) + UInt16(previous[index])) >> 1
        out[index] = current[index] &- UInt8(truncatingIfNeeded: mean)
      }
    default:
      for index in 0..<min(bpp, count) { out[index] = current[index] &- previous[index] }
      for index in bpp..<max(bpp, count) {
        out[index] = current[index] &- paeth(current[index - bpp], previous[index], previous[index - bpp])
      }
    }
  }

  /// The Paeth predictor: whichever of left, above and upper-left is closest to left + above - upper-left.
  @inline(__always)
  private static func paeth(_ left: UInt8, _ above: UInt8, _ upperLeft: UInt8) -> UInt8 {
    let estimate = Int(left) + Int(above) - Int(upperLeft)
    let toLeft = abs(estimate - Int(left))
    let toAbove = abs(estimate - Int(above))
    let toUpperLeft = abs(estimate - Int(upperLeft))
    if toLeft <= toAbove && toLeft <= toUpperLeft { return left }
    return toAbove <= toUpperLeft ? above : upperLeft
  }

  /// Tries all five filters and keeps the one with the smallest sum of absolute signed bytes.
  private static func applyAdaptive(
    _ current: UnsafeMutablePointer<UInt8>, _ previous: UnsafeMutablePointer<UInt8>, _ count: Int, _ bpp: Int,
    candidates: UnsafeMutablePointer<UInt8>, _ target: UnsafeMutablePointer<UInt8>
  ) {
    func cost(_ row: UnsafeMutablePointer<UInt8>) -> Int {
      var sum = 0
      for index in 0..<count { sum += Int(Int8(bitPattern: row[index]).magnitude) }
      return sum
    }
    var bestType: UInt8 = 0
    var bestCost = cost(current)
    var bestRow = current
    // Candidate rows are `count + 1` bytes apart (filter byte + row) inside the scratch space.
    for type: UInt8 in 1...4 where bestCost > 0 {
      let candidate = candidates + Int(type - 1) * (count + 1)
      apply(type, current, previous, count, bpp, candidate)
      let candidateCost = cost(candidate + 1)
      if candidateCost < bestCost {
        bestType = type
        bestCost = candidateCost
        bestRow = candidate + 1
      }
    }
    target[0] = bestType
    (target + 1).update(from: bestRow, count: count)
  }
}
