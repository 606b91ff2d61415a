import Foundation

/// Adds what cairo 1.16 cannot write to a finished PDF's catalog (the document language, `/Lang`)
/// as an incremental update: the catalog object again, with the entry added, a cross-reference
/// section for it and a trailer pointing back at cairo's (`/Prev`). The original bytes stay as
/// they are, so every offset in them stays valid.
enum PDFCatalogUpdate {
  /// `data` with `/Lang` set to `language` in its catalog; nil when the file is not laid out as
  /// cairo writes it (a trailer with `/Size`, `/Root` and `/Info`, the catalog a plain dictionary).
  static func settingLanguage(_ language: String, in data: Data) -> Data? {
    let bytes = [UInt8](data)
    // The trailer is in the last kilobyte cairo writes; decode only that much as text.
    let tail = String(decoding: bytes.suffix(1024), as: UTF8.self)
    guard let trailerStart = tail.range(of: "trailer", options: .backwards),
      let startxref = tail.range(of: "startxref", options: .backwards),
      let size = number(after: "/Size", in: tail[trailerStart.upperBound...]),
      let root = number(after: "/Root", in: tail[trailerStart.upperBound...]),
      let previous = number(after: "", in: tail[startxref.upperBound...])
    else { return nil }
    let info = number(after: "/Info", in: tail[trailerStart.upperBound...])
    guard let catalog = dictionary(ofObject: root, in: bytes), catalog.hasSuffix(">>"), !catalog.contains("/Lang")
    else { return nil }

    let updated = catalog.dropLast(2) + "   /Lang \(pdfString(language))\n>>"
    var output = bytes
    if output.last != UInt8(ascii: "\n") { output.append(UInt8(ascii: "\n")) }
    let objectOffset = output.count
    output += Array("\(root) 0 obj\n\(updated)\nendobj\n".utf8)
    let xrefOffset = output.count
    let offsetField = String(objectOffset).leftPadded(to: 10)
    var trailer = "xref\n\(root) 1\n\(offsetField) 00000 n \ntrailer\n<< /Size \(size)\n   /Root \(root) 0 R\n"
    if let info { trailer += "   /Info \(info) 0 R\n" }
    trailer += "   /Prev \(previous)\n>>\nstartxref\n\(xrefOffset)\n%%EOF\n"
    output += Array(trailer.utf8)
    return Data(output)
  }

  /// The whole number after `key` (and spaces) in `text`.
  private static func number(after key: String, in text: Substring) -> Int? {
    guard let found = key.isEmpty ? text.startIndex..<text.startIndex : text.range(of: key) else { return nil }
    let rest = text[found.upperBound...].drop { $0 == " " || $0 == "\n" || $0 == "\r" }
    return Int(rest.prefix { $0.isASCII && $0.isNumber })
  }

  /// The dictionary text of object `number` (`N 0 obj\n<< … >>\nendobj`), as cairo writes it.
  private static func dictionary(ofObject number: Int, in bytes: [UInt8]) -> String? {
    let header = Array("\n\(number) 0 obj\n".utf8)
    var index = bytes.count - header.count
    while index >= 0 {
      if bytes[index] == header[0], bytes[index..<index + header.count].elementsEqual(header) { break }
      index -= 1
    }
    guard index >= 0 else { return nil }
    let start = index + header.count
    let end = Array("\nendobj".utf8)
    var cursor = start
    while cursor + end.count <= bytes.count {
      if bytes[cursor..<cursor + end.count].elementsEqual(end) {
        return String(decoding: bytes[start..<cursor], as: UTF8.self)
      }
      cursor += 1
    }
    return nil
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
