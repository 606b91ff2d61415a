import Foundation

extension PDFCatalogUpdate {
  /// An untagged PDF of cairo's with our marked content streams and our structure tree
  /// (issue 29, goal 6): each page's content stream replaced by its marked one (deflated at level
  /// 1), the elements, the structure tree root and the parent tree printed into object streams
  /// (numbered from cairo's `/Size` on), and the catalog pointed at the new root with
  /// `/MarkInfo << /Marked true >>` and `/Lang`. Everything else is copied as cairo wrote it.
  ///
  /// The parent tree keeps cairo's keys: a page with links in cairo's untagged file (which has a
  /// small structure tree, a `NonStruct` root holding the links) has `/StructParents`, and each
  /// link annotation a `/StructParent`; our parent tree maps those keys, so annotations and those
  /// pages are not written again. The other pages get new keys after cairo's. cairo's own small
  /// tree (the `NonStruct` root, its `Link` and `Figure` elements, its parent tree) is left out:
  /// its objects' cross-reference entries are free.
  static func replacingStructure(
    in data: Data, contents: PDFPageContents, streams: [[UInt8]], tree: PDFStructureTree, language: String?
  ) throws(Failure) -> Data {
    guard streams.count == contents.pages.count, tree.markedContents.count == contents.pages.count else {
      throw Failure(description: "\(streams.count) marked streams for \(contents.pages.count) pages")
    }
    let result: Result<Data, Failure> = data.withUnsafeBytes { bytes in
      do throws(Failure) {
        return .success(try replacingStructure(in: bytes, contents: contents, streams: streams, tree: tree, language))
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  private static func replacingStructure(
    in bytes: UnsafeRawBufferPointer, contents: PDFPageContents, streams: [[UInt8]], tree: PDFStructureTree,
    _ language: String?
  ) throws(Failure) -> Data {
    let file = try CrossReference(bytes)
    let base = file.offsets.count
    let rootNumber = base + tree.elements.count
    let parentTreeNumber = rootNumber + 1

    // The parent tree: each page's /StructParents key → its MCIDs' elements, each annotation's
    // /StructParent key → its Link element.
    // A page without links has no /StructParents from cairo: it gets a key after all of cairo's,
    // and its dictionary is written again with it.
    var nextKey = 0
    for page in contents.pages {
      nextKey = max(nextKey, (page.structParents ?? -1) + 1)
      for annotation in page.annotations { nextKey = max(nextKey, (annotation.structParent ?? -1) + 1) }
    }
    var replaced: [(number: Int, dictionary: String)] = []
    var keys: [(key: Int, page: Int, annotation: Int)] = []
    for (index, page) in contents.pages.enumerated() {
      if let key = page.structParents {
        keys.append((key, index, -1))
      } else {
        guard let dictionary = dictionary(ofObject: page.pageObject, at: file.offsets[page.pageObject], in: bytes),
          dictionary.hasSuffix("\n>>")
        else { throw Failure(description: "page \(index + 1) is not a dictionary as cairo writes it") }
        replaced.append((page.pageObject, String(dictionary.dropLast(2)) + "   /StructParents \(nextKey)\n>>"))
        keys.append((nextKey, index, -1))
        nextKey += 1
      }
      for (position, annotation) in page.annotations.enumerated() {
        guard let key = annotation.structParent else {
          throw Failure(description: "annotation \(annotation.object) has no /StructParent")
        }
        keys.append((key, index, position))
      }
    }
    keys.sort { $0.key < $1.key }
    for index in keys.indices.dropFirst() where keys[index].key == keys[index - 1].key {
      throw Failure(description: "parent tree key \(keys[index].key) is used twice")
    }

    // Every new object printed into one buffer (12,500 elements for a 2,000-row table).
    var objects = AppendedObjects()
    objects.bytes.reserveCapacity(tree.elements.count * 72 + 64 * contents.pages.count + 4096)
    objects.ends.reserveCapacity(tree.elements.count + 2)
    // Looked up once: a `Page` holds its inflated stream, which each copy would retain.
    let pageObjects = contents.pages.map(\.pageObject)
    let annotationObjects = contents.pages.map { $0.annotations.map(\.object) }
    for element in tree.elements {
      printElement(
        element, pageObjects: pageObjects, annotationObjects: annotationObjects, base: base, root: rootNumber,
        into: &objects.bytes)
      objects.endObject()
    }
    objects.bytes.append(contentsOf: "<< /Type /StructTreeRoot\n   /K [ ".utf8)
    reference(base, into: &objects.bytes)
    objects.bytes.append(contentsOf: " ]\n   /ParentTree ".utf8)
    reference(parentTreeNumber, into: &objects.bytes)
    objects.bytes.append(contentsOf: "\n   /ParentTreeNextKey ".utf8)
    appendDecimal((keys.last?.key ?? -1) + 1, to: &objects.bytes)
    objects.bytes.append(contentsOf: "\n>>".utf8)
    objects.endObject()
    objects.bytes.append(contentsOf: "<< /Nums [\n".utf8)
    for entry in keys {
      appendDecimal(entry.key, to: &objects.bytes)
      objects.bytes.append(UInt8(ascii: " "))
      if entry.annotation >= 0 {
        reference(base + tree.annotations[entry.page][entry.annotation], into: &objects.bytes)
      } else {
        objects.bytes.append(UInt8(ascii: "["))
        for owner in tree.markedContents[entry.page] {
          objects.bytes.append(UInt8(ascii: " "))
          if let owner {
            reference(base + owner, into: &objects.bytes)
          } else {
            objects.bytes.append(contentsOf: "null".utf8)
          }
        }
        objects.bytes.append(contentsOf: " ]".utf8)
      }
      objects.bytes.append(UInt8(ascii: "\n"))
    }
    objects.bytes.append(contentsOf: "]\n>>".utf8)
    objects.endObject()

    // The catalog, pointed at our root, marked, with the language.
    guard var catalog = dictionary(ofObject: file.root, at: file.offsets[file.root], in: bytes),
      catalog.hasSuffix(">>"), !catalog.contains("/MarkInfo"), !catalog.contains("/Lang")
    else { throw Failure(description: "the PDF's catalog is not as cairo writes it") }
    var lines = catalog.dropLast(2).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    lines.removeAll { $0.hasPrefix("   /StructTreeRoot ") }
    catalog = lines.joined(separator: "\n")
    catalog += "   /StructTreeRoot \(rootNumber) 0 R\n   /MarkInfo << /Marked true >>\n"
    if let language, !language.isEmpty { catalog += "   /Lang \(pdfString(language))\n" }
    catalog += ">>"

    // The marked content streams, deflated as cairo's were.
    guard let compressor = try? DeflateCompressor(level: packingLevel) else {
      throw Failure(description: "no deflate compressor")
    }
    var replacedBodies: [Int: [UInt8]] = [:]
    for (page, stream) in zip(contents.pages, streams) {
      guard let compressed = zlibCompressed(stream, with: compressor) else {
        throw Failure(description: "content stream \(page.contentObject) does not deflate")
      }
      var streamBody = Array("<< /Length \(compressed.count)\n   /Filter /FlateDecode\n>>\nstream\n".utf8)
      streamBody.append(contentsOf: compressed)
      streamBody.append(contentsOf: "\nendstream".utf8)
      replacedBodies[page.contentObject] = streamBody
    }
    guard
      let written = packing(
        file, replacing: replaced + [(file.root, catalog)], bodies: replacedBodies, appended: objects,
        dropsStructure: true, in: bytes)
    else { throw Failure(description: "the PDF could not be written again with object streams") }
    return written
  }

  /// One structure element's dictionary, without the spaces and line breaks cairo prints (half
  /// the bytes to copy and deflate: about 40 bytes for a table cell).
  private static func printElement(
    _ element: PDFStructureTree.Element, pageObjects: [Int], annotationObjects: [[Int]], base: Int, root: Int,
    into body: inout [UInt8]
  ) {
    body.append(contentsOf: "<</Type/StructElem/S/".utf8)
    body.append(contentsOf: UnsafeBufferPointer(start: element.type.utf8Start, count: element.type.utf8CodeUnitCount))
    body.append(contentsOf: "/P ".utf8)
    reference(element.parent < 0 ? root : base + element.parent, into: &body)
    if element.page >= 0 {
      body.append(contentsOf: "/Pg ".utf8)
      reference(pageObjects[element.page], into: &body)
    }
    if element.type.utf8CodeUnitCount == 2, element.type.utf8Start[0] == UInt8(ascii: "T"),
      element.type.utf8Start[1] == UInt8(ascii: "H")
    {
      body.append(contentsOf: "/A<</O/Table/Scope/Column>>".utf8)
    }
    if let text = element.alternativeText {
      body.append(contentsOf: "/Alt\(pdfString(text))".utf8)
    }
    if !element.kids.isEmpty {
      body.append(contentsOf: "/K ".utf8)
      if element.kids.count == 1, case .markedContent(let id) = element.kids[0] {
        appendDecimal(id, to: &body)
      } else {
        body.append(UInt8(ascii: "["))
        for kid in element.kids {
          body.append(UInt8(ascii: " "))
          switch kid {
          case .element(let index): reference(base + index, into: &body)
          case .markedContent(let id): appendDecimal(id, to: &body)
          case .annotation(let index):
            body.append(contentsOf: "<< /Type /OBJR /Obj ".utf8)
            reference(annotationObjects[element.page][index], into: &body)
            body.append(contentsOf: " >>".utf8)
          }
        }
        body.append(contentsOf: " ]".utf8)
      }
    }
    body.append(contentsOf: ">>".utf8)
  }

  private static func reference(_ number: Int, into body: inout [UInt8]) {
    appendDecimal(number, to: &body)
    body.append(contentsOf: " 0 R".utf8)
  }
}
