import AsyncLayer
import Foundation
import Testing

@testable import layerbench

/// The writer thread's encoders against their general forms: the manifest line written through a
/// pointer against the array-appending writer it replaced, the quoted-string fast path against
/// byte-by-byte escaping, milliseconds from their integer against `"\(ms)"`, and tar headers
/// checksummed from the template's sum against the bytes summed.
@Suite("Batch writer encoders")
struct BatchWriterEncodingTests {
  static let strings: [String] = [
    "", "plain", "a label with spaces, digits 0123 and punctuation!?", "quote\"d", "back\\slash", "slash/ed",
    "ctl\u{1}\u{1f}\u{7f}", "tab\t nl\n cr\r", "naïve café — 你好 👋", "\u{80}\u{9f}\u{a0}", "\"", "\\", "\n",
    String(repeating: "x", count: 5000), "mixed \u{0} \"é\" \\ 👋\u{7f}",
  ]

  @Test("appendQuoted's fast path gives the escaping path's bytes", arguments: strings)
  func quoted(value: String) throws {
    var fast: [UInt8] = []
    ManifestRecord.appendQuoted(value, to: &fast)
    var general: [UInt8] = [UInt8(ascii: "\"")]
    Array(value.utf8).withUnsafeBufferPointer { ManifestRecord.appendEscaped($0, to: &general) }
    general.append(UInt8(ascii: "\""))
    #expect(fast == general)
    // And it is JSON that reads back as the string.
    let decoded = try JSONDecoder().decode(String.self, from: Data(fast))
    #expect(decoded == value)
  }

  @Test("the pointer writer's quoted strings, eight bytes at a time, match appendQuoted's")
  func pointerQuoted() {
    var values = Self.strings
    for special in ["\"", "\\", "\n", "\u{1}", "\u{7f}", "é", "👋"] {
      for position in 0..<20 {
        values.append(String(repeating: "a", count: position) + special + String(repeating: "b", count: 19 - position))
      }
    }
    for value in values {
      var expected: [UInt8] = []
      ManifestRecord.appendQuoted(value, to: &expected)
      var out = BoxesJSONWriter(capacity: 2 + 6 * value.utf8.count)
      out.quoted(value)
      #expect(Array(out.finish()) == expected, "\(value)")
    }
  }

  @Test("needsEscape tells a word with a byte to escape, whichever byte and wherever it is")
  func wordCheck() {
    func escapes(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5c || byte == 0x7f }
    for byte in 0...255 {
      for position in 0..<8 {
        for filler: UInt8 in [0x61, 0xff, 0x80, 0x21, 0x7e] {
          var bytes = [UInt8](repeating: filler, count: 8)
          bytes[position] = UInt8(byte)
          let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
          #expect(BoxesJSONWriter.needsEscape(word) == bytes.contains(where: escapes), "\(bytes)")
        }
      }
    }
    var random = SystemRandomNumberGenerator()
    for _ in 0..<100_000 {
      let word: UInt64 = random.next()
      let bytes = withUnsafeBytes(of: word) { Array($0) }
      #expect(BoxesJSONWriter.needsEscape(word) == bytes.contains(where: escapes))
    }
  }

  /// The manifest line as the writer before the pointer writer made it (keys sorted, nil fields out).
  static func referenceLine(_ record: ManifestRecord) -> Data {
    var out: [UInt8] = [UInt8(ascii: "{")]
    func key(_ name: String) {
      if out.count > 1 { out.append(UInt8(ascii: ",")) }
      out.append(contentsOf: "\"\(name)\":".utf8)
    }
    func int(_ name: String, _ value: Int?) {
      guard let value else { return }
      key(name)
      out.append(contentsOf: String(value).utf8)
    }
    func string(_ name: String, _ value: String?) {
      guard let value else { return }
      key(name)
      out.append(UInt8(ascii: "\""))
      Array(value.utf8).withUnsafeBufferPointer { ManifestRecord.appendEscaped($0, to: &out) }
      out.append(UInt8(ascii: "\""))
    }
    string("boxes", record.boxes)
    int("boxesBytes", record.boxesBytes)
    int("boxesOffset", record.boxesOffset)
    string("boxesSha256", record.boxesSha256)
    int("bytes", record.bytes)
    string("error", record.error)
    string("file", record.file)
    int("height", record.height)
    string("id", record.id)
    string("input", record.input)
    if let layout = record.layout {
      key("layout")
      layout.appendJSON(to: &out)
    }
    int("line", record.line)
    int("lines", record.lines)
    if let ms = record.ms, ms.isFinite {
      key("ms")
      out.append(contentsOf: "\(ms)".utf8)
    }
    int("offset", record.offset)
    if let sample = record.sample {
      key("sample")
      sample.appendJSON(to: &out)
    }
    string("sha256", record.sha256)
    string("tar", record.tar)
    string("text", record.text)
    int("unknownGlyphs", record.unknownGlyphs)
    int("width", record.width)
    out.append(contentsOf: "}\n".utf8)
    return Data(out)
  }

  static var records: [ManifestRecord] {
    var full = ManifestRecord(line: 12)
    full.id = "t0000012"
    full.file = "t0000012.png"
    full.width = 750
    full.height = 240
    full.lines = 2
    full.unknownGlyphs = 0
    full.bytes = 19_876
    full.sha256 = String(repeating: "ab", count: 32)
    full.ms = 1.234
    full.input = "0123456789abcdef"
    full.text = "The quick brown fox jumps over the lazy dog"
    full.boxes = "t0000012.json"
    full.boxesBytes = 4321
    full.boxesSha256 = String(repeating: "cd", count: 32)
    full.tar = "shard-000000.tar"
    full.offset = 1536
    full.boxesOffset = 987_654_321
    var failed = ManifestRecord(line: -3)
    failed.error = "bad JSON: \"quoted\" \\ \u{1} \n naïve"
    failed.ms = 0
    var styled = full
    styled.text = "mixed \u{0} \"é\" \\ 👋\u{7f}"
    styled.ms = 12
    styled.sample = SampleRecord(font: "Sans \"Bold\"", size: 14.5, fg: "#112233", bg: nil, letterSpacing: 0.25)
    var tile = TextTile(.plain("x"), width: 100, height: 20)
    tile.transform.rotation = 5
    styled.layout = LayoutRecord(tile)
    var odd = ManifestRecord(line: Int.max)
    odd.ms = .infinity
    odd.width = Int.min
    odd.text = ""
    odd.id = ""
    return [ManifestRecord(line: 1), full, failed, styled, odd]
  }

  @Test("jsonLine gives the array writer's bytes")
  func manifestLine() throws {
    #expect(Self.records[3].layout != nil && Self.records[3].sample != nil)
    for record in Self.records {
      let line = record.jsonLine()
      #expect(line == Self.referenceLine(record), "\(String(decoding: line, as: UTF8.self))")
    }
  }

  /// `appendMilliseconds` alone, as a string.
  static func milliseconds(_ ms: Double) -> String {
    var out = BoxesJSONWriter(capacity: 64)
    ManifestRecord.appendMilliseconds(ms, to: &out)
    return String(decoding: out.finish(), as: UTF8.self)
  }

  @Test("milliseconds from their integer are written as \"\\(ms)\" writes them")
  func millisecondsText() {
    var mismatches: [String] = []
    func check(_ ms: Double) {
      if Self.milliseconds(ms) != "\(ms)" { mismatches.append("\(ms) as \(Self.milliseconds(ms))") }
    }
    for thousandths in 0..<300_000 { check(Double(thousandths) / 1000) }
    var random = SystemRandomNumberGenerator()
    for _ in 0..<100_000 {
      check(BatchEngine.milliseconds(random.next() % 10_000_000_000_000_000))
      check(BatchEngine.milliseconds(random.next() % 1_000_000_000_000))
    }
    for ms in [
      1e9, 1e9 - 0.001, 999_999_999.999, 1e12, 0.1 + 0.2, 1e-7, 0.0005, -1.5, -0.0, 123.4567, .ulpOfOne,
      Double(Int64.max), .leastNonzeroMagnitude,
    ] {
      check(ms)
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
  }

  @Test("tar headers: checksum from the template's sum equals the header's bytes summed")
  func tarHeaders() throws {
    let names = [
      "a.png", "t0000012.txt", String(repeating: "n", count: 100), String(repeating: "n", count: 101), "naïve.txt",
      "",
    ]
    let sizes = [0, 1, 511, 512, 123_456_789, TarArchive.largestUstarSize, TarArchive.largestUstarSize + 1]
    for name in names {
      for size in sizes {
        var out: [UInt8] = []
        TarArchive.appendHeader(name: name, size: size, to: &out)
        #expect(out.count == TarArchive.headerLength(name: name, size: size))
        #expect(out.count % TarArchive.blockSize == 0)
        // Every header in it (a pax header, its records, the member's header): a valid checksum.
        var offset = 0
        while offset < out.count {
          let header = Array(out[offset..<(offset + TarArchive.blockSize)])
          var sum = 0
          for (index, byte) in header.enumerated() { sum += (148..<156).contains(index) ? 0x20 : Int(byte) }
          let stored = Int(String(decoding: header[148..<154], as: UTF8.self), radix: 8)
          #expect(stored == sum, "\(name) \(size)")
          let sizeField = try #require(Int(String(decoding: header[124..<135], as: UTF8.self), radix: 8))
          if header[156] == UInt8(ascii: "0") {
            let nameBytes = Array(name.utf8)
            if nameBytes.count <= 100, !nameBytes.contains(where: { $0 >= 0x80 }) {
              #expect(Array(header[0..<nameBytes.count]) == nameBytes)
              #expect(header[nameBytes.count..<100].allSatisfy { $0 == 0 })
            }
            #expect(sizeField == (size > TarArchive.largestUstarSize ? 0 : size))
          }
          offset += TarArchive.blockSize
          if header[156] == UInt8(ascii: "x") {
            offset += (sizeField + TarArchive.blockSize - 1) / TarArchive.blockSize * TarArchive.blockSize
          }
        }
      }
    }
  }
}
