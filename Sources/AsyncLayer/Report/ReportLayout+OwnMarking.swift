package import Foundation

/// The untagged PDF with its content marked by us (issue 29, goal 6): what
/// ``ReportLayout/ownTaggedPDFData(isCancelled:)`` builds the structure tree from.
struct ReportOwnMarking {
  /// The PDF as cairo wrote it, untagged.
  let data: Data
  /// What the pages drew.
  let record: ReportDrawingRecord
  /// The pages' content streams as cairo wrote them.
  let contents: PDFPageContents
  /// Each page's marked content stream and its MCIDs.
  let pages: [PDFContentMarker.Result]

  /// Why the content could not be marked.
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }
}

extension ReportLayout {
  /// The untagged PDF with every page's text runs marked from the drawing record.
  func ownMarking(isCancelled: @escaping () -> Bool = { false }) throws -> ReportOwnMarking {
    let record = ReportDrawingRecord()
    let data = try pdfData(isCancelled: isCancelled, record: record)
    let contents: PDFPageContents
    do {
      contents = try PDFPageContents(data)
    } catch {
      throw ReportOwnMarking.Failure(description: "reading the pages: \(error.description)")
    }
    guard contents.pages.count == record.pages.count else {
      throw ReportOwnMarking.Failure(
        description: "\(contents.pages.count) pages in the PDF, \(record.pages.count) in the record")
    }
    let marker = PDFContentMarker(bytesPerGlyph: contents.bytesPerGlyph)
    var pages: [PDFContentMarker.Result] = []
    pages.reserveCapacity(contents.pages.count)
    for (index, (page, drawn)) in zip(contents.pages, record.pages).enumerated() {
      do {
        pages.append(try marker.marking(page.stream, runs: drawn.runs))
      } catch {
        throw ReportOwnMarking.Failure(description: "page \(index + 1): \(error.description)")
      }
    }
    return ReportOwnMarking(data: data, record: record, contents: contents, pages: pages)
  }

  /// A tagged PDF with our own marked content and structure tree: drawn untagged with the drawing
  /// record, every page marked (``PDFContentMarker``), the tree built from the record
  /// (``ReportStructureTree``) and written by the rewrite in place of cairo's content streams and
  /// its links-only tree (``PDFCatalogUpdate/replacingStructure(in:contents:streams:tree:language:)``).
  /// Throws ``ReportOwnMarking/Failure`` when anything does not add up.
  func ownTaggedPDFData(isCancelled: @escaping () -> Bool = { false }) throws -> Data {
    let marking = try ownMarking(isCancelled: isCancelled)
    var pages = marking.pages
    for (index, page) in marking.contents.pages.enumerated() where pages[index].cairoIDs.count > page.annotations.count
    {
      pages[index].unmarkCairoRoot()
    }
    let tree = try ReportStructureTree.build(record: marking.record, marked: pages, contents: marking.contents)
    do {
      return try PDFCatalogUpdate.replacingStructure(
        in: marking.data, contents: marking.contents, streams: pages.map(\.stream), tree: tree,
        language: metadata.language)
    } catch {
      throw ReportOwnMarking.Failure(description: "writing the structure tree: \(error.description)")
    }
  }

  /// `layerbench report --own-tags` (hidden): a tagged report with our own structure tree (when it
  /// can have one), whatever ``writesOwnStructureTree`` says; `false` forces cairo's tags.
  package func pdfData(ownStructureTree: Bool) throws -> Data {
    try pdfData(isCancelled: { false }, ownStructure: ownStructureTree)
  }

  /// A measuring run for `layerbench report --probe-own-marking` (bench/own-tags-marker.sh): a
  /// tagged report drawn untagged with the drawing record, every page marked and deflated at level 1
  /// (what the rewrite uses), the result thrown away, and the untagged PDF returned. Not an output
  /// anyone should use: it has no structure tree. An untagged report is returned as usual.
  package func ownMarkingProbe(isCancelled: @escaping () -> Bool = { false }) throws -> Data {
    guard metadata.tagged else { return try pdfData(isCancelled: isCancelled) }
    let marking = try ownMarking(isCancelled: isCancelled)
    let compressor = try DeflateCompressor(level: 1)
    var output: [UInt8] = []
    for page in marking.pages {
      let bound = compressor.zlibBound(for: page.stream.count)
      if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
      _ = try page.stream.withUnsafeBytes { input in
        try output.withUnsafeMutableBytes { try compressor.zlibCompress(input, into: $0) }
      }
    }
    return marking.data
  }
}
