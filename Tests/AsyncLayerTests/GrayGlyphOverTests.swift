import CCairo
import Testing

/// The A8 compositor's OVER (`asynclayer_a8_over` in `Sources/CCairo/gray_glyphs.h`) against
/// pixman's formula `d = m + MUL(d, 255 − m)` byte by byte: its 16-byte blocks (`pmulhuw` for
/// `MUL`, and a block whose destination is all zero stored as the coverage), the one-block rows of
/// 16-byte glyph images, the 8-byte and scalar tails.
@Suite("Gray glyph OVER")
struct GrayGlyphOverTests {
  /// pixman's MUL_UN8 and OVER of an opaque source, one byte.
  static func over(_ d: UInt8, _ m: UInt8) -> UInt8 {
    let t = UInt32(d) * UInt32(255 - m) + 0x80
    return m + UInt8(((t >> 8) + t) >> 8)
  }

  /// `asynclayer_a8_over` on copies of `dest` and `mask` (`stride` apart, `width` × `height`),
  /// compared with `over` applied to every byte inside the box; bytes outside must not change.
  static func check(dest: [UInt8], mask: [UInt8], stride: Int, width: Int, height: Int) -> Bool {
    var result = dest
    var expected = dest
    for y in 0..<height {
      for x in 0..<width { expected[y * stride + x] = over(dest[y * stride + x], mask[y * stride + x]) }
    }
    result.withUnsafeMutableBufferPointer { d in
      mask.withUnsafeBufferPointer { m in
        asynclayer_a8_over(d.baseAddress!, stride, m.baseAddress!, stride, Int32(width), Int32(height))
      }
    }
    return result == expected
  }

  @Test("every destination and coverage pair, in blocks, one-block rows and tails")
  func everyPair() {
    // Row d holds destination d everywhere and coverages 0…255: all 65 536 pairs through blocks.
    let stride = 256
    var dest = [UInt8](repeating: 0, count: stride * 256)
    var mask = [UInt8](repeating: 0, count: stride * 256)
    for d in 0..<256 {
      for m in 0..<256 {
        dest[d * stride + m] = UInt8(d)
        mask[d * stride + m] = UInt8(m)
      }
    }
    #expect(Self.check(dest: dest, mask: mask, stride: stride, width: 256, height: 256))
    // The same pairs with widths that leave 8-byte and scalar tails, and 16-wide rows.
    for width in [1, 7, 8, 9, 15, 16, 17, 23, 24, 31, 33] {
      #expect(Self.check(dest: dest, mask: mask, stride: stride, width: width, height: 256), "width \(width)")
    }
  }

  @Test("a zero block with one inked byte is composited, not copied")
  func oneInkedByte() {
    let stride = 16
    for position in 0..<16 {
      for ink in [1, 128, 255] as [UInt8] {
        var dest = [UInt8](repeating: 0, count: stride * 2)
        dest[position] = ink
        dest[stride + position] = ink
        let mask = (0..<(stride * 2)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        #expect(Self.check(dest: dest, mask: mask, stride: stride, width: 16, height: 2), "byte \(position) = \(ink)")
      }
    }
  }

  @Test("mixed zero and inked destinations, widths 1 to 48")
  func mixed() {
    var state: UInt32 = 0x1234_5678
    func next() -> UInt8 {
      state = state &* 1_664_525 &+ 1_013_904_223
      return UInt8(truncatingIfNeeded: state >> 24)
    }
    let stride = 64
    for width in 1...48 {
      for _ in 0..<20 {
        // Zero rows, zero blocks and stray ink, as glyphs leave them.
        let dest = (0..<(stride * 6)).map { index -> UInt8 in
          let row = index / stride
          if row % 3 == 0 { return 0 }
          return next() < 160 ? 0 : next()
        }
        let mask = (0..<(stride * 6)).map { _ in next() < 64 ? 0 : next() }
        #expect(Self.check(dest: dest, mask: mask, stride: stride, width: width, height: 6), "width \(width)")
      }
    }
  }
}
