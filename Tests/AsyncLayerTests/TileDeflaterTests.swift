import CCairo
import Testing

/// The tile deflater (`asynclayer_deflate_rows`, Sources/CCairo/png_deflate.h) on random and
/// adversarial PNG rows, each stream inflated by libdeflate's decompressor (an inflater that shares
/// no code with it) and compared with its input, with and without the blank-row flags the row pass
/// gives: all-zero rows (one token per blank row, written from prepared bits), all-different bytes,
/// runs across the 258-byte match limit, repeats at the edge of the 32 KiB window, rows of 1 pixel
/// and of the widths around the blank-row token's limit (8 × 258 + 2 bytes), and a huge image.
/// bench/png-deflate/check.c runs the same cases against zlib.
@Suite("Tile deflater")
struct TileDeflaterTests {
  /// xorshift64: the same bytes on every run.
  struct Bytes {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next() -> UInt8 {
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return UInt8(truncatingIfNeeded: state >> 24)
    }
  }

  /// The flags the row pass gives: a row (not the first) that is its filter byte and zeros.
  static func blankFlags(_ input: [UInt8], rowBytes: Int) -> [UInt8] {
    guard rowBytes > 0 else { return [] }
    let rows = input.count / rowBytes
    return (0..<rows).map { row in
      row > 0 && input[row * rowBytes + 1..<(row + 1) * rowBytes].allSatisfy { $0 == 0 } ? 1 : 0
    }
  }

  static func inflate(_ stream: [UInt8], count: Int) -> [UInt8]? {
    guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
    defer { libdeflate_free_decompressor(decompressor) }
    var result = LIBDEFLATE_SUCCESS
    let output = [UInt8](unsafeUninitializedCapacity: count + 1) { buffer, written in
      var actual = 0
      result = stream.withUnsafeBufferPointer {
        libdeflate_zlib_decompress(decompressor, $0.baseAddress, $0.count, buffer.baseAddress, count + 1, &actual)
      }
      written = result == LIBDEFLATE_SUCCESS ? actual : 0
    }
    return result == LIBDEFLATE_SUCCESS ? output : nil
  }

  /// Deflates `input` (rows of `rowBytes`, 0: no rows) with the given flags into a buffer of
  /// `capacity` bytes (the bound when nil); nil when the deflater refused.
  static func deflate(_ input: [UInt8], rowBytes: Int, flags: [UInt8]?, capacity: Int? = nil) -> [UInt8]? {
    let bound = capacity ?? asynclayer_deflate_bound(input.count)
    var scratch = [UInt32](repeating: 0, count: (asynclayer_deflate_scratch_bytes(input.count) + 3) / 4)
    var output = [UInt8](repeating: 0, count: bound)
    let written = input.withUnsafeBufferPointer { bytes in
      scratch.withUnsafeMutableBytes { scratch in
        output.withUnsafeMutableBufferPointer { out in
          if let flags {
            return flags.withUnsafeBufferPointer {
              asynclayer_deflate_rows(
                bytes.baseAddress, bytes.count, rowBytes, $0.baseAddress, out.baseAddress, bound, scratch.baseAddress)
            }
          }
          return asynclayer_deflate_rows(
            bytes.baseAddress, bytes.count, rowBytes, nil, out.baseAddress, bound, scratch.baseAddress)
        }
      }
    }
    return written == 0 ? nil : Array(output[..<written])
  }

  /// Both ways (flags and none) must inflate to `input`; an output buffer one byte short of the
  /// bound is refused.
  static func roundTrips(_ input: [UInt8], rowBytes: Int) -> Bool {
    let flags = blankFlags(input, rowBytes: rowBytes)
    for useFlags in [false, true] {
      guard let stream = deflate(input, rowBytes: rowBytes, flags: useFlags ? flags : nil),
        inflate(stream, count: input.count) == input
      else { return false }
      if deflate(
        input, rowBytes: rowBytes, flags: useFlags ? flags : nil, capacity: asynclayer_deflate_bound(input.count) - 1)
        != nil
      {
        return false
      }
    }
    return true
  }

  enum Fill: CaseIterable { case zero, random, randomWithBlankRows, sparseInk, longRuns }

  /// `rows` rows of `rowBytes` (filter byte 2, then the fill).
  static func rows(_ rows: Int, rowBytes: Int, fill: Fill, bytes: inout Bytes) -> [UInt8] {
    var data = [UInt8](repeating: 0, count: rows * rowBytes)
    for row in 0..<rows {
      let start = row * rowBytes
      data[start] = 2
      let blank = fill == .randomWithBlankRows && row > 0 && bytes.next() % 3 == 0
      var k = 1
      while k < rowBytes {
        switch fill {
        case .zero: k += 1
        case .random, .randomWithBlankRows:
          data[start + k] = blank ? 0 : bytes.next()
          k += 1
        case .sparseInk:
          data[start + k] = bytes.next() % 20 == 0 ? bytes.next() % 4 * 60 : 0
          k += 1
        case .longRuns:
          // 255–300 bytes of one value: runs across the 258-byte limit of a match.
          let run = 255 + Int(bytes.next()) % 46
          let value = bytes.next()
          for _ in 0..<run where k < rowBytes {
            data[start + k] = value
            k += 1
          }
        }
      }
    }
    return data
  }

  @Test(arguments: [1, 2, 3, 7, 15, 16, 17, 255, 256, 257, 258, 750, 2064, 2065, 2066, 2067, 5000])
  func rowsOfEveryKindRoundTrip(width: Int) {
    var bytes = Bytes()
    for fill in Fill.allCases {
      let data = Self.rows(1 + Int(bytes.next()) % 40, rowBytes: width + 1, fill: fill, bytes: &bytes)
      #expect(Self.roundTrips(data, rowBytes: width + 1), "width \(width), \(fill)")
    }
  }

  @Test func repeatsAtTheEdgeOfTheWindowRoundTrip() {
    var bytes = Bytes()
    for gap in 32_760...32_772 {
      var data = (0..<gap + 600).map { _ in bytes.next() }
      data.replaceSubrange(gap..<gap + 600, with: data[0..<600])
      #expect(Self.roundTrips(data, rowBytes: 0), "a repeat \(gap) bytes on")
      let rowBytes = 301
      #expect(Self.roundTrips(Array(data[..<(data.count - data.count % rowBytes)]), rowBytes: rowBytes), "rows, \(gap)")
    }
  }

  @Test func tinyInputsRoundTrip() {
    let data: [UInt8] = [2, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0]
    for count in 0...data.count {
      #expect(Self.roundTrips(Array(data[..<count]), rowBytes: 0), "\(count) bytes")
      #expect(Self.roundTrips(Array(data[..<(count - count % 3)]), rowBytes: 3), "\(count) bytes in rows of 3")
    }
  }

  @Test func aHugeSparseImageRoundTrips() {
    var bytes = Bytes()
    let data = Self.rows(3000, rowBytes: 4001, fill: .sparseInk, bytes: &bytes)
    #expect(Self.roundTrips(data, rowBytes: 4001))
  }

  /// An image of blank rows only: every row after the first is one token whose bits are prepared
  /// once, at widths up to the token's limit.
  @Test func imagesOfBlankRowsRoundTrip() {
    for width in [1, 750, 2064] {
      var data = [UInt8](repeating: 0, count: 50 * (width + 1))
      for row in 0..<50 { data[row * (width + 1)] = 2 }
      let flags = Self.blankFlags(data, rowBytes: width + 1)
      let withFlags = Self.deflate(data, rowBytes: width + 1, flags: flags)
      #expect(withFlags != nil)
      #expect(withFlags.flatMap { Self.inflate($0, count: data.count) } == data, "width \(width)")
    }
  }
}
