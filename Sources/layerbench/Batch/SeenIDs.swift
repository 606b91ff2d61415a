/// The ids a run has read, each with the line it was first read on, in 16 bytes per id: a repeated
/// id fails its line with "duplicate id, first at line N" instead of overwriting the first tile.
///
/// An id is kept as 88 bits of two keyed SipHash values (`Hasher`, seeded at random per process),
/// not as a string: one million ids take 16–32 MB (an open-addressed table kept under three
/// quarters full, doubled when it fills) where a `Set<String>` of them takes about 100 MB. Two
/// different ids are taken for one only when they agree in all 88 bits: with the process's random
/// key, that is a chance of about n² / 2⁸⁹ for n ids (2 × 10⁻¹⁵ for a million, 2 × 10⁻¹¹ for a
/// hundred million), and an input cannot aim at it. No second check is made: it would need the
/// first line's id again, which a stream cannot give back.
struct SeenIDs {
  /// The first hash, with its lowest bit set, so that 0 marks an empty slot.
  private var keys: [UInt64]
  /// The line (upper 40 bits) and 24 more bits of the second hash.
  private var values: [UInt64]
  private(set) var count = 0

  init(capacity: Int = 1 << 12) {
    var size = 16
    while size < capacity { size <<= 1 }
    keys = [UInt64](repeating: 0, count: size)
    values = [UInt64](repeating: 0, count: size)
  }

  /// Bytes the table holds.
  var memory: Int { keys.count * 16 }

  private static let lineBits: UInt64 = 40
  private static let checkMask: UInt64 = (1 << 24) - 1

  /// The line `id` was first read on, or nil (and `line` is kept as its first line) when it is new.
  /// Ids are compared by their UTF-8 bytes, as file names are (not by `String`'s canonical equivalence).
  mutating func firstLine(of id: String, line: Int) -> Int? {
    var first = Hasher()
    first.combine(0 as UInt8)
    var second = Hasher()
    second.combine(1 as UInt8)
    var bytes = id
    bytes.withUTF8 { utf8 in
      first.combine(bytes: UnsafeRawBufferPointer(utf8))
      second.combine(bytes: UnsafeRawBufferPointer(utf8))
    }
    let key = UInt64(truncatingIfNeeded: first.finalize()) | 1
    let check = UInt64(truncatingIfNeeded: second.finalize()) & Self.checkMask
    let storedLine = UInt64(min(max(line, 0), (1 << 40) - 1))
    let mask = keys.count - 1
    var slot = Int(truncatingIfNeeded: key >> 7) & mask
    while keys[slot] != 0 {
      if keys[slot] == key, values[slot] & Self.checkMask == check {
        return Int(values[slot] >> (64 - Self.lineBits))
      }
      slot = (slot + 1) & mask
    }
    keys[slot] = key
    values[slot] = storedLine << (64 - Self.lineBits) | check
    count += 1
    if count * 4 >= keys.count * 3 { grow() }
    return nil
  }

  private mutating func grow() {
    let oldKeys = keys
    let oldValues = values
    keys = [UInt64](repeating: 0, count: oldKeys.count * 2)
    values = [UInt64](repeating: 0, count: oldKeys.count * 2)
    let mask = keys.count - 1
    for index in oldKeys.indices where oldKeys[index] != 0 {
      var slot = Int(truncatingIfNeeded: oldKeys[index] >> 7) & mask
      while keys[slot] != 0 { slot = (slot + 1) & mask }
      keys[slot] = oldKeys[index]
      values[slot] = oldValues[index]
    }
  }
}
