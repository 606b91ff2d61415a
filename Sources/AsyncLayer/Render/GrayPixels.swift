import Synchronization

/// The pixels of an opaque gray image, one byte each: what ``TextTile`` keeps when it draws black or
/// white text on an opaque gray background (see `TextTile.renderGray`), instead of four bytes of
/// premultiplied ARGB32 that are all alike but the alpha.
///
/// The bytes are a cairo A8 surface's rows (`stride` bytes apart, `stride >= width`): coverage
/// composited OVER with an opaque source, which pixman rounds exactly as it rounds each colour
/// channel of the ARGB32 draw. For white text a byte is the gray itself; for black text it is
/// 255 − gray (`inverted`). The ARGB32 form is made on first use and kept.
final class GrayPixels: Sendable {
  let width: Int
  let height: Int
  /// Bytes from one row to the next (cairo's stride for A8, a multiple of 4).
  let stride: Int
  /// True: a byte is 255 − gray (black text: coverage); false: the gray.
  let inverted: Bool
  /// `stride * height` bytes.
  let bytes: [UInt8]
  /// The ARGB32 pixels, once asked for.
  private let argb = Mutex<[UInt32]?>(nil)

  init(width: Int, height: Int, stride: Int, inverted: Bool, bytes: [UInt8]) {
    precondition(width >= 0 && height >= 0 && stride >= width && bytes.count == stride * height)
    self.width = width
    self.height = height
    self.stride = stride
    self.inverted = inverted
    self.bytes = bytes
  }

  /// The gray value of a pixel.
  func gray(x: Int, y: Int) -> UInt8 {
    let byte = bytes[y * stride + x]
    return inverted ? 255 - byte : byte
  }

  /// The opaque ARGB32 pixel of a gray value.
  static func argb(_ gray: UInt8) -> UInt32 {
    0xff00_0000 | UInt32(gray) &* 0x01_0101
  }

  /// Premultiplied ARGB32 pixels, row-major without padding: made once, then shared.
  var argbPixels: [UInt32] {
    argb.withLock { cached in
      if let cached { return cached }
      var table = [UInt32](repeating: 0, count: 256)
      for byte in 0..<256 { table[byte] = Self.argb(UInt8(inverted ? 255 - byte : byte)) }
      let count = width * height
      let pixels = [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
        bytes.withUnsafeBufferPointer { source in
          table.withUnsafeBufferPointer { table in
            for row in 0..<height {
              let from = source.baseAddress! + row * stride
              let to = buffer.baseAddress! + row * width
              for column in 0..<width { (to + column).initialize(to: table[Int(from[column])]) }
            }
          }
        }
        initialized = count
      }
      cached = pixels
      return pixels
    }
  }
}
