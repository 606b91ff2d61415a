internal import CCairo
package import Foundation

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
  package static func hex(_ data: Data) -> String { hex(data, Data(), hardware: hasHardwareRounds) }

  /// The digest of `first` followed by `second`, without joining them into one buffer first.
  package static func hex(_ first: Data, followedBy second: Data) -> String {
    hex(first, second, hardware: hasHardwareRounds)
  }

  /// The digest, through the CPU's SHA instructions or the portable rounds (tests compare the two).
  static func hex(_ data: Data, hardware: Bool) -> String { hex(data, Data(), hardware: hardware) }

  /// The digests of `a` and `b`, the same as `hex(a)` and `hex(b)`. With the CPU's SHA instructions
  /// the blocks the two have in common are hashed side by side (`asynclayer_sha256_blocks2`): one
  /// message's rounds are a chain of waits the other's fill, so the shorter one costs little more
  /// than nothing (`layerbench batch --boxes` hashes a tile's PNG with its sidecar).
  package static func hex(_ a: Data, alongside b: Data) -> (String, String) {
    hex(a, alongside: b, hardware: hasHardwareRounds)
  }

  /// ``hex(_:alongside:)``, through the hardware rounds or the portable ones (tests compare them).
  static func hex(_ a: Data, alongside b: Data, hardware: Bool) -> (String, String) {
    guard hardware else { return (hex(a, hardware: false), hex(b, hardware: false)) }
    return a.withUnsafeBytes { a in
      b.withUnsafeBytes { b in
        let shared = min(a.count, b.count) / 64
        var stateA = initialState
        var stateB = initialState
        if shared > 0, let startA = a.baseAddress, let startB = b.baseAddress {
          withUnsafeMutablePointer(to: &stateA) { stateA in
            withUnsafeMutablePointer(to: &stateB) { stateB in
              stateA.withMemoryRebound(to: UInt32.self, capacity: 8) { stateA in
                stateB.withMemoryRebound(to: UInt32.self, capacity: 8) { stateB in
                  asynclayer_sha256_blocks2(
                    stateA, startA.assumingMemoryBound(to: UInt8.self), stateB,
                    startB.assumingMemoryBound(to: UInt8.self), shared)
                }
              }
            }
          }
        }
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        return (
          hex(
            UnsafeRawBufferPointer(rebasing: a[(shared * 64)...]), empty, state: stateA, hashed: shared * 64,
            hardware: true),
          hex(
            UnsafeRawBufferPointer(rebasing: b[(shared * 64)...]), empty, state: stateB, hashed: shared * 64,
            hardware: true)
        )
      }
    }
  }

  /// Eight words of state, a to h.
  typealias State = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

  /// The state before the first block (FIPS 180-4, 5.3.3).
  static let initialState: State = (
    0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
  )

  /// The digest of `first` then `second`.
  static func hex(_ first: Data, _ second: Data, hardware: Bool) -> String {
    first.withUnsafeBytes { first in
      second.withUnsafeBytes { second in hex(first, second, state: initialState, hashed: 0, hardware: hardware) }
    }
  }

  /// The digest of a message whose first `hashed` bytes (whole blocks) left `state`, and whose rest
  /// is `first` then `second`. Whole blocks are hashed in place; only a part's last partial block
  /// and the padding go through a 128-byte buffer on the stack, so a hash allocates nothing but its
  /// result (`layerbench batch` hashes every PNG and every input line).
  private static func hex(
    _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer, state: State, hashed: Int, hardware: Bool
  ) -> String {
    var hash = state
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
      withUnsafeTemporaryAllocation(byteCount: 128, alignment: 16) { pending in
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
          withUnsafeBytes(of: asynclayer_sha256_k) { constants in
            let k = constants.bindMemory(to: UInt32.self)
            for block in 0..<blocks {
              Self.compress(UnsafeRawBufferPointer(start: start + block * 64, count: 64), into: &hash, w, k)
            }
          }
        }
        let buffer = pending.baseAddress!
        var pendingCount = 0
        var total = hashed
        for index in 0..<2 {  // no array of the two
          let bytes = index == 0 ? first : second
          guard var next = bytes.baseAddress, !bytes.isEmpty else { continue }
          total += bytes.count
          var left = bytes.count
          if pendingCount > 0 {
            let taken = min(64 - pendingCount, left)
            (buffer + pendingCount).copyMemory(from: next, byteCount: taken)
            pendingCount += taken
            next += taken
            left -= taken
            guard pendingCount == 64 else { continue }
            compress(buffer, blocks: 1)
            pendingCount = 0
          }
          let whole = left / 64
          if whole > 0 { compress(next, blocks: whole) }
          pendingCount = left - whole * 64
          if pendingCount > 0 { buffer.copyMemory(from: next + whole * 64, byteCount: pendingCount) }
        }
        // The tail: 0x80, zeros and the bit length, in one or two blocks.
        buffer.storeBytes(of: 0x80, toByteOffset: pendingCount, as: UInt8.self)
        let tailBlocks = pendingCount < 56 ? 1 : 2
        let lengthAt = tailBlocks * 64 - 8
        (buffer + pendingCount + 1).initializeMemory(as: UInt8.self, repeating: 0, count: lengthAt - pendingCount - 1)
        let bitLength = UInt64(total) &* 8
        for byte in 0..<8 {
          buffer.storeBytes(
            of: UInt8(truncatingIfNeeded: bitLength >> UInt64(56 - 8 * byte)), toByteOffset: lengthAt + byte,
            as: UInt8.self)
        }
        compress(buffer, blocks: tailBlocks)
      }
    }
    return withUnsafeBytes(of: hash) { words in
      String(unsafeUninitializedCapacity: 64) { text in
        let digits: StaticString = "0123456789abcdef"
        let digit = digits.utf8Start
        for index in 0..<8 {
          let word = words.load(fromByteOffset: index * 4, as: UInt32.self)
          for nibble in 0..<8 {
            text[index * 8 + nibble] = digit[Int((word >> UInt32(28 - 4 * nibble)) & 0xf)]
          }
        }
        return 64
      }
    }
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
