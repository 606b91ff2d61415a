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
  static func json(id: String, rendered: RenderedText) -> Data? { Source(id: id, rendered: rendered)?.json() }

  /// What a tile's sidecar is written from, kept apart from its pixels so that the JSON can be
  /// written on the thread that writes the tile (the writer thread, when there is one) instead of
  /// on the worker that rendered it: `json()` gives the same bytes as `json(id:rendered:)`.
  struct Source: Sendable {
    let id: String
    let width: Int
    let height: Int
    let text: String
    let boxes: Boxes

    enum Boxes: Sendable {
      case values(TextBoxValues)
      case boxes(TextBoxes)
    }

    /// A rendered tile's boxes, or nil when it has none (no `--boxes`).
    init?(id: String, rendered: RenderedText) {
      if let values = rendered.boxValues {
        boxes = .values(values)
      } else if let textBoxes = rendered.boxes {
        boxes = .boxes(textBoxes)
      } else {
        return nil
      }
      (self.id, width, height, text) = (id, rendered.image.pixelWidth, rendered.image.pixelHeight, rendered.text ?? "")
    }

    func json() -> Data {
      switch boxes {
      case .values(let values): BatchBoxes.json(id: id, width: width, height: height, text: text, values: values)
      case .boxes(let boxes): BatchBoxes.json(id: id, width: width, height: height, text: text, boxes: boxes)
      }
    }
  }

  /// The sidecar of a tile's boxes as `TextBox`es (a vertical or transformed tile's, with quads).
  static func json(id: String, width: Int, height: Int, text: String, boxes: TextBoxes) -> Data {
    let offsets = CodePointOffsets(text)
    let boxCount = boxes.clusters.count + boxes.words.count + boxes.lines.count
    // `out` passed inout, not captured: a captured var would live in a heap box, every append
    // going through it. The boxes are read in place (no copy of each `TextBox`, its `String` and
    // arrays retained and released).
    func list(_ items: [TextBox], into out: inout BoxesJSONWriter) {
      items.withUnsafeBufferPointer { items in
        for position in items.indices {
          // Room for the box at its longest: a vertical or transformed tile's `quad` and
          // `inkQuad` take their keys and brackets, then per point two numbers and two commas.
          let points = (items[position].quad?.count ?? 0) + (items[position].inkQuad?.count ?? 0)
          out.reserve(
            boxCapacity(textBytes: items[position].text.utf8.count)
              + (points > 0 ? 32 + points * (2 * BoxesJSONWriter.maxNumberBytes + 2) : 0))
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
    return document(id: id, width: width, height: height, text: text, boxCount: boxCount) { level, out in
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
    let boxCount = values.clusters.count + values.words.count + values.lines.count
    var bytes = text
    return bytes.withUTF8 { utf8 in
      let offsets = CodePointOffsets(utf8: utf8)
      let byteCount = utf8.count
      func list(_ items: [TextBoxValues.Box], into out: inout BoxesJSONWriter) {
        items.withUnsafeBufferPointer { items in
          for position in items.indices {
            let range = items[position].range
            // Room for the box at its longest: a slice decoded leniently takes at most three
            // bytes (U+FFFD) per byte.
            let sliceBytes =
              clamp(range.upperBound, from: 0, to: byteCount) - clamp(range.lowerBound, from: 0, to: byteCount)
            out.reserve(boxCapacity(textBytes: items[position].isEllipsis ? 3 : 3 * (sliceBytes > 0 ? sliceBytes : 0)))
            if position > 0 { out.byte(UInt8(ascii: ",")) }
            out.boxFields(
              frame: items[position].frame, end: offsets.index(range.upperBound), ink: items[position].ink,
              line: items[position].line, start: offsets.index(range.lowerBound))
            let lower = range.lowerBound
            if items[position].isEllipsis {
              out.literal(#""…""#)
            } else if range.upperBound == lower &+ 1, lower >= 0, lower < byteCount,
              utf8[lower] >= 0x20, utf8[lower] < 0x7f, utf8[lower] != 0x22, utf8[lower] != 0x5c,
              lower &+ 1 == byteCount || utf8[lower &+ 1] & 0xC0 != 0x80
            {
              // A one-letter cluster (nearly every cluster of a Latin line) that needs no escape:
              // what `quoted(slice:of:)` writes for it, without its checks and loop.
              out.quoted(printableASCII: utf8[lower])
            } else {
              out.quoted(slice: range, of: utf8)
            }
            out.byte(UInt8(ascii: "}"))
          }
        }
      }
      return document(id: id, width: width, height: height, text: text, boxCount: boxCount) { level, out in
        switch level {
        case .clusters: list(values.clusters, into: &out)
        case .lines: list(values.lines, into: &out)
        case .words: list(values.words, into: &out)
        }
      }
    }
  }

  /// `min(max(low, value), high)`, written out: the generic `min` and `max` were left as calls in
  /// the sidecar's loops.
  @inline(__always)
  static func clamp(_ value: Int, from low: Int, to high: Int) -> Int {
    let raised = value > low ? value : low
    return raised < high ? raised : high
  }

  /// The three lists of boxes, in the order the document writes them.
  enum Level {
    case clusters
    case lines
    case words
  }

  /// The most bytes each of the document's three parts between its lists takes: keys, the id and
  /// text escaped at the worst (`\u00XX` for every byte), three integers.
  private static func documentCapacity(id: String, text: String) -> Int {
    128 + 6 * (id.utf8.count + text.utf8.count) + 3 * BoxesJSONWriter.maxIntegerBytes
  }

  /// The most bytes one box without quads takes: its keys, five integers, two rectangles of four
  /// numbers at their longest, and its text escaped at the worst.
  private static func boxCapacity(textBytes: Int) -> Int {
    64 + 8 * BoxesJSONWriter.maxNumberBytes + 3 * BoxesJSONWriter.maxIntegerBytes + 6 * textBytes
  }

  /// The document, keys in sorted order, `list` writing each level's boxes between its brackets
  /// (reserving each box's room before it writes it). The buffer starts at what a tile's boxes take
  /// at their longest when their texts are the text's bytes once per level (always, for one-byte
  /// texts such as a Latin line's), so that it grows only for unusual texts.
  private static func document(
    id: String, width: Int, height: Int, text: String, boxCount: Int,
    list: (Level, inout BoxesJSONWriter) -> Void
  ) -> Data {
    let documentBytes = documentCapacity(id: id, text: text)
    var out = BoxesJSONWriter(
      capacity: 3 * documentBytes + boxCount * boxCapacity(textBytes: 0) + 3 * 6 * 3 * text.utf8.count)
    out.reserve(documentBytes)
    out.literal(#"{"clusters":["#)
    list(.clusters, &out)
    out.reserve(documentBytes)
    out.literal(#"],"height":"#)
    out.integer(height)
    out.literal(#","id":"#)
    out.quoted(id)
    out.literal(#","lines":["#)
    list(.lines, &out)
    out.reserve(documentBytes)
    out.literal(#"],"text":"#)
    out.quoted(text)
    out.literal(#","width":"#)
    out.integer(width)
    out.literal(#","words":["#)
    list(.words, &out)
    out.reserve(4)
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
      // All bytes or-ed together (a loop the compiler vectorizes), not a test per byte.
      var bits: UInt8 = 0
      for byte in utf8 { bits |= byte }
      isASCII = bits < 0x80
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
      let clamped = clamp(offset, from: 0, to: byteCount)
      return isASCII ? clamped : scalarIndex[clamped]
    }
  }
}
