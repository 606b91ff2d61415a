import Foundation

/// Adds what cairo 1.16 cannot write to a finished PDF as an incremental update: the document
/// language (`/Lang` in the catalog), the alternate description of each `Figure` structure element
/// (`/Alt`) and the scope of each table header cell (`TH` gets `/A << /O /Table /Scope /Column >>`).
///
/// cairo takes no attributes on structure elements (`cairo_tag_begin` reads `name`, `dest`, `uri`,
/// `page`, `pos` and `rect` for links and destinations only), so these go in after it finishes. The
/// update is each changed object again, with the entries added, a cross-reference section for them
/// and a trailer pointing back at cairo's (`/Prev`). The original bytes stay as they are, so every
/// offset in them stays valid.
///
/// Objects are found through cairo's own cross-reference table, not by searching the file: each
/// entry's offset must start `N 0 obj`, and a structure element is an object whose dictionary
/// begins `<< /Type /StructElem\n   /S /Name` as cairo 1.16 writes it. cairo writes the structure
/// tree depth first in the order the tags were opened, so the Figure elements come in the order
/// the figures were drawn.
enum PDFCatalogUpdate {
  /// What to add.
  struct Additions {
    /// The catalog's `/Lang`, or nil.
    var language: String?
    /// The `/Alt` of each Figure element in drawing order (nil: that figure has none). When
    /// non-empty, the PDF must hold exactly this many Figure elements.
    var figureAlternativeTexts: [String?] = []
    /// Whether every TH element gets `/Scope /Column` (header rows head the columns below them).
    var columnHeaderScope = false
    /// Whether the structure elements go into compressed object streams (a tagged PDF): cairo
    /// writes each one as a plain object, some 90 bytes and a 20-byte cross-reference entry per
    /// table cell.
    var packsStructure = false

    var isEmpty: Bool {
      (language ?? "").isEmpty && !figureAlternativeTexts.contains { $0 != nil } && !columnHeaderScope
    }
  }

  /// Whether `bytes` holds `pattern` from `offset`; false when that runs past either end. One
  /// `memcmp`: `elementsEqual` on a slice of the file went through the generic sequence path, 18 M
  /// instructions over the tagged 2,000-row table's 13,000 objects.
  static func matches(_ bytes: UnsafeRawBufferPointer, at offset: Int, _ pattern: [UInt8]) -> Bool {
    guard offset >= 0, offset <= bytes.count - pattern.count else { return false }
    guard let base = bytes.baseAddress, !pattern.isEmpty else { return true }
    return pattern.withUnsafeBytes { memcmp(base + offset, $0.baseAddress!, pattern.count) == 0 }
  }

  /// Why an update could not be made: the file is not laid out as cairo writes it.
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// `data` with `additions` made; `data` itself when there is nothing to add.
  ///
  /// With `packsStructure` (a tagged PDF) the file is written again instead of updated, with the
  /// structure tree compressed (``packing(_:replacing:in:)``); a file that cannot be packed gets
  /// the incremental update.
  static func applying(_ additions: Additions, to data: Data) throws(Failure) -> Data {
    if additions.isEmpty && !additions.packsStructure { return data }
    let result: Result<Data, Failure> = data.withUnsafeBytes { bytes in
      do throws(Failure) {
        return .success(try applying(additions, to: bytes, original: data))
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  private static func applying(_ additions: Additions, to bytes: UnsafeRawBufferPointer, original data: Data)
    throws(Failure) -> Data
  {
    let file = try CrossReference(bytes)
    let (size, root, offsets) = (file.size, file.root, file.offsets)

    var replaced: [(number: Int, dictionary: String)] = []
    if let language = additions.language, !language.isEmpty {
      guard let catalog = dictionary(ofObject: root, at: offsets[root], in: bytes), !catalog.contains("/Lang") else {
        throw Failure(description: "the PDF's catalog was not found")
      }
      replaced.append((root, String(catalog.dropLast(2)) + "   /Lang \(pdfString(language))\n>>"))
    }
    if additions.figureAlternativeTexts.contains(where: { $0 != nil }) || additions.columnHeaderScope {
      var figures: [Int] = []
      for number in 1..<offsets.count {
        switch structureType(ofObject: number, at: offsets[number], in: bytes) {
        case "Figure"?: figures.append(number)
        case "TH"? where additions.columnHeaderScope:
          guard let element = dictionary(ofObject: number, at: offsets[number], in: bytes) else { continue }
          replaced.append((number, String(element.dropLast(2)) + "   /A << /O /Table /Scope /Column >>\n>>"))
        default: break
        }
      }
      let texts = additions.figureAlternativeTexts
      if texts.contains(where: { $0 != nil }) {
        guard figures.count == texts.count else {
          throw Failure(description: "\(figures.count) Figure elements in the PDF for \(texts.count) figures drawn")
        }
        for (number, text) in zip(figures, texts) {
          guard let text, let element = dictionary(ofObject: number, at: offsets[number], in: bytes) else { continue }
          replaced.append((number, String(element.dropLast(2)) + "   /Alt \(pdfString(text))\n>>"))
        }
      }
    }
    if additions.packsStructure, let packed = packing(file, replacing: replaced, in: bytes) { return packed }
    if replaced.isEmpty { return data }
    replaced.sort { $0.number < $1.number }

    var output = data
    if bytes.last != UInt8(ascii: "\n") { output.append(UInt8(ascii: "\n")) }
    var xref = "xref\n"
    for (number, dictionary) in replaced {
      xref += "\(number) 1\n\(String(output.count).leftPadded(to: 10)) 00000 n \n"
      output.append(contentsOf: Array("\(number) 0 obj\n\(dictionary)\nendobj\n".utf8))
    }
    let xrefOffset = output.count
    var trailer = xref + "trailer\n<< /Size \(size)\n   /Root \(root) 0 R\n"
    if let info = file.info { trailer += "   /Info \(info) 0 R\n" }
    trailer += "   /Prev \(file.start)\n>>\nstartxref\n\(xrefOffset)\n%%EOF\n"
    output.append(contentsOf: Array(trailer.utf8))
    return output
  }

  /// What cairo's trailer and cross-reference table say: the object count, the catalog, the
  /// document information, the table's offset and each object's offset.
  struct CrossReference {
    let size: Int
    let root: Int
    let info: Int?
    /// The offset of the `xref` line.
    let start: Int
    /// Object number -> offset of its `N 0 obj` line (0 for entry 0, the free list head).
    let offsets: [Int]

    init(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
      // The trailer is in the last kilobyte cairo writes; decode only that much as text.
      let tail = String(decoding: bytes[max(0, bytes.count - 1024)...], as: UTF8.self)
      guard let trailerStart = tail.range(of: "trailer", options: .backwards),
        let startxref = tail.range(of: "startxref", options: .backwards),
        let size = number(after: "/Size", in: tail[trailerStart.upperBound...]),
        let root = number(after: "/Root", in: tail[trailerStart.upperBound...]),
        let start = number(after: "", in: tail[startxref.upperBound...])
      else { throw Failure(description: "the PDF has no trailer as cairo writes it") }
      let offsets = try crossReference(at: start, in: bytes)
      guard offsets.count == size, root > 0, root < size else {
        throw Failure(description: "the cross-reference table does not cover /Size")
      }
      self.size = size
      self.root = root
      self.info = number(after: "/Info", in: tail[trailerStart.upperBound...])
      self.start = start
      self.offsets = offsets
    }
  }

  /// The object offsets of the cross-reference table at `offset` (cairo writes one section,
  /// `xref\n0 N\n`, of 20-byte entries); entry 0 (the free list head) is 0.
  private static func crossReference(at offset: Int, in bytes: UnsafeRawBufferPointer) throws(Failure) -> [Int] {
    let header = Array("xref\n0 ".utf8)
    guard offset >= 0, offset + header.count < bytes.count, matches(bytes, at: offset, header)
    else { throw Failure(description: "startxref does not point at a cross-reference table") }
    var cursor = offset + header.count
    var count = 0
    while cursor < bytes.count, let digit = digitValue(bytes[cursor]), count < 100_000_000 {
      count = count * 10 + digit
      cursor += 1
    }
    guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "\n"), count > 0,
      cursor + 1 + count * 20 <= bytes.count
    else { throw Failure(description: "the cross-reference table is not one section of 20-byte entries") }
    cursor += 1
    var offsets = [Int](repeating: 0, count: count)
    for index in 0..<count {
      let entry = cursor + index * 20
      var value = 0
      for position in entry..<entry + 10 {
        guard let digit = digitValue(bytes[position]) else {
          throw Failure(description: "cross-reference entry \(index) is malformed")
        }
        value = value * 10 + digit
      }
      offsets[index] = index == 0 ? 0 : value
    }
    return offsets
  }

  static func digitValue(_ byte: UInt8) -> Int? {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
  }

  /// The index just past `N 0 obj\n` at `offset`, or nil when object `number` does not start there.
  /// (Read digit by digit: this runs for every object, about 24,000 in a tagged 2,000-row table.)
  static func bodyStart(ofObject number: Int, at offset: Int, in bytes: UnsafeRawBufferPointer) -> Int? {
    guard offset > 0, offset < bytes.count else { return nil }
    var cursor = offset
    var value = 0
    while cursor < bytes.count, cursor - offset < 12, let digit = digitValue(bytes[cursor]) {
      value = value * 10 + digit
      cursor += 1
    }
    let rest = objectHeaderRest
    guard cursor > offset, value == number, cursor + rest.count <= bytes.count,
      matches(bytes, at: cursor, rest)
    else { return nil }
    return cursor + rest.count
  }

  private static let objectHeaderRest = Array(" 0 obj\n".utf8)

  private static let structElement = Array("<< /Type /StructElem\n   /S /".utf8)

  /// The structure type (`Figure`, `TH`, …) of object `number` when it is a structure element.
  private static func structureType(ofObject number: Int, at offset: Int, in bytes: UnsafeRawBufferPointer)
    -> Substring?
  {
    guard let start = bodyStart(ofObject: number, at: offset, in: bytes) else { return nil }
    let prefix = structElement
    guard start + prefix.count < bytes.count, matches(bytes, at: start, prefix) else {
      return nil
    }
    let nameStart = start + prefix.count
    var nameEnd = nameStart
    while nameEnd < bytes.count, nameEnd - nameStart < 32, bytes[nameEnd] != UInt8(ascii: "\n") { nameEnd += 1 }
    return Substring(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
  }

  /// The dictionary text of object `number` (`N 0 obj\n<< … >>\nendobj`), as cairo writes it.
  static func dictionary(ofObject number: Int, at offset: Int, in bytes: UnsafeRawBufferPointer) -> String? {
    guard let start = bodyStart(ofObject: number, at: offset, in: bytes) else { return nil }
    let end = Array("\nendobj".utf8)
    var cursor = start
    while cursor + end.count <= bytes.count {
      if bytes[cursor] == end[0], matches(bytes, at: cursor, end) {
        let text = String(decoding: bytes[start..<cursor], as: UTF8.self)
        return text.hasPrefix("<<") && text.hasSuffix(">>") ? text : nil
      }
      cursor += 1
    }
    return nil
  }

  /// The whole number after `key` (and spaces) in `text`.
  private static func number(after key: String, in text: Substring) -> Int? {
    guard let found = key.isEmpty ? text.startIndex..<text.startIndex : text.range(of: key) else { return nil }
    let rest = text[found.upperBound...].drop { $0 == " " || $0 == "\n" || $0 == "\r" }
    return Int(rest.prefix { $0.isASCII && $0.isNumber })
  }

  /// `text` as a PDF text string: literal for a plain language tag, else UTF-16BE in hex.
  static func pdfString(_ text: String) -> String {
    if !text.isEmpty,
      text.utf8.allSatisfy({
        $0 < 0x80
          && (Character(UnicodeScalar($0)).isLetter || Character(UnicodeScalar($0)).isNumber || $0 == UInt8(ascii: "-"))
      })
    {
      return "(\(text))"
    }
    let units = [0xFEFF] + Array(text.utf16)
    return "<" + units.map { String($0, radix: 16, uppercase: true).leftPadded(to: 4) }.joined() + ">"
  }
}

extension String {
  /// The string with zeros in front up to `width` characters.
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
