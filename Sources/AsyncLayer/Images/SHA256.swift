internal import CCairo
import Foundation

/// SHA-256 (FIPS 180-4): the names of disk-cache files (after the whole URL, without collisions)
/// and the checksums of `layerbench batch`'s PNG files.
///
/// Not a security boundary, only collision-free names and integrity checks; written in Swift to
/// avoid a crypto dependency. It hashes the bytes in place, block by block: with the CPU's SHA
/// instructions where x86 has them (`CCairo/sha256_x86.h`, about five times faster: `layerbench
/// batch` hashes every PNG it writes), else with the portable rounds below.
///
/// ```swift
/// SHA256.hex(Data("abc".utf8))   // "ba7816bf…"
/// ```
package enum SHA256 {

  /// Whether this CPU runs the SHA instructions (checked once).
  static let hasHardwareRounds = asynclayer_sha256_hardware() != 0

  /// The digest as 64 lowercase hex digits.
  package static func hex(_ data: Data) -> String { hex(data, hardware: hasHardwareRounds) }

  /// The digest, through the CPU's SHA instructions or the portable rounds (tests compare the two).
  static func hex(_ data: Data, hardware: Bool) -> String {
    var hash: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
      0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    var w = [UInt32](repeating: 0, count: 64)
    // `blocks` 64-byte blocks at `start` into `hash`.
    func compress(_ start: UnsafeRawPointer, blocks: Int) {
      if hardware {
        withUnsafeMutablePointer(to: &hash) { hash in
          hash.withMemoryRebound(to: UInt32.self, capacity: 8) { state in
            asynclayer_sha256_blocks(state, start.assumingMemoryBound(to: UInt8.self), blocks)
          }
        }
        return
      }
      w.withUnsafeMutableBufferPointer { w in
        withUnsafeBytes(of: asynclayer_sha256_k) { constants in
          let k = constants.bindMemory(to: UInt32.self)
          for block in 0..<blocks {
            Self.compress(UnsafeRawBufferPointer(start: start + block * 64, count: 64), into: &hash, w, k)
          }
        }
      }
    }
    data.withUnsafeBytes { bytes in
      let whole = bytes.count / 64
      if whole > 0 { compress(bytes.baseAddress!, blocks: whole) }
      // The tail, 0x80, zeros and the bit length, in one or two blocks.
      var tail = [UInt8](bytes[(whole * 64)...])
      tail.append(0x80)
      while tail.count % 64 != 56 { tail.append(0) }
      let bitLength = UInt64(bytes.count) &* 8
      for shift in stride(from: 56, through: 0, by: -8) {
        tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
      }
      tail.withUnsafeBytes { compress($0.baseAddress!, blocks: $0.count / 64) }
    }
    let words = [hash.0, hash.1, hash.2, hash.3, hash.4, hash.5, hash.6, hash.7]
    let digits = Array("0123456789abcdef".utf8)
    var text = [UInt8]()
    text.reserveCapacity(64)
    for word in words {
      for shift in stride(from: 28, through: 0, by: -4) { text.append(digits[Int((word >> UInt32(shift)) & 0xf)]) }
    }
    return String(decoding: text, as: UTF8.self)
  }

  private static func compress(
    _ block: UnsafeRawBufferPointer, into hash: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32),
    _ w: UnsafeMutableBufferPointer<UInt32>, _ k: UnsafeBufferPointer<UInt32>
  ) {
    for i in 0..<16 {
      let j = i * 4
      w[i] = UInt32(block[j]) << 24 | UInt32(block[j + 1]) << 16 | UInt32(block[j + 2]) << 8 | UInt32(block[j + 3])
    }
    for i in 16..<64 {
      let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
      let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
      w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
    }
    var (a, b, c, d, e, f, g, h) = hash
    for i in 0..<64 {
      let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
      let choice = (e & f) ^ (~e & g)
      let t1 = h &+ s1 &+ choice &+ k[i] &+ w[i]
      let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
      let majority = (a & b) ^ (a & c) ^ (b & c)
      (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ s0 &+ majority)
    }
    hash = (hash.0 &+ a, hash.1 &+ b, hash.2 &+ c, hash.3 &+ d, hash.4 &+ e, hash.5 &+ f, hash.6 &+ g, hash.7 &+ h)
  }

  @inline(__always) private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x &>> n) | (x &<< (32 &- n)) }

  /// The digest of `message`'s UTF-8 bytes as 64 lowercase hex digits.
  static func hexDigest(_ message: String) -> String { hex(Data(message.utf8)) }
}
