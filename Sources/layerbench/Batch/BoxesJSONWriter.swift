import AsyncLayer
import Foundation

/// Writes JSON into one buffer, its room reserved before each part (a box, a part of the document)
/// is written: no `String` per value, and no capacity or uniqueness check per byte (a 60-character
/// line's sidecar is ~150 numbers and ~70 strings; appending them to an array, check by check, was
/// most of `--boxes`' cost: callgrind, `bench/dataset/labels_cost.py`). The buffer becomes the
/// `Data` without a copy.
///
/// The hot writers (`rect`, `boxFields`, the strings) write through a local pointer and store the
/// position once: a store through a byte pointer may alias the writer's own fields, so writing
/// through `base[count]` made the compiler load and store `count` around every byte.
struct BoxesJSONWriter {
  /// The longest integer: "-9223372036854775808".
  static let maxIntegerBytes = 20
  /// The longest number: a sign, 16 digits (hundredths are clamped to ±9e15), a point, two digits.
  static let maxNumberBytes = 20

  private var base: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  /// Where the next byte goes.
  private var cursor: UnsafeMutablePointer<UInt8>

  /// A number written before and its bytes (at most 8), to be copied when the same number comes
  /// again: a cluster's box starts where the one before it ended and has its line's top and
  /// bottom, so three of its four numbers were just written (`boxFields`).
  struct Memo {
    var value = Double.nan
    var bytes: UInt64 = 0
    var length = 0
  }

  /// `boxFields`' memos: the logical boxes' left and right edges, their tops and bottoms, and the
  /// ink boxes' tops and bottoms.
  private var boxX = Memo()
  private var boxTop = Memo()
  private var boxBottom = Memo()
  private var inkTop = Memo()
  private var inkBottom = Memo()

  init(capacity: Int) {
    self.capacity = max(capacity, 1)
    guard let memory = malloc(self.capacity) else {
      fatalError("out of memory for a \(capacity)-byte boxes sidecar")
    }
    base = memory.assumingMemoryBound(to: UInt8.self)
    cursor = base
  }

  /// Bytes written so far.
  var count: Int { cursor - base }

  /// Makes room for `bytes` more bytes (the most the next part can take): the buffer grows (twice
  /// its size, or more) only when it has less left.
  @inline(__always)
  mutating func reserve(_ bytes: Int) {
    if capacity - count < bytes { grow(to: max(2 * capacity, count + bytes)) }
  }

  private mutating func grow(to newCapacity: Int) {
    let written = count
    guard let memory = realloc(base, newCapacity) else {
      fatalError("out of memory for a \(newCapacity)-byte boxes sidecar")
    }
    base = memory.assumingMemoryBound(to: UInt8.self)
    capacity = newCapacity
    cursor = base + written
  }

  /// The bytes written, as `Data` that owns (and frees) the buffer. The buffer is not shrunk to
  /// them: it lives only until the tile's members are written.
  consuming func finish() -> Data {
    precondition(count <= capacity)
    return Data(bytesNoCopy: base, count: count, deallocator: .free)
  }

  @inline(__always)
  mutating func byte(_ value: UInt8) {
    cursor.pointee = value
    cursor += 1
  }

  @inline(__always)
  mutating func literal(_ text: StaticString) {
    cursor = Self.put(text, at: cursor)
  }

  /// Bytes as they are (JSON written elsewhere, a number's text).
  mutating func bytes(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress else { return }
    cursor.update(from: source, count: bytes.count)
    cursor += bytes.count
  }

  /// Decimal digits of `value`.
  mutating func integer(_ value: Int) {
    cursor = Self.integer(value, at: cursor)
  }

  /// `value` rounded to hundredths (see the static `number(_:at:)`).
  mutating func number(_ value: Double) {
    cursor = Self.number(value, at: cursor)
  }

  /// `[minX,minY,maxX,maxY]`.
  mutating func rect(_ rect: Rect) {
    cursor = Self.rect(rect, at: cursor)
  }

  /// A box's fields up to its text, `{"box":[…],"end":N,"ink":[…],"line":N,"start":N,"text":` (no
  /// `ink` when it is nil), in one pass through a local pointer.
  /// Numbers seen in the box before it (its left edge, its line's top and bottom) are copied from
  /// where they were written (`Memo`).
  mutating func boxFields(frame: Rect, end: Int, ink: Rect?, line: Int, start: Int) {
    // The memos as locals while bytes are stored (a byte store may alias the writer's fields).
    var (boxX, boxTop, boxBottom, inkTop, inkBottom) = (boxX, boxTop, boxBottom, inkTop, inkBottom)
    defer {
      (self.boxX, self.boxTop, self.boxBottom, self.inkTop, self.inkBottom) = (
        boxX, boxTop, boxBottom, inkTop, inkBottom
      )
    }
    var at = Self.put(#"{"box":["#, at: cursor)
    at = Self.number(frame.minX, at: at, memo: &boxX)
    at[0] = UInt8(ascii: ",")
    at = Self.number(frame.minY, at: at + 1, memo: &boxTop)
    at[0] = UInt8(ascii: ",")
    at = Self.number(frame.maxX, at: at + 1, memo: &boxX)
    at[0] = UInt8(ascii: ",")
    at = Self.number(frame.maxY, at: at + 1, memo: &boxBottom)
    at = Self.put(#"],"end":"#, at: at)
    at = Self.integer(end, at: at)
    if let ink {
      at = Self.put(#","ink":["#, at: at)
      at = Self.number(ink.minX, at: at)
      at[0] = UInt8(ascii: ",")
      at = Self.number(ink.minY, at: at + 1, memo: &inkTop)
      at[0] = UInt8(ascii: ",")
      at = Self.number(ink.maxX, at: at + 1)
      at[0] = UInt8(ascii: ",")
      at = Self.number(ink.maxY, at: at + 1, memo: &inkBottom)
      at[0] = UInt8(ascii: "]")
      at += 1
    }
    at = Self.put(#","line":"#, at: at)
    at = Self.integer(line, at: at)
    at = Self.put(#","start":"#, at: at)
    at = Self.integer(start, at: at)
    cursor = Self.put(#","text":"#, at: at)
  }

  /// Four corners as `[x1,y1,x2,y2,x3,y3,x4,y4]`.
  mutating func quad(_ points: [Point]) {
    byte(UInt8(ascii: "["))
    for (index, point) in points.enumerated() {
      if index > 0 { byte(UInt8(ascii: ",")) }
      number(point.x)
      byte(UInt8(ascii: ","))
      number(point.y)
    }
    byte(UInt8(ascii: "]"))
  }

  /// A JSON string, escaped as `ManifestRecord.appendQuoted` escapes it.
  mutating func quoted(_ value: String) {
    var value = value
    value.withUTF8 { quoted(bytes: $0) }
  }

  /// A printable ASCII byte other than `"` and `\` as a JSON string: the byte between quotes.
  @inline(__always)
  mutating func quoted(printableASCII value: UInt8) {
    cursor[0] = UInt8(ascii: "\"")
    cursor[1] = value
    cursor[2] = UInt8(ascii: "\"")
    cursor += 3
  }

  /// `range` of `utf8` (a `String`'s bytes) as a JSON string: the same bytes as `quoted` of the
  /// slice `TextLayout` makes for a `TextBox` (the bounds clamped, decoded leniently), copied
  /// straight from `utf8` when the slice is whole characters (always, for ranges Pango gives).
  mutating func quoted(slice range: Range<Int>, of utf8: UnsafeBufferPointer<UInt8>) {
    let lower = BatchBoxes.clamp(range.lowerBound, from: 0, to: utf8.count)
    let upper = BatchBoxes.clamp(range.upperBound, from: lower, to: utf8.count)
    func isContinuation(_ position: Int) -> Bool { position < utf8.count && utf8[position] & 0xC0 == 0x80 }
    let slice = UnsafeBufferPointer(rebasing: utf8[lower..<upper])
    if isContinuation(lower) || isContinuation(upper) {
      quoted(String(decoding: slice, as: UTF8.self))
    } else {
      quoted(bytes: slice)
    }
  }

  /// Bytes copied as they are checked; the first one to escape (rare) sends the string back
  /// through the escaping loop.
  private mutating func quoted(bytes utf8: UnsafeBufferPointer<UInt8>) {
    cursor.pointee = UInt8(ascii: "\"")
    let start = cursor + 1
    var at = start
    var plain = true
    // Eight bytes at a time while none needs escaping (a manifest record's label, checksums and
    // names: ~250 bytes a record), copied as they are checked; the rest byte by byte.
    var index = 0
    if let base = utf8.baseAddress {
      while index + 8 <= utf8.count {
        let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
        guard !Self.needsEscape(word) else { break }
        UnsafeMutableRawPointer(at).storeBytes(of: word, as: UInt64.self)
        at += 8
        index += 8
      }
    }
    while index < utf8.count {
      let source = utf8[index]
      if source < 0x20 || source == 0x7f || source == 0x22 || source == 0x5c {
        plain = false
        break
      }
      at.pointee = source
      at += 1
      index += 1
    }
    if !plain {
      at = start
      for byte in utf8 { at = Self.escaped(byte, at: at) }
    }
    at.pointee = UInt8(ascii: "\"")
    cursor = at + 1
  }

  /// Whether any of a word's eight bytes is one a JSON string escapes: below 0x20, `"`, `\` or
  /// 0x7f. Exact (no false alarm): the classic "has a zero byte" and "has a byte below n" tests,
  /// whose borrows only ever run up from a byte that matched.
  @inline(__always)
  static func needsEscape(_ word: UInt64) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    func hasZero(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
    let below = (word &- 0x20 &* ones) & ~word & highs != 0
    return below || hasZero(word ^ (0x22 &* ones)) || hasZero(word ^ (0x5c &* ones)) || hasZero(word ^ (0x7f &* ones))
  }

  // The writers below take where to write and return where they stopped.

  @inline(__always)
  private static func put(_ text: StaticString, at: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
    at.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
    return at + text.utf8CodeUnitCount
  }

  @inline(__always)
  private static func integer(_ value: Int, at: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
    var at = at
    if value < 0 {
      at.pointee = UInt8(ascii: "-")
      at += 1
    }
    return unsigned(UInt64(value.magnitude), at: at)
  }

  /// "00", "01", … "99": two digits per table read, so that a number takes one division by 100
  /// per pair of digits instead of one by 10 per digit.
  private static let pairs: StaticString = """
    00010203040506070809101112131415161718192021222324252627282930313233343536373839\
    40414243444546474849505152535455565758596061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899
    """

  /// Decimal digits of `value`: tile coordinates are below 10,000 pixels, written from the table
  /// without a loop; larger values a pair at a time from the last one back.
  @inline(__always)
  private static func unsigned(_ value: UInt64, at: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
    let pairs = Self.pairs.utf8Start
    if value < 10 {
      at[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value)
      return at + 1
    } else if value < 100 {
      let pair = Int(value) &* 2
      at[0] = pairs[pair]
      at[1] = pairs[pair &+ 1]
      return at + 2
    } else if value < 1000 {
      let high = value / 100
      let pair = Int(value &- high &* 100) &* 2
      at[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: high)
      at[1] = pairs[pair]
      at[2] = pairs[pair &+ 1]
      return at + 3
    } else if value < 10000 {
      let high = value / 100
      let highPair = Int(high) &* 2
      let pair = Int(value &- high &* 100) &* 2
      at[0] = pairs[highPair]
      at[1] = pairs[highPair &+ 1]
      at[2] = pairs[pair]
      at[3] = pairs[pair &+ 1]
      return at + 4
    }
    var digits = 5
    var bound: UInt64 = 100_000
    while digits < 20, value >= bound {
      digits += 1
      bound = bound &* 10
    }
    var rest = value
    var position = digits
    while rest >= 100 {
      let high = rest / 100
      let pair = Int(rest &- high &* 100) &* 2
      position -= 2
      at[position] = pairs[pair]
      at[position + 1] = pairs[pair + 1]
      rest = high
    }
    if rest >= 10 {
      let pair = Int(rest) &* 2
      at[position - 2] = pairs[pair]
      at[position - 1] = pairs[pair + 1]
    } else {
      at[position - 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
    }
    return at + digits
  }

  /// `value` rounded to hundredths, half away from zero, without trailing zeros (a non-finite
  /// value is written as 0; beyond ±9e15 hundredths, clamped). Rounding is done on the integer
  /// and fraction parts of the clamped magnitude (both exact below 2^53), which gives the digits
  /// `(value * 100).rounded()` gives, without a call into libm per number.
  @inline(__always)
  private static func number(_ value: Double, at: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
    var at = at
    // Clamping before rounding is the same as after: the bounds are whole numbers. Written out
    // as `max(-9e15, min(9e15, value * 100))` computes it (the product is never NaN here): the
    // generic `min` and `max` were left as calls once this function was inlined into `boxFields`.
    let product = value * 100
    let scaled = value.isFinite ? (product < 9e15 ? (product >= -9e15 ? product : -9e15) : 9e15) : 0
    let magnitude = scaled.magnitude
    // Through Int64: a double's conversion to UInt64 takes more steps on x86, and 9e15 fits.
    let whole = UInt64(truncatingIfNeeded: Int64(magnitude))
    let hundredths = magnitude - Double(whole) >= 0.5 ? whole &+ 1 : whole
    if scaled < 0, hundredths != 0 {
      at.pointee = UInt8(ascii: "-")
      at += 1
    }
    let units = hundredths / 100
    let fraction = Int(hundredths &- units &* 100)
    at = unsigned(units, at: at)
    if fraction != 0 {
      let pairs = Self.pairs.utf8Start
      at[0] = UInt8(ascii: ".")
      at[1] = pairs[fraction &* 2]
      if pairs[fraction &* 2 &+ 1] != UInt8(ascii: "0") {
        at[2] = pairs[fraction &* 2 &+ 1]
        return at + 3
      }
      return at + 2
    }
    return at
  }

  /// `number(value, at:)`, or when `value` is `memo`'s, its bytes copied (8 stored at once: the
  /// room reserved for a number is 20 bytes, and what the store writes past the number's end is
  /// written over next). A number longer than 8 bytes is not kept.
  @inline(__always)
  private static func number(_ value: Double, at: UnsafeMutablePointer<UInt8>, memo: inout Memo)
    -> UnsafeMutablePointer<UInt8>
  {
    // Equal doubles give equal digits (0 and -0 both "0"); NaN, the empty memo, equals nothing.
    if value == memo.value {
      UnsafeMutableRawPointer(at).storeBytes(of: memo.bytes, as: UInt64.self)
      return at + memo.length
    }
    let end = number(value, at: at)
    let length = end - at
    if length <= 8 {
      memo = Memo(value: value, bytes: UnsafeRawPointer(at).loadUnaligned(as: UInt64.self), length: length)
    } else {
      memo = Memo()
    }
    return end
  }

  @inline(__always)
  private static func rect(_ rect: Rect, at: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
    at[0] = UInt8(ascii: "[")
    var at = number(rect.minX, at: at + 1)
    at[0] = UInt8(ascii: ",")
    at = number(rect.minY, at: at + 1)
    at[0] = UInt8(ascii: ",")
    at = number(rect.maxX, at: at + 1)
    at[0] = UInt8(ascii: ",")
    at = number(rect.maxY, at: at + 1)
    at[0] = UInt8(ascii: "]")
    return at + 1
  }

  /// One byte of a string, escaped as `ManifestRecord.appendQuoted` does.
  private static func escaped(_ value: UInt8, at: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
    switch value {
    case UInt8(ascii: "\""): return put(#"\""#, at: at)
    case UInt8(ascii: "\\"): return put(#"\\"#, at: at)
    case 0x0a: return put(#"\n"#, at: at)
    case 0x0d: return put(#"\r"#, at: at)
    case 0x09: return put(#"\t"#, at: at)
    case 0..<0x20, 0x7f:
      let hex: StaticString = "0123456789abcdef"
      let after = put(#"\u00"#, at: at)
      after[0] = hex.utf8Start[Int(value >> 4)]
      after[1] = hex.utf8Start[Int(value & 0xf)]
      return after + 2
    default:
      at.pointee = value
      return at + 1
    }
  }
}
