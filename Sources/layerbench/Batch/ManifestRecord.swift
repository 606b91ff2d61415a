import Foundation

/// One line of a batch manifest: a tile written, or a line that failed.
///
/// Successful records have `id`, `file`, `width`, `height`, `lines`, `unknownGlyphs`, `bytes`,
/// `sha256` and `ms`; failed ones have `error` (and `id` when the line got that far). `input` is a
/// hash of the input line and the command-line defaults: resume re-renders a tile when it changed.
/// Since the datasets options: `text` (the text as laid out, markup removed: the tile's label),
/// with `--boxes` the sidecar `boxes` (`<id>.json`) with its `boxesBytes` and `boxesSha256`, and
/// with sampling options `sample` (what was chosen for the tile). Older manifests lack them.
struct ManifestRecord: Codable, Sendable, Equatable {
  var line: Int
  var id: String?
  var file: String?
  var width: Int?
  var height: Int?
  var lines: Int?
  var unknownGlyphs: Int?
  var bytes: Int?
  var sha256: String?
  var ms: Double?
  var input: String?
  var error: String?
  var text: String?
  var boxes: String?
  var boxesBytes: Int?
  var boxesSha256: String?
  /// What seeded sampling chose for the tile, as a JSON object (keys sorted), or nil.
  var sample: SampleRecord?
  /// A vertical, stroked or transformed tile's orientation, stroke and transform (`LayoutRecord`).
  var layout: LayoutRecord?
  /// With `--output webdataset`: the tar file holding the tile, and where the image's data (`file`
  /// is then its member's name) and the boxes member's data start in it, in bytes.
  var tar: String?
  var offset: Int?
  var boxesOffset: Int?

  private enum CodingKeys: String, CodingKey {
    case line, id, file, width, height, lines, unknownGlyphs, bytes, sha256, ms, input, error, text, boxes, boxesBytes
    case boxesSha256, sample, tar, offset, boxesOffset, layout
  }

  var succeeded: Bool { error == nil && file != nil && sha256 != nil && bytes != nil }

  /// The record as one JSON line, newline included: keys sorted, fields that are nil left out (as
  /// `JSONEncoder` with `.sortedKeys` writes it, at a fraction of the cost). Written through a
  /// pointer into a buffer sized for the record beforehand (`BoxesJSONWriter`), which becomes the
  /// `Data` without a copy: appending to an array went through generic `append(contentsOf:)`
  /// calls, a metadata lookup each, and a capacity check per byte (callgrind: ~15,000 instructions
  /// a record on the batch writer thread, most of its own work).
  func jsonLine() -> Data {
    // The rare nested objects, as the general writer makes them.
    var layoutJSON: [UInt8] = []
    if let layout { layout.appendJSON(to: &layoutJSON) }
    var sampleJSON: [UInt8] = []
    if let sample { sample.appendJSON(to: &sampleJSON) }
    // Room: every key with its quotes, colon and comma (under 400 bytes), 20 bytes per number,
    // and each string escaped at worst (6 bytes a byte, "\u00XX").
    func room(_ value: String?) -> Int { value.map { 2 + 6 * $0.utf8.count } ?? 0 }
    let capacity =
      640 + layoutJSON.count + sampleJSON.count + room(boxes) + room(boxesSha256) + room(error) + room(file)
      + room(id) + room(input) + room(sha256) + room(tar) + room(text)
    var out = BoxesJSONWriter(capacity: capacity)
    out.byte(UInt8(ascii: "{"))
    var first = true
    func key(_ name: StaticString) {
      if !first { out.byte(UInt8(ascii: ",")) }
      first = false
      out.byte(UInt8(ascii: "\""))
      out.literal(name)
      out.literal("\":")
    }
    func int(_ name: StaticString, _ value: Int?) {
      guard let value else { return }
      key(name)
      out.integer(value)
    }
    func string(_ name: StaticString, _ value: String?) {
      guard let value else { return }
      key(name)
      out.quoted(value)
    }
    string("boxes", boxes)
    int("boxesBytes", boxesBytes)
    int("boxesOffset", boxesOffset)
    string("boxesSha256", boxesSha256)
    int("bytes", bytes)
    string("error", error)
    string("file", file)
    int("height", height)
    string("id", id)
    string("input", input)
    if layout != nil {
      key("layout")
      layoutJSON.withUnsafeBufferPointer { out.bytes($0) }
    }
    int("line", line)
    int("lines", lines)
    if let ms, ms.isFinite {
      key("ms")
      Self.appendMilliseconds(ms, to: &out)
    }
    int("offset", offset)
    if sample != nil {
      key("sample")
      sampleJSON.withUnsafeBufferPointer { out.bytes($0) }
    }
    string("sha256", sha256)
    string("tar", tar)
    string("text", text)
    int("unknownGlyphs", unknownGlyphs)
    int("width", width)
    out.literal("}\n")
    return out.finish()
  }

  /// `ms` as `"\(ms)"` writes it (the shortest digits that read back as the same `Double`). A whole
  /// number of microseconds under 10⁹ ms, what `BatchEngine.milliseconds` gives, is written from
  /// its integer: at most three decimals, trailing zeros dropped, at least one (`12.0`, `0.05`).
  /// Below 10⁹ two `Double`s a thousandth apart never round to one another, so no shorter string
  /// reads back as `ms`. Anything else (-0.0 too) goes through `description`.
  static func appendMilliseconds(_ ms: Double, to out: inout BoxesJSONWriter) {
    let thousandths = (ms * 1000).rounded()
    if ms.sign == .plus, ms < 1e9, Double(Int(thousandths)) / 1000 == ms {
      let value = Int(thousandths)
      out.integer(value / 1000)
      out.byte(UInt8(ascii: "."))
      var fraction = value % 1000
      if fraction == 0 {
        out.byte(UInt8(ascii: "0"))
        return
      }
      var digits = 3
      while fraction % 10 == 0 {
        fraction /= 10
        digits -= 1
      }
      var divisor = digits == 3 ? 100 : digits == 2 ? 10 : 1
      while divisor > 0 {
        out.byte(UInt8(ascii: "0") + UInt8(fraction / divisor % 10))
        divisor /= 10
      }
      return
    }
    var text = ms.description
    text.withUTF8 { out.bytes($0) }
  }

  /// `value` as a JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
  /// Text with nothing to escape (every record's label, nearly always) is checked over its bytes in
  /// place and copied in one step.
  static func appendQuoted(_ value: String, to out: inout [UInt8]) {
    var value = value
    value.withUTF8 { utf8 in
      out.append(UInt8(ascii: "\""))
      if !utf8.contains(where: { $0 < 0x20 || $0 == 0x7f || $0 == 0x22 || $0 == 0x5c }) {
        out.append(contentsOf: utf8)
      } else {
        appendEscaped(utf8, to: &out)
      }
      out.append(UInt8(ascii: "\""))
    }
  }

  /// `utf8` escaped byte by byte: the general path of `appendQuoted` (tests compare the two).
  static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
    for byte in utf8 {
      switch byte {
      case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
      case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
      case 0x0a: out.append(contentsOf: "\\n".utf8)
      case 0x0d: out.append(contentsOf: "\\r".utf8)
      case 0x09: out.append(contentsOf: "\\t".utf8)
      case 0..<0x20, 0x7f:
        let hex = Array("0123456789abcdef".utf8)
        out.append(contentsOf: "\\u00".utf8)
        out.append(hex[Int(byte >> 4)])
        out.append(hex[Int(byte & 0xf)])
      default: out.append(byte)
      }
    }
  }

  static func parse(_ line: Data) -> ManifestRecord? {
    try? JSONDecoder().decode(ManifestRecord.self, from: line)
  }
}
