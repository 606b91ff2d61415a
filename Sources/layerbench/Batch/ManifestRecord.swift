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
  /// `JSONEncoder` with `.sortedKeys` writes it, at a fraction of the cost: bytes appended in place).
  func jsonLine() -> Data {
    var out: [UInt8] = []
    out.reserveCapacity(320)
    out.append(UInt8(ascii: "{"))
    func key(_ name: StaticString) {
      if out.count > 1 { out.append(UInt8(ascii: ",")) }
      out.append(UInt8(ascii: "\""))
      out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
      out.append(contentsOf: "\":".utf8)
    }
    func int(_ name: StaticString, _ value: Int?) {
      guard let value else { return }
      key(name)
      out.append(contentsOf: String(value).utf8)
    }
    func string(_ name: StaticString, _ value: String?) {
      guard let value else { return }
      key(name)
      Self.appendQuoted(value, to: &out)
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
    if let layout {
      key("layout")
      layout.appendJSON(to: &out)
    }
    int("line", line)
    int("lines", lines)
    if let ms, ms.isFinite {
      key("ms")
      out.append(contentsOf: "\(ms)".utf8)
    }
    int("offset", offset)
    if let sample {
      key("sample")
      sample.appendJSON(to: &out)
    }
    string("sha256", sha256)
    string("tar", tar)
    string("text", text)
    int("unknownGlyphs", unknownGlyphs)
    int("width", width)
    out.append(contentsOf: "}\n".utf8)
    return Data(out)
  }

  /// `value` as a JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
  /// Text with nothing to escape (every record's label, nearly always) is copied in one step.
  static func appendQuoted(_ value: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    if value.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7f && $0 != 0x22 && $0 != 0x5c }) {
      out.append(contentsOf: value.utf8)
      out.append(UInt8(ascii: "\""))
      return
    }
    for byte in value.utf8 {
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
    out.append(UInt8(ascii: "\""))
  }

  static func parse(_ line: Data) -> ManifestRecord? {
    try? JSONDecoder().decode(ManifestRecord.self, from: line)
  }
}
