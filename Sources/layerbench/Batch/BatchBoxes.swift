import AsyncLayer
import Foundation

/// The boxes sidecar of a tile (`--boxes`): `<id>.json` beside `<id>.png`.
///
/// ```json
/// {"clusters":[{"box":[16,14.5,27.84,48.22],"end":1,"ink":[17.2,21.1,27.1,38.9],"line":0,"start":0,"text":"H"},…],
///  "height":130,"id":"t1","lines":[…],"text":"Hello, world","width":750,"words":[…]}
/// ```
///
/// Coordinates are the PNG's pixels (origin top-left, y down; padding, alignment and scale
/// applied), `[left, top, right, bottom]`, rounded to hundredths. `box` is the logical box (the
/// advance by the line's height), `ink` the drawn pixels' box (absent where nothing is drawn).
/// `start`/`end` index `text` in Unicode code points (Python's `str` indexes), end excluded.
/// A vertical or transformed tile's boxes also carry `quad` and `inkQuad`, the four corners
/// `[x1,y1,…,x4,y4]` of `box` and `ink` in the text's own order (clockwise in the image), of which
/// `box` and `ink` are then the bounds.
enum BatchBoxes {
  /// The sidecar of a rendered tile, or nil when it has no boxes: from its plain values where the
  /// tile gave them (`TextTile.collectsBoxValues`), else from its `TextBox`es.
  static func json(id: String, rendered: RenderedText) -> Data? {
    let (width, height, text) = (rendered.image.pixelWidth, rendered.image.pixelHeight, rendered.text ?? "")
    if let values = rendered.boxValues {
      return json(id: id, width: width, height: height, text: text, values: values)
    }
    return rendered.boxes.map { json(id: id, width: width, height: height, text: text, boxes: $0) }
  }

  /// The sidecar of a tile's boxes as `TextBox`es (a vertical or transformed tile's, with quads).
  static func json(id: String, width: Int, height: Int, text: String, boxes: TextBoxes) -> Data {
    let offsets = CodePointOffsets(text)
    // The most bytes the document can take, so that the writer never checks for room: per box its
    // keys, five integers, two rectangles of four numbers at their longest, and its text escaped
    // at the worst (`\u00XX` for every byte).
    var capacity = documentCapacity(id: id, text: text)
    func addCapacity(of list: [TextBox]) {
      list.withUnsafeBufferPointer { list in
        for position in list.indices {
          capacity += boxCapacity(textBytes: list[position].text.utf8.count)
          // A vertical or transformed tile's `quad` and `inkQuad`: keys and brackets, then per
          // point two numbers and two commas.
          let points = (list[position].quad?.count ?? 0) + (list[position].inkQuad?.count ?? 0)
          if points > 0 { capacity += 32 + points * (2 * BoxesJSONWriter.maxNumberBytes + 2) }
        }
      }
    }
    addCapacity(of: boxes.clusters)
    addCapacity(of: boxes.words)
    addCapacity(of: boxes.lines)
    // `out` passed inout, not captured: a captured var would live in a heap box, every append
    // going through it. The boxes are read in place (no copy of each `TextBox`, its `String` and
    // arrays retained and released).
    func list(_ items: [TextBox], into out: inout BoxesJSONWriter) {
      items.withUnsafeBufferPointer { items in
        for position in items.indices {
          if position > 0 { out.byte(UInt8(ascii: ",")) }
          out.literal(#"{"box":"#)
          out.rect(items[position].frame)
          out.literal(#","end":"#)
          out.integer(offsets.index(items[position].utf8Range.upperBound))
          if let ink = items[position].inkFrame {
            out.literal(#","ink":"#)
            out.rect(ink)
          }
          if let quad = items[position].inkQuad {
            out.literal(#","inkQuad":"#)
            out.quad(quad)
          }
          out.literal(#","line":"#)
          out.integer(items[position].lineIndex)
          if let quad = items[position].quad {
            out.literal(#","quad":"#)
            out.quad(quad)
          }
          out.literal(#","start":"#)
          out.integer(offsets.index(items[position].utf8Range.lowerBound))
          out.literal(#","text":"#)
          out.quoted(items[position].text)
          out.byte(UInt8(ascii: "}"))
        }
      }
    }
    return document(id: id, width: width, height: height, text: text, capacity: capacity) { level, out in
      switch level {
      case .clusters: list(boxes.clusters, into: &out)
      case .lines: list(boxes.lines, into: &out)
      case .words: list(boxes.words, into: &out)
      }
    }
  }

  /// The same sidecar, byte for byte, from the boxes as plain values (an untransformed, horizontal
  /// tile's: `TextTile.collectsBoxValues`): each box's text is written from `text`'s bytes, as
  /// `TextLayout` slices it for a `TextBox`, without a `String` per box.
  static func json(id: String, width: Int, height: Int, text: String, values: TextBoxValues) -> Data {
    var capacity = documentCapacity(id: id, text: text)
    let byteCount = text.utf8.count
    func addCapacity(of list: [TextBoxValues.Box]) {
      list.withUnsafeBufferPointer { list in
        for position in list.indices {
          let range = list[position].range
          let bytes = min(max(0, range.upperBound), byteCount) - min(max(0, range.lowerBound), byteCount)
          // A slice decoded leniently takes at most three bytes (U+FFFD) per byte.
          capacity += boxCapacity(textBytes: list[position].isEllipsis ? 3 : 3 * max(bytes, 0))
        }
      }
    }
    addCapacity(of: values.clusters)
    addCapacity(of: values.words)
    addCapacity(of: values.lines)
    var bytes = text
    return bytes.withUTF8 { utf8 in
      let offsets = CodePointOffsets(utf8: utf8)
      func list(_ items: [TextBoxValues.Box], into out: inout BoxesJSONWriter) {
        items.withUnsafeBufferPointer { items in
          for position in items.indices {
            if position > 0 { out.byte(UInt8(ascii: ",")) }
            out.literal(#"{"box":"#)
            out.rect(items[position].frame)
            out.literal(#","end":"#)
            out.integer(offsets.index(items[position].range.upperBound))
            if let ink = items[position].ink {
              out.literal(#","ink":"#)
              out.rect(ink)
            }
            out.literal(#","line":"#)
            out.integer(items[position].line)
            out.literal(#","start":"#)
            out.integer(offsets.index(items[position].range.lowerBound))
            out.literal(#","text":"#)
            if items[position].isEllipsis {
              out.literal(#""…""#)
            } else {
              out.quoted(slice: items[position].range, of: utf8)
            }
            out.byte(UInt8(ascii: "}"))
          }
        }
      }
      return document(id: id, width: width, height: height, text: text, capacity: capacity) { level, out in
        switch level {
        case .clusters: list(values.clusters, into: &out)
        case .lines: list(values.lines, into: &out)
        case .words: list(values.words, into: &out)
        }
      }
    }
  }

  /// The three lists of boxes, in the order the document writes them.
  enum Level {
    case clusters
    case lines
    case words
  }

  /// The bytes the document takes besides its boxes: keys, the id and text escaped at the worst
  /// (`\u00XX` for every byte), three integers.
  private static func documentCapacity(id: String, text: String) -> Int {
    128 + 6 * (id.utf8.count + text.utf8.count) + 3 * BoxesJSONWriter.maxIntegerBytes
  }

  /// The most bytes one box without quads takes: its keys, five integers, two rectangles of four
  /// numbers at their longest, and its text escaped at the worst.
  private static func boxCapacity(textBytes: Int) -> Int {
    64 + 8 * BoxesJSONWriter.maxNumberBytes + 3 * BoxesJSONWriter.maxIntegerBytes + 6 * textBytes
  }

  /// The document, keys in sorted order, `list` writing each level's boxes between its brackets.
  private static func document(
    id: String, width: Int, height: Int, text: String, capacity: Int,
    list: (Level, inout BoxesJSONWriter) -> Void
  ) -> Data {
    var out = BoxesJSONWriter(capacity: capacity)
    out.literal(#"{"clusters":["#)
    list(.clusters, &out)
    out.literal(#"],"height":"#)
    out.integer(height)
    out.literal(#","id":"#)
    out.quoted(id)
    out.literal(#","lines":["#)
    list(.lines, &out)
    out.literal(#"],"text":"#)
    out.quoted(text)
    out.literal(#","width":"#)
    out.integer(width)
    out.literal(#","words":["#)
    list(.words, &out)
    out.literal("]}\n")
    return out.finish()
  }

  /// UTF-8 offset → code point index, for the offsets Pango gives; no table for ASCII text (nearly
  /// every Latin line), where the two are the same.
  struct CodePointOffsets {
    let byteCount: Int
    let isASCII: Bool
    var scalarIndex: [Int] = []

    init(_ text: String) {
      var text = text
      self = text.withUTF8 { Self(utf8: $0) }
    }

    /// From the text's bytes: a code point starts at each byte that is not a continuation byte.
    init(utf8: UnsafeBufferPointer<UInt8>) {
      byteCount = utf8.count
      isASCII = utf8.allSatisfy { $0 < 0x80 }
      if !isASCII {
        scalarIndex = [Int](repeating: 0, count: byteCount + 1)
        var scalars = -1
        for offset in 0..<byteCount {
          if utf8[offset] & 0xC0 != 0x80 { scalars += 1 }
          scalarIndex[offset] = scalars
        }
        scalarIndex[byteCount] = scalars + 1
      }
    }

    @inline(__always)
    func index(_ offset: Int) -> Int {
      let clamped = min(max(0, offset), byteCount)
      return isASCII ? clamped : scalarIndex[clamped]
    }
  }
}

/// Writes JSON into one buffer allocated at its largest size up front: no `String` per value, and
/// no capacity or uniqueness check per byte (a 60-character line's sidecar is ~150 numbers and ~70
/// strings; appending them to an array, check by check, was most of `--boxes`' cost: callgrind,
/// `bench/dataset/labels_cost.py`). The buffer becomes the `Data` without a copy.
struct BoxesJSONWriter {
  /// The longest integer: "-9223372036854775808".
  static let maxIntegerBytes = 20
  /// The longest number: a sign, 16 digits (hundredths are clamped to ±9e15), a point, two digits.
  static let maxNumberBytes = 20

  private let base: UnsafeMutablePointer<UInt8>
  private let capacity: Int
  private var count = 0

  init(capacity: Int) {
    self.capacity = capacity
    guard let memory = malloc(max(capacity, 1)) else {
      fatalError("out of memory for a \(capacity)-byte boxes sidecar")
    }
    base = memory.assumingMemoryBound(to: UInt8.self)
  }

  /// The bytes written, as `Data` that owns (and frees) the buffer.
  consuming func finish() -> Data {
    precondition(count <= capacity)
    let shrunk = realloc(base, max(count, 1)) ?? UnsafeMutableRawPointer(base)
    return Data(bytesNoCopy: shrunk, count: count, deallocator: .free)
  }

  @inline(__always)
  mutating func byte(_ value: UInt8) {
    base[count] = value
    count += 1
  }

  @inline(__always)
  mutating func literal(_ text: StaticString) {
    (base + count).update(from: text.utf8Start, count: text.utf8CodeUnitCount)
    count += text.utf8CodeUnitCount
  }

  /// Decimal digits of `value`.
  mutating func integer(_ value: Int) {
    if value < 0 { byte(UInt8(ascii: "-")) }
    unsigned(UInt64(value.magnitude))
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
  private mutating func unsigned(_ value: UInt64) {
    let pairs = Self.pairs.utf8Start
    if value < 10 {
      byte(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
    } else if value < 100 {
      let pair = Int(value) &* 2
      base[count] = pairs[pair]
      base[count &+ 1] = pairs[pair &+ 1]
      count &+= 2
    } else if value < 1000 {
      let high = value / 100
      let pair = Int(value &- high &* 100) &* 2
      base[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: high)
      base[count &+ 1] = pairs[pair]
      base[count &+ 2] = pairs[pair &+ 1]
      count &+= 3
    } else if value < 10000 {
      let high = value / 100
      let highPair = Int(high) &* 2
      let pair = Int(value &- high &* 100) &* 2
      base[count] = pairs[highPair]
      base[count &+ 1] = pairs[highPair &+ 1]
      base[count &+ 2] = pairs[pair]
      base[count &+ 3] = pairs[pair &+ 1]
      count &+= 4
    } else {
      var digits = 5
      var bound: UInt64 = 100_000
      while digits < 20, value >= bound {
        digits += 1
        bound = bound &* 10
      }
      var rest = value
      var position = count + digits
      while rest >= 100 {
        let high = rest / 100
        let pair = Int(rest &- high &* 100) &* 2
        position -= 2
        base[position] = pairs[pair]
        base[position + 1] = pairs[pair + 1]
        rest = high
      }
      if rest >= 10 {
        let pair = Int(rest) &* 2
        base[position - 2] = pairs[pair]
        base[position - 1] = pairs[pair + 1]
      } else {
        base[position - 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
      }
      count += digits
    }
  }

  /// `value` rounded to hundredths, half away from zero, without trailing zeros (a non-finite
  /// value is written as 0; beyond ±9e15 hundredths, clamped). Rounding is done on the integer
  /// and fraction parts of the clamped magnitude (both exact below 2^53), which gives the digits
  /// `(value * 100).rounded()` gives, without a call into libm per number.
  @inline(__always)
  mutating func number(_ value: Double) {
    // Clamping before rounding is the same as after: the bounds are whole numbers.
    let scaled = value.isFinite ? max(-9e15, min(9e15, value * 100)) : 0
    let magnitude = scaled.magnitude
    // Through Int64: a double's conversion to UInt64 takes more steps on x86, and 9e15 fits.
    let whole = UInt64(truncatingIfNeeded: Int64(magnitude))
    let hundredths = magnitude - Double(whole) >= 0.5 ? whole &+ 1 : whole
    if scaled < 0, hundredths != 0 { byte(UInt8(ascii: "-")) }
    let units = hundredths / 100
    let fraction = Int(hundredths &- units &* 100)
    unsigned(units)
    if fraction != 0 {
      let pairs = Self.pairs.utf8Start
      base[count] = UInt8(ascii: ".")
      base[count &+ 1] = pairs[fraction &* 2]
      if pairs[fraction &* 2 &+ 1] != UInt8(ascii: "0") {
        base[count &+ 2] = pairs[fraction &* 2 &+ 1]
        count &+= 3
      } else {
        count &+= 2
      }
    }
  }

  mutating func rect(_ rect: Rect) {
    byte(UInt8(ascii: "["))
    number(rect.minX)
    byte(UInt8(ascii: ","))
    number(rect.minY)
    byte(UInt8(ascii: ","))
    number(rect.maxX)
    byte(UInt8(ascii: ","))
    number(rect.maxY)
    byte(UInt8(ascii: "]"))
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

  /// `range` of `utf8` (a `String`'s bytes) as a JSON string: the same bytes as `quoted` of the
  /// slice `TextLayout` makes for a `TextBox` (the bounds clamped, decoded leniently), copied
  /// straight from `utf8` when the slice is whole characters (always, for ranges Pango gives).
  mutating func quoted(slice range: Range<Int>, of utf8: UnsafeBufferPointer<UInt8>) {
    let lower = min(max(0, range.lowerBound), utf8.count)
    let upper = min(max(lower, range.upperBound), utf8.count)
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
    byte(UInt8(ascii: "\""))
    let start = count
    var plain = true
    for source in utf8 {
      if source < 0x20 || source == 0x7f || source == 0x22 || source == 0x5c {
        plain = false
        break
      }
      base[count] = source
      count &+= 1
    }
    if !plain {
      count = start
      for byte in utf8 { escaped(byte) }
    }
    byte(UInt8(ascii: "\""))
  }

  /// One byte of a string, escaped as `ManifestRecord.appendQuoted` does.
  private mutating func escaped(_ value: UInt8) {
    switch value {
    case UInt8(ascii: "\""): literal(#"\""#)
    case UInt8(ascii: "\\"): literal(#"\\"#)
    case 0x0a: literal(#"\n"#)
    case 0x0d: literal(#"\r"#)
    case 0x09: literal(#"\t"#)
    case 0..<0x20, 0x7f:
      let hex: StaticString = "0123456789abcdef"
      literal(#"\u00"#)
      byte(hex.utf8Start[Int(value >> 4)])
      byte(hex.utf8Start[Int(value & 0xf)])
    default: byte(value)
    }
  }
}
