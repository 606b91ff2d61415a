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
    // UTF-8 offset → code point index, for the offsets Pango gives.
    var scalarIndex = [Int](repeating: 0, count: text.utf8.count + 1)
    var bytes = 0
    var scalars = 0
    for scalar in text.unicodeScalars {
      let length = scalar.utf8.count
      for offset in 0..<length { scalarIndex[bytes + offset] = scalars }
      bytes += length
      scalars += 1
    }
    scalarIndex[bytes] = scalars
    func index(_ offset: Int) -> Int { scalarIndex[min(max(0, offset), bytes)] }

    var out = BoxesJSONWriter(capacity: 256 + boxes.clusters.count * 110 + text.utf8.count)
    // `out` passed inout, not captured: a captured var would live in a heap box, every append
    // going through it.
    func list(_ name: StaticString, _ items: [TextBox], into out: inout BoxesJSONWriter) {
      out.literal(name)
      for (position, box) in items.enumerated() {
        if position > 0 { out.byte(UInt8(ascii: ",")) }
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
    return Data(out.bytes)
  }
}

/// Appends JSON to a byte array without a `String` per value: a 40-character line has ~150
/// numbers and ~50 strings, and formatting each through `String` was most of the sidecar's cost
/// (callgrind, `bench/dataset-peers.sh cost`).
private struct BoxesJSONWriter {
  var bytes: [UInt8] = []

  init(capacity: Int) { bytes.reserveCapacity(capacity) }

  mutating func byte(_ value: UInt8) { bytes.append(value) }

  mutating func literal(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  /// Decimal digits of `value`, most significant first (appended one by one: most values here
  /// have two to four digits).
  mutating func integer(_ value: Int) {
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    var rest = value.magnitude
    var divisor: UInt = 1
    while divisor <= rest / 10 { divisor *= 10 }
    repeat {
      bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest / divisor))
      rest %= divisor
      divisor /= 10
    } while divisor > 0
  }

  /// `value` rounded to hundredths, without trailing zeros (a non-finite value is written as 0).
  mutating func number(_ value: Double) {
    let scaled = value.isFinite ? (value * 100).rounded() : 0
    // Pixel coordinates of a tile the limits allow are far inside Int's range; clamp anyway.
    let hundredths = Int(max(-9e15, min(9e15, scaled)))
    if hundredths < 0 { bytes.append(UInt8(ascii: "-")) }
    let magnitude = abs(hundredths)
    integer(magnitude / 100)
    let fraction = magnitude % 100
    if fraction != 0 {
      bytes.append(UInt8(ascii: "."))
      bytes.append(UInt8(ascii: "0") + UInt8(fraction / 10))
      if fraction % 10 != 0 { bytes.append(UInt8(ascii: "0") + UInt8(fraction % 10)) }
    }
  }

  mutating func rect(_ rect: Rect) {
    bytes.append(UInt8(ascii: "["))
    number(rect.minX)
    bytes.append(UInt8(ascii: ","))
    number(rect.minY)
    bytes.append(UInt8(ascii: ","))
    number(rect.maxX)
    bytes.append(UInt8(ascii: ","))
    number(rect.maxY)
    bytes.append(UInt8(ascii: "]"))
  }

  /// Four corners as `[x1,y1,x2,y2,x3,y3,x4,y4]`.
  mutating func quad(_ points: [Point]) {
    bytes.append(UInt8(ascii: "["))
    for (index, point) in points.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      number(point.x)
      bytes.append(UInt8(ascii: ","))
      number(point.y)
    }
    bytes.append(UInt8(ascii: "]"))
  }

  /// A JSON string; text without a byte to escape (the common case) is copied in one step.
  mutating func quoted(_ value: String) {
    let plain = value.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7f && $0 != 0x22 && $0 != 0x5c }
    if plain {
      bytes.append(UInt8(ascii: "\""))
      bytes.append(contentsOf: value.utf8)
      bytes.append(UInt8(ascii: "\""))
    } else {
      ManifestRecord.appendQuoted(value, to: &bytes)
    }
  }
}
