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
  static func json(id: String, width: Int, height: Int, text: String, boxes: TextBoxes) -> Data {
    // UTF-8 offset → code point index, for the offsets Pango gives; none for ASCII text (nearly
    // every Latin line), where the two are the same.
    let byteCount = text.utf8.count
    let isASCII = text.utf8.allSatisfy { $0 < 0x80 }
    var scalarIndex: [Int] = []
    if !isASCII {
      scalarIndex = [Int](repeating: 0, count: byteCount + 1)
      var bytes = 0
      var scalars = 0
      for scalar in text.unicodeScalars {
        let length = scalar.utf8.count
        for offset in 0..<length { scalarIndex[bytes + offset] = scalars }
        bytes += length
        scalars += 1
      }
      scalarIndex[bytes] = scalars
    }
    func index(_ offset: Int) -> Int {
      let clamped = min(max(0, offset), byteCount)
      return isASCII ? clamped : scalarIndex[clamped]
    }

    // The most bytes the document can take, so that the writer never checks for room: per box its
    // keys, five integers, two rectangles of four numbers at their longest, and its text escaped
    // at the worst (`\u00XX` for every byte).
    var capacity = 128 + 6 * (id.utf8.count + byteCount) + 3 * BoxesJSONWriter.maxIntegerBytes
    for list in [boxes.clusters, boxes.words, boxes.lines] {
      for box in list {
        capacity +=
          64 + 8 * BoxesJSONWriter.maxNumberBytes + 3 * BoxesJSONWriter.maxIntegerBytes + 6 * box.text.utf8.count
        // A vertical or transformed tile's `quad` and `inkQuad`: keys and brackets, then per
        // point two numbers and two commas.
        let points = (box.quad?.count ?? 0) + (box.inkQuad?.count ?? 0)
        if points > 0 { capacity += 32 + points * (2 * BoxesJSONWriter.maxNumberBytes + 2) }
      }
    }
    var out = BoxesJSONWriter(capacity: capacity)
    // `out` passed inout, not captured: a captured var would live in a heap box, every append
    // going through it.
    func list(_ name: StaticString, _ items: [TextBox], into out: inout BoxesJSONWriter) {
      out.literal(name)
      var first = true
      for box in items {
        if !first { out.byte(UInt8(ascii: ",")) }
        first = false
        out.literal(#"{"box":"#)
        out.rect(box.frame)
        out.literal(#","end":"#)
        out.integer(index(box.utf8Range.upperBound))
        if let ink = box.inkFrame {
          out.literal(#","ink":"#)
          out.rect(ink)
        }
        if let quad = box.inkQuad {
          out.literal(#","inkQuad":"#)
          out.quad(quad)
        }
        out.literal(#","line":"#)
        out.integer(box.lineIndex)
        if let quad = box.quad {
          out.literal(#","quad":"#)
          out.quad(quad)
        }
        out.literal(#","start":"#)
        out.integer(index(box.utf8Range.lowerBound))
        out.literal(#","text":"#)
        out.quoted(box.text)
        out.byte(UInt8(ascii: "}"))
      }
      out.byte(UInt8(ascii: "]"))
    }
    out.byte(UInt8(ascii: "{"))
    list(#""clusters":["#, boxes.clusters, into: &out)
    out.literal(#","height":"#)
    out.integer(height)
    out.literal(#","id":"#)
    out.quoted(id)
    out.byte(UInt8(ascii: ","))
    list(#""lines":["#, boxes.lines, into: &out)
    out.literal(#","text":"#)
    out.quoted(text)
    out.literal(#","width":"#)
    out.integer(width)
    out.byte(UInt8(ascii: ","))
    list(#""words":["#, boxes.words, into: &out)
    out.literal("}\n")
    return out.finish()
  }
}

/// Writes JSON into one buffer allocated at its largest size up front: no `String` per value, and
/// no capacity or uniqueness check per byte (a 60-character line's sidecar is ~150 numbers and ~70
/// strings; appending them to an array, check by check, was most of `--boxes`' cost: callgrind,
/// `bench/dataset/labels_cost.py`). The buffer becomes the `Data` without a copy.
private struct BoxesJSONWriter {
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

  mutating func byte(_ value: UInt8) {
    base[count] = value
    count += 1
  }

  mutating func literal(_ text: StaticString) {
    (base + count).update(from: text.utf8Start, count: text.utf8CodeUnitCount)
    count += text.utf8CodeUnitCount
  }

  /// Decimal digits of `value`.
  mutating func integer(_ value: Int) {
    if value < 0 { byte(UInt8(ascii: "-")) }
    unsigned(value.magnitude)
  }

  /// Decimal digits of `value`, written from the last one back, then in place.
  private mutating func unsigned(_ value: UInt) {
    var digits = 1
    var bound: UInt = 10
    while digits < 20, value >= bound {
      digits += 1
      bound = bound &* 10
    }
    var rest = value
    var position = count + digits - 1
    repeat {
      base[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
      rest /= 10
      position -= 1
    } while rest > 0
    count += digits
  }

  /// `value` rounded to hundredths, without trailing zeros (a non-finite value is written as 0).
  mutating func number(_ value: Double) {
    let scaled = value.isFinite ? (value * 100).rounded() : 0
    // Pixel coordinates of a tile the limits allow are far inside Int's range; clamp anyway.
    let hundredths = Int(max(-9e15, min(9e15, scaled)))
    if hundredths < 0 { byte(UInt8(ascii: "-")) }
    let magnitude = UInt(abs(hundredths))
    unsigned(magnitude / 100)
    let fraction = magnitude % 100
    if fraction != 0 {
      byte(UInt8(ascii: "."))
      byte(UInt8(ascii: "0") + UInt8(fraction / 10))
      if fraction % 10 != 0 { byte(UInt8(ascii: "0") + UInt8(fraction % 10)) }
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

  /// A JSON string, escaped as `ManifestRecord.appendQuoted` escapes it; text without a byte to
  /// escape (the common case) is copied in one step.
  mutating func quoted(_ value: String) {
    var value = value
    value.withUTF8 { utf8 in
      let plain = utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7f && $0 != 0x22 && $0 != 0x5c }
      byte(UInt8(ascii: "\""))
      if plain {
        if let source = utf8.baseAddress { (base + count).update(from: source, count: utf8.count) }
        count += utf8.count
      } else {
        for byte in utf8 { escaped(byte) }
      }
      byte(UInt8(ascii: "\""))
    }
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
