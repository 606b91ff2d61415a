internal import CCairo
import Foundation

/// The pages of a PDF as cairo 1.16 writes it, read for ``PDFContentMarker``: each page's content
/// stream object and its inflated bytes, in page order (the page tree's `/Kids`), and the bytes
/// per glyph code of every font the pages use (`/f-F-S` names are the document's, not a page's).
///
/// Objects are found through cairo's cross-reference table (``PDFCatalogUpdate/CrossReference``),
/// dictionaries read as cairo prints them (`/Contents N 0 R`, `/Length N 0 R`, one `/Font <<…>>`
/// per resource dictionary). Anything else is a ``PDFCatalogUpdate/Failure``.
struct PDFPageContents {
  struct Page {
    /// The content stream's object number.
    let contentObject: Int
    /// The inflated content stream.
    let stream: [UInt8]
    /// The page object's number.
    var pageObject = 0
    /// The page's `/StructParents` key (cairo writes one on every page of a PDF with a structure
    /// tree, tagged or not), nil when it has none.
    var structParents: Int?
    /// The page's link annotations in `/Annots` order, each with its `/StructParent` key.
    var annotations: [(object: Int, structParent: Int?)] = []
  }

  let pages: [Page]
  /// Font resource name (without the slash) -> bytes per glyph code: 2 for a `Type0` font, else 1.
  let bytesPerGlyph: [String: Int]

  init(_ data: Data) throws(PDFCatalogUpdate.Failure) {
    let read: Result<([Page], [String: Int]), PDFCatalogUpdate.Failure> = data.withUnsafeBytes { bytes in
      do throws(PDFCatalogUpdate.Failure) {
        return .success(try Self.read(bytes))
      } catch {
        return .failure(error)
      }
    }
    (pages, bytesPerGlyph) = try read.get()
  }

  private static func read(_ bytes: UnsafeRawBufferPointer) throws(PDFCatalogUpdate.Failure) -> ([Page], [String: Int])
  {
    let file = try PDFCatalogUpdate.CrossReference(bytes)
    func failure(_ text: String) -> PDFCatalogUpdate.Failure { PDFCatalogUpdate.Failure(description: text) }
    func body(_ number: Int) throws(PDFCatalogUpdate.Failure) -> (start: Int, text: Substring) {
      guard number > 0, number < file.offsets.count,
        let start = PDFCatalogUpdate.bodyStart(ofObject: number, at: file.offsets[number], in: bytes)
      else { throw failure("object \(number) is not where the cross-reference table says") }
      // The dictionary, up to `stream` or `endobj`: a few hundred bytes as cairo writes them.
      var end = start
      while end < bytes.count, end - start < 1 << 16 {
        if bytes[end] == UInt8(ascii: "e"), PDFCatalogUpdate.matches(bytes, at: end, Self.endobj) { break }
        if bytes[end] == UInt8(ascii: "s"), PDFCatalogUpdate.matches(bytes, at: end, Self.streamKeyword) { break }
        end += 1
      }
      return (start, Substring(decoding: bytes[start..<end], as: UTF8.self))
    }
    guard let kids = references(after: "/Kids [", in: try body(pagesRoot(file, bytes)).text) else {
      throw failure("the page tree has no /Kids")
    }
    var pages: [Page] = []
    var fonts: [String: Int] = [:]
    var resourcesRead: Set<Int> = []
    for kid in kids {
      let page = try body(kid).text
      guard page.hasPrefix("<< /Type /Page"), let contents = references(after: "/Contents", in: page)?.first else {
        throw failure("object \(kid) is not a page with one content stream")
      }
      if let resources = references(after: "/Resources", in: page)?.first, resourcesRead.insert(resources).inserted {
        let dictionary = try body(resources).text
        if let fontStart = find("/Font <<", in: dictionary) {
          let fontText = dictionary[fontStart.upperBound...].prefix { $0 != ">" }
          for entry in fontText.split(whereSeparator: { $0 == "\n" }) {
            let words = entry.split(separator: " ")
            guard words.count == 4, words[0].hasPrefix("/"), let object = Int(words[1]) else { continue }
            let font = try body(object).text
            fonts[String(words[0].dropFirst())] = find("/Subtype /Type0", in: font) != nil ? 2 : 1
          }
        }
      }
      let (start, dictionary) = try body(contents)
      guard let lengthObject = references(after: "/Length", in: dictionary)?.first,
        let length = Int(try body(lengthObject).text.split(whereSeparator: { $0 == " " || $0 == "\n" }).first ?? ""),
        find("/FlateDecode", in: dictionary) != nil
      else { throw failure("content stream \(contents) is not as cairo writes it") }
      let dataStart = start + dictionary.utf8.count + Self.streamKeyword.count
      guard dataStart + length <= bytes.count else { throw failure("content stream \(contents) runs past the end") }
      guard let stream = inflate(UnsafeRawBufferPointer(rebasing: bytes[dataStart..<(dataStart + length)])) else {
        throw failure("content stream \(contents) does not inflate")
      }
      var read = Page(contentObject: contents, stream: stream)
      read.pageObject = kid
      read.structParents = number(after: "/StructParents ", in: page)
      for annotation in references(after: "/Annots [", in: page) ?? [] {
        read.annotations.append((annotation, number(after: "/StructParent ", in: try body(annotation).text)))
      }
      pages.append(read)
    }
    return (pages, fonts)
  }

  private static let endobj = Array("endobj".utf8)
  private static let streamKeyword = Array("stream\n".utf8)

  /// The catalog's `/Pages` object.
  private static func pagesRoot(_ file: PDFCatalogUpdate.CrossReference, _ bytes: UnsafeRawBufferPointer)
    throws(PDFCatalogUpdate.Failure) -> Int
  {
    guard let start = PDFCatalogUpdate.bodyStart(ofObject: file.root, at: file.offsets[file.root], in: bytes) else {
      throw PDFCatalogUpdate.Failure(description: "the catalog was not found")
    }
    let text = Substring(decoding: bytes[start..<min(bytes.count, start + 512)], as: UTF8.self)
    guard let pages = references(after: "/Pages", in: text)?.first else {
      throw PDFCatalogUpdate.Failure(description: "the catalog has no /Pages")
    }
    return pages
  }

  /// The object numbers of the `N 0 R` references right after `key` (up to a `]` or a line end).
  private static func references(after key: StaticString, in text: Substring) -> [Int]? {
    guard let found = find(key, in: text) else { return nil }
    let rest = text[found.upperBound...].prefix { $0 != "]" && $0 != "\n" }
    let words = rest.split(separator: " ")
    var numbers: [Int] = []
    var index = 0
    while index + 2 < words.count, words[index + 2] == "R" {
      guard let number = Int(words[index]) else { return nil }
      numbers.append(number)
      index += 3
    }
    return numbers.isEmpty ? nil : numbers
  }

  /// The whole number after `key` in `text`.
  private static func number(after key: StaticString, in text: Substring) -> Int? {
    guard let found = find(key, in: text) else { return nil }
    return Int(text[found.upperBound...].prefix { $0.isASCII && $0.isNumber })
  }

  /// Where `key` is in `text`, compared byte by byte: Foundation's `range(of:)` took some 67,000
  /// instructions a call on these few-hundred-byte dictionaries (11 M for a 56-page table).
  private static func find(_ key: StaticString, in text: Substring) -> Range<Substring.Index>? {
    let pattern = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
    let utf8 = text.utf8
    var index = utf8.startIndex
    while index != utf8.endIndex {
      if utf8[index] == pattern[0], utf8[index...].starts(with: pattern) {
        return index..<utf8.index(index, offsetBy: pattern.count)
      }
      utf8.formIndex(after: &index)
    }
    return nil
  }

  /// A zlib stream inflated (libdeflate, the output buffer grown until it fits). cairo's content
  /// streams deflate text some 8–12 times, so the first guess is 16 times the input.
  static func inflate(_ input: UnsafeRawBufferPointer) -> [UInt8]? {
    guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
    defer { libdeflate_free_decompressor(decompressor) }
    var capacity = max(4096, input.count * 16)
    while capacity <= 1 << 31 {
      var result = LIBDEFLATE_SUCCESS
      let output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
        var written = 0
        result = libdeflate_zlib_decompress(
          decompressor, input.baseAddress, input.count, buffer.baseAddress, capacity, &written)
        count = result == LIBDEFLATE_SUCCESS ? written : 0
      }
      switch result {
      case LIBDEFLATE_SUCCESS: return output
      case LIBDEFLATE_INSUFFICIENT_SPACE: capacity *= 4
      default: return nil
      }
    }
    return nil
  }
}
