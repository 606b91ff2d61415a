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

    var out: [UInt8] = []
    out.reserveCapacity(256 + boxes.clusters.count * 110)
    func number(_ value: Double) {
      let hundredths = Int((value.isFinite ? value * 100 : 0).rounded())
      if hundredths < 0 { out.append(UInt8(ascii: "-")) }
      let magnitude = abs(hundredths)
      out.append(contentsOf: String(magnitude / 100).utf8)
      let fraction = magnitude % 100
      if fraction != 0 {
        out.append(UInt8(ascii: "."))
        out.append(UInt8(ascii: "0") + UInt8(fraction / 10))
        if fraction % 10 != 0 { out.append(UInt8(ascii: "0") + UInt8(fraction % 10)) }
      }
    }
    func rect(_ rect: Rect) {
      out.append(UInt8(ascii: "["))
      number(rect.minX)
      out.append(UInt8(ascii: ","))
      number(rect.minY)
      out.append(UInt8(ascii: ","))
      number(rect.maxX)
      out.append(UInt8(ascii: ","))
      number(rect.maxY)
      out.append(UInt8(ascii: "]"))
    }
    func list(_ name: String, _ items: [TextBox]) {
      out.append(contentsOf: "\"\(name)\":[".utf8)
      for (position, box) in items.enumerated() {
        if position > 0 { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: #"{"box":"#.utf8)
        rect(box.frame)
        out.append(contentsOf: #","end":"#.utf8)
        out.append(contentsOf: String(index(box.utf8Range.upperBound)).utf8)
        if let ink = box.inkFrame {
          out.append(contentsOf: #","ink":"#.utf8)
          rect(ink)
        }
        out.append(contentsOf: #","line":"#.utf8)
        out.append(contentsOf: String(box.lineIndex).utf8)
        out.append(contentsOf: #","start":"#.utf8)
        out.append(contentsOf: String(index(box.utf8Range.lowerBound)).utf8)
        out.append(contentsOf: #","text":"#.utf8)
        ManifestRecord.appendQuoted(box.text, to: &out)
        out.append(UInt8(ascii: "}"))
      }
      out.append(UInt8(ascii: "]"))
    }
    out.append(UInt8(ascii: "{"))
    list("clusters", boxes.clusters)
    out.append(contentsOf: #","height":"#.utf8)
    out.append(contentsOf: String(height).utf8)
    out.append(contentsOf: #","id":"#.utf8)
    ManifestRecord.appendQuoted(id, to: &out)
    out.append(UInt8(ascii: ","))
    list("lines", boxes.lines)
    out.append(contentsOf: #","text":"#.utf8)
    ManifestRecord.appendQuoted(text, to: &out)
    out.append(contentsOf: #","width":"#.utf8)
    out.append(contentsOf: String(width).utf8)
    out.append(UInt8(ascii: ","))
    list("words", boxes.words)
    out.append(contentsOf: "}\n".utf8)
    return Data(out)
  }
}
