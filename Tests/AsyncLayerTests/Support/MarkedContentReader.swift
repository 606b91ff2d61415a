import Foundation

@testable import AsyncLayer

/// Reads back what ``PDFContentMarker`` marked, independently of the marker's bookkeeping: each
/// marked content's text, decoded through the fonts' `/ToUnicode` maps (and cairo's `/ActualText`
/// spans), and a copy of the PDF with the marked streams put in (an incremental update) for
/// poppler and qpdf to read.
struct MarkedContentReader {
  let data: Data
  private let file: PDFCatalogUpdate.CrossReference
  /// Font resource name -> glyph code -> text.
  private(set) var toUnicode: [String: [Int: String]] = [:]
  let bytesPerGlyph: [String: Int]

  struct Failure: Error, CustomStringConvertible { let description: String }

  init(_ data: Data, bytesPerGlyph: [String: Int]) throws {
    self.data = data
    self.bytesPerGlyph = bytesPerGlyph
    file = try data.withUnsafeBytes { try PDFCatalogUpdate.CrossReference($0) }
    // Every font resource of every page: `/f-F-S N 0 R` lines of the resource dictionaries.
    let text = String(decoding: data, as: UTF8.self)
    let pattern = try NSRegularExpression(pattern: "\n +/(f-[0-9]+-[0-9]+) ([0-9]+) 0 R")
    for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
      guard let nameRange = Range(match.range(at: 1), in: text), let numberRange = Range(match.range(at: 2), in: text),
        let object = Int(text[numberRange])
      else { continue }
      let name = String(text[nameRange])
      if toUnicode[name] != nil { continue }
      let font = try dictionary(object)
      guard let map = font.range(of: "/ToUnicode ").flatMap({ Int(font[$0.upperBound...].prefix { $0 != " " }) })
      else { throw Failure(description: "font \(name) has no /ToUnicode") }
      toUnicode[name] = Self.parseCMap(String(decoding: try stream(map), as: UTF8.self))
    }
  }

  /// The body of object `number` up to `stream` or `endobj`.
  func dictionary(_ number: Int) throws -> String {
    let start = try data.withUnsafeBytes { bytes in
      guard let start = PDFCatalogUpdate.bodyStart(ofObject: number, at: file.offsets[number], in: bytes) else {
        throw Failure(description: "object \(number) not found")
      }
      return start
    }
    let rest = data[(data.startIndex + start)...].prefix(1 << 16)
    let text = String(decoding: rest, as: UTF8.self)
    let end =
      [text.range(of: "stream\n"), text.range(of: "endobj")].compactMap { $0?.lowerBound }.min() ?? text.endIndex
    return String(text[..<end])
  }

  /// The inflated stream of object `number`.
  func stream(_ number: Int) throws -> [UInt8] {
    let dictionary = try dictionary(number)
    guard let lengthKey = dictionary.range(of: "/Length ") else { throw Failure(description: "no /Length") }
    let words = dictionary[lengthKey.upperBound...].split(whereSeparator: { $0 == " " || $0 == "\n" })
    var length = Int(words[0]) ?? 0
    if words.count > 2, words[2].hasPrefix("R") {
      length = Int(try self.dictionary(Int(words[0])!).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
    let start = data.startIndex + file.offsets[number] + (try offsetOfStreamData(number))
    let bytes = Array(data[start..<(start + length)])
    guard dictionary.contains("/FlateDecode") else { return bytes }
    guard let inflated = bytes.withUnsafeBytes({ PDFPageContents.inflate($0) }) else {
      throw Failure(description: "object \(number) does not inflate")
    }
    return inflated
  }

  private func offsetOfStreamData(_ number: Int) throws -> Int {
    let rest = data[(data.startIndex + file.offsets[number])...].prefix(1 << 16)
    guard let found = rest.firstRange(of: Array("stream\n".utf8)) else { throw Failure(description: "no stream") }
    return found.upperBound - (data.startIndex + file.offsets[number])
  }

  /// `bfchar` and `bfrange` entries of a CMap as cairo writes them (destinations in UTF-16BE).
  static func parseCMap(_ text: String) -> [Int: String] {
    var map: [Int: String] = [:]
    func hexTokens(_ line: Substring) -> [String] {
      line.split(separator: "<").compactMap { $0.split(separator: ">").first.map(String.init) }
    }
    func utf16(_ hex: String) -> String {
      var units: [UInt16] = []
      var index = hex.startIndex
      while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 4, limitedBy: hex.endIndex) ?? hex.endIndex
        units.append(UInt16(hex[index..<next], radix: 16) ?? 0)
        index = next
      }
      return String(decoding: units, as: UTF16.self)
    }
    var section = ""
    for line in text.split(separator: "\n") {
      if line.hasSuffix("beginbfchar") { section = "char"; continue }
      if line.hasSuffix("beginbfrange") { section = "range"; continue }
      if line.hasPrefix("end") { section = ""; continue }
      let tokens = hexTokens(line)
      if section == "char", tokens.count == 2, let code = Int(tokens[0], radix: 16) {
        map[code] = utf16(tokens[1])
      } else if section == "range", tokens.count >= 3, let low = Int(tokens[0], radix: 16),
        let high = Int(tokens[1], radix: 16)
      {
        if line.contains("[") {
          for (offset, destination) in tokens.dropFirst(2).enumerated() { map[low + offset] = utf16(destination) }
        } else if var first = UInt32(tokens[2], radix: 16) {
          for code in low...high {
            map[code] = utf16(String(first, radix: 16))
            first += 1
          }
        }
      }
    }
    return map
  }

  /// The text of each marked content of `stream` with an MCID in `ids`, decoded.
  func texts(of stream: [UInt8], ids: Set<Int>) throws -> [Int: String] {
    var result: [Int: String] = [:]
    try stream.withUnsafeBytes { bytes in
      var lexer = PDFContentLexer(bytes)
      var operands: [PDFContentLexer.Token] = []
      // Open marked contents: our MCID or nil, and cairo's ActualText or nil.
      var open: [(id: Int?, actualText: String?)] = []
      var font = ""
      func add(_ text: String) {
        guard let index = open.lastIndex(where: { $0.id != nil }), let id = open[index].id else { return }
        result[id, default: ""] += text
      }
      while let token = try lexer.next() {
        guard token.kind == .keyword else {
          operands.append(token)
          continue
        }
        defer { operands.removeAll() }
        let word = String(decoding: bytes[token.range], as: UTF8.self)
        func operandText(_ index: Int) -> String { String(decoding: bytes[operands[index].range], as: UTF8.self) }
        switch word {
        case "Tf": font = String(operandText(0).dropFirst())
        case "BDC", "BMC":
          var id: Int?
          var actual: String?
          for index in operands.indices where index + 1 < operands.count {
            if operandText(index) == "/MCID", let value = Int(operandText(index + 1)), ids.contains(value) {
              id = value
            }
            if operandText(index) == "/ActualText" {
              let hex = lexer.decoded(operands[index + 1])
              var units: [UInt16] = []
              for pair in stride(from: 2, to: hex.count - 1, by: 2) {
                units.append(UInt16(hex[pair]) << 8 | UInt16(hex[pair + 1]))
              }
              actual = String(decoding: units, as: UTF16.self)
            }
          }
          open.append((id, actual))
        case "EMC":
          guard let last = open.popLast() else { throw Failure(description: "EMC without BDC") }
          if let actual = last.actualText, !open.contains(where: { $0.actualText != nil }) { add(actual) }
        case "Tj", "TJ", "'", "\"":
          if open.contains(where: { $0.actualText != nil }) { continue }
          let width = bytesPerGlyph[font] ?? 1
          for operand in operands where operand.kind == .literalString || operand.kind == .hexString {
            let codes = lexer.decoded(operand)
            for start in stride(from: 0, to: codes.count, by: width) {
              let code = width == 2 ? Int(codes[start]) << 8 | Int(codes[start + 1]) : Int(codes[start])
              add(toUnicode[font]?[code] ?? "\u{FFFD}")
            }
          }
        default: break
        }
      }
    }
    return result
  }

  /// The PDF with the content stream objects `streams` (object number -> uncompressed stream)
  /// replaced, as an incremental update.
  func replacing(_ streams: [Int: [UInt8]]) -> Data {
    var output = data
    var entries: [(number: Int, offset: Int)] = []
    for (number, stream) in streams.sorted(by: { $0.key < $1.key }) {
      entries.append((number, output.count))
      output.append(contentsOf: Array("\(number) 0 obj\n<< /Length \(stream.count) >>\nstream\n".utf8))
      output.append(contentsOf: stream)
      output.append(contentsOf: Array("\nendstream\nendobj\n".utf8))
    }
    let xref = output.count
    var table = "xref\n"
    for entry in entries {
      let offset = String(entry.offset)
      table += "\(entry.number) 1\n\(String(repeating: "0", count: 10 - offset.count) + offset) 00000 n \n"
    }
    table += "trailer\n<< /Size \(file.size) /Root \(file.root) 0 R"
    if let info = file.info { table += " /Info \(info) 0 R" }
    table += " /Prev \(file.start) >>\nstartxref\n\(xref)\n%%EOF\n"
    output.append(contentsOf: Array(table.utf8))
    return output
  }
}
