import Foundation

extension PDFCatalogUpdate {
  /// Structure objects per object stream: enough for deflate to find the repeats between them,
  /// few enough that a reader looking up one element inflates some 20 KB, not the whole tree.
  static let objectsPerStream = 200

  /// The libdeflate level for the object streams and the cross-reference stream. cairo's
  /// structure objects differ in a few digits: level 1 shrinks them almost as much as level 6.
  static let packingLevel = 1

  /// The PDF written again with its structure tree in compressed object streams (PDF 1.5) and a
  /// cross-reference stream, `replaced` objects written with their new dictionaries; nil when the
  /// file is not laid out as cairo writes it (the caller then makes an incremental update).
  ///
  /// cairo 1.16 writes each structure element (one per table cell), each page's list of the
  /// elements its marked content belongs to and the parent tree as a plain object with a
  /// 20-byte cross-reference entry: in a tagged 2,000-row table that is 1.7 MB of a 1.8 MB file,
  /// its pages' content 0.17 MB. Every other object (pages, fonts, content streams, the catalog)
  /// is copied as it is, so nothing a reader draws changes; only the objects' places do.
  ///
  /// Our own structure tree (``replacingStructure(in:contents:streams:tree:language:)``) adds
  /// `bodies` (whole object bodies, streams included, in place of cairo's) and `appended` (new
  /// objects numbered from cairo's `/Size` on) and `dropsStructure` (cairo's own structure objects
  /// are left out, their cross-reference entries free: our tree replaces them).
  static func packing(
    _ file: CrossReference, replacing replaced: [(number: Int, dictionary: String)],
    bodies replacedBodies: [Int: [UInt8]] = [:], appended: AppendedObjects = AppendedObjects(),
    dropsStructure: Bool = false, in bytes: UnsafeRawBufferPointer
  ) -> Data? {
    // Object streams are PDF 1.5; cairo writes 1.5 unless told to keep to 1.4.
    let version = Array("%PDF-1.".utf8)
    guard bytes.count > version.count, matches(bytes, at: 0, version),
      let minor = digitValue(bytes[version.count]), minor >= 5
    else { return nil }
    let offsets = file.offsets
    let count = offsets.count
    guard count > 1, count < Int(Int32.max) / 2 else { return nil }

    // Each object runs from its `N 0 obj` line to the next object's (in file order), the last one
    // to the cross-reference table; cairo writes nothing between them.
    var order = Array(1..<count)
    order.sort { offsets[$0] < offsets[$1] }
    var bodies = [Range<Int>](repeating: 0..<0, count: count)
    let ending = Array("\nendobj\n".utf8)
    for (position, number) in order.enumerated() {
      let end = position + 1 < order.count ? offsets[order[position + 1]] : file.start
      guard let start = bodyStart(ofObject: number, at: offsets[number], in: bytes),
        end - ending.count >= start, end <= bytes.count,
        matches(bytes, at: end - ending.count, ending)
      else { return nil }
      bodies[number] = start..<(end - ending.count)
    }
    let replacements = Dictionary(replaced.map { ($0.number, $0.dictionary) }, uniquingKeysWith: { $1 })

    var output = [UInt8]()
    output.reserveCapacity(bytes.count / 4 + 4096)
    let firstOffset = offsets[order[0]]
    append(bytes, 0..<firstOffset, to: &output)
    // Where each object ends up: its offset, or its object stream and index there.
    var newOffsets = [Int](repeating: 0, count: count)
    var packed: [Int] = []
    var dropped = [Bool](repeating: false, count: count)
    for number in order {
      let body = bodies[number]
      if isPackable(body, in: bytes) {
        if dropsStructure {
          dropped[number] = true
        } else {
          packed.append(number)
        }
        continue
      }
      newOffsets[number] = output.count
      if let body = replacedBodies[number] {
        output.append(contentsOf: "\(number) 0 obj\n".utf8)
        output.append(contentsOf: body)
        output.append(contentsOf: ending)
      } else if let dictionary = replacements[number] {
        output.append(contentsOf: "\(number) 0 obj\n\(dictionary)\nendobj\n".utf8)
      } else {
        append(bytes, offsets[number]..<(body.upperBound + ending.count), to: &output)
      }
    }
    // The appended objects: numbered from cairo's /Size on, all packed.
    let total = count + appended.ends.count
    packed.append(contentsOf: count..<total)
    guard !packed.isEmpty, let compressor = try? DeflateCompressor(level: packingLevel) else { return nil }

    var streamOf = [Int32](repeating: 0, count: total)
    var indexIn = [UInt16](repeating: 0, count: total)
    var streamOffsets: [Int] = []
    var chunkStart = 0
    var text: [UInt8] = []
    var objects: [UInt8] = []
    while chunkStart < packed.count {
      let chunk = packed[chunkStart..<min(chunkStart + objectsPerStream, packed.count)]
      let streamNumber = total + streamOffsets.count
      text.removeAll(keepingCapacity: true)
      objects.removeAll(keepingCapacity: true)
      for (index, number) in chunk.enumerated() {
        appendDecimal(number, to: &text)
        text.append(UInt8(ascii: " "))
        appendDecimal(objects.count, to: &text)
        text.append(UInt8(ascii: " "))
        if number >= count {
          appended.append(number - count, to: &objects)
        } else if let dictionary = replacements[number] {
          objects.append(contentsOf: dictionary.utf8)
        } else {
          append(bytes, bodies[number], to: &objects)
        }
        objects.append(UInt8(ascii: "\n"))
        streamOf[number] = Int32(streamNumber)
        indexIn[number] = UInt16(index)
      }
      let first = text.count
      text.append(contentsOf: objects)
      guard let compressed = zlibCompressed(text, with: compressor) else { return nil }
      streamOffsets.append(output.count)
      output.append(
        contentsOf: """
          \(streamNumber) 0 obj
          << /Type /ObjStm
             /N \(chunk.count)
             /First \(first)
             /Filter /FlateDecode
             /Length \(compressed.count)
          >>
          stream

          """.utf8)
      output.append(contentsOf: compressed)
      output.append(contentsOf: "\nendstream\nendobj\n".utf8)
      chunkStart += objectsPerStream
    }

    // The cross-reference stream: /W [1 4 2] (type, offset or object stream, generation or index).
    let xrefNumber = total + streamOffsets.count
    let size = xrefNumber + 1
    let xrefOffset = output.count
    guard xrefOffset < Int(UInt32.max) else { return nil }
    var entries = [UInt8]()
    entries.reserveCapacity(size * 7)
    func entry(_ type: UInt8, _ field: Int, _ second: Int) {
      entries.append(type)
      for shift in stride(from: 24, through: 0, by: -8) { entries.append(UInt8(truncatingIfNeeded: field >> shift)) }
      entries.append(UInt8(truncatingIfNeeded: second >> 8))
      entries.append(UInt8(truncatingIfNeeded: second))
    }
    entry(0, 0, 0xFFFF)
    for number in 1..<total {
      if number < count, dropped[number] {
        // A free entry, its generation moved on so that no `N 0 R` finds it.
        entry(0, 0, 1)
      } else if streamOf[number] != 0 {
        entry(2, Int(streamOf[number]), Int(indexIn[number]))
      } else {
        entry(1, newOffsets[number], 0)
      }
    }
    for offset in streamOffsets { entry(1, offset, 0) }
    entry(1, xrefOffset, 0)
    guard let compressedEntries = zlibCompressed(entries, with: compressor) else { return nil }
    var dictionary = "<< /Type /XRef\n   /Size \(size)\n   /Root \(file.root) 0 R\n"
    if let info = file.info { dictionary += "   /Info \(info) 0 R\n" }
    dictionary += "   /W [1 4 2]\n   /Filter /FlateDecode\n   /Length \(compressedEntries.count)\n>>"
    output.append(contentsOf: "\(xrefNumber) 0 obj\n\(dictionary)\nstream\n".utf8)
    output.append(contentsOf: compressedEntries)
    output.append(contentsOf: "\nendstream\nendobj\nstartxref\n\(xrefOffset)\n%%EOF\n".utf8)
    return Data(output)
  }

  /// New objects' bodies printed one after another into one buffer (one allocation, not one per
  /// structure element): object i runs from `ends[i - 1]` (0 for the first) to `ends[i]`.
  struct AppendedObjects {
    var bytes: [UInt8] = []
    var ends: [Int] = []

    /// Ends the object printed since the last one ended.
    mutating func endObject() { ends.append(bytes.count) }

    func append(_ index: Int, to output: inout [UInt8]) {
      let start = index == 0 ? 0 : ends[index - 1]
      bytes.withUnsafeBufferPointer {
        output.append(contentsOf: UnsafeBufferPointer(rebasing: $0[start..<ends[index]]))
      }
    }
  }

  private static let packablePrefixes = [
    "<< /Type /StructElem\n", "<< /Type /StructTreeRoot\n", "<< /Nums [", "[\n",
  ].map { Array($0.utf8) }

  /// Whether an object body goes into an object stream: a structure element, the structure tree
  /// root, the parent tree or a page's list of structure elements (dictionaries and arrays, never
  /// a stream, as a PDF requires of objects in an object stream).
  private static func isPackable(_ body: Range<Int>, in bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress else { return false }
    return packablePrefixes.contains { prefix in
      body.count >= prefix.count && memcmp(base + body.lowerBound, prefix, prefix.count) == 0
    }
  }

  /// Appends `bytes[range]` with one copy (a slice of raw bytes would be appended byte by byte).
  private static func append(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, to output: inout [UInt8]) {
    guard let base = bytes.baseAddress, !range.isEmpty else { return }
    let start = (base + range.lowerBound).assumingMemoryBound(to: UInt8.self)
    output.append(contentsOf: UnsafeBufferPointer(start: start, count: range.count))
  }

  /// Appends `value` (not negative) in decimal digits, most significant first (reversing them in
  /// place afterwards made the array copy itself: 800 instructions a number).
  static func appendDecimal(_ value: Int, to output: inout [UInt8]) {
    let value = max(0, value)
    var divisor = 1
    while divisor <= value / 10 { divisor *= 10 }
    repeat {
      output.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
      divisor /= 10
    } while divisor > 0
  }

  static func zlibCompressed(_ input: [UInt8], with compressor: DeflateCompressor) -> [UInt8]? {
    var compressed = [UInt8](repeating: 0, count: compressor.zlibBound(for: input.count))
    let written = input.withUnsafeBytes { source in
      compressed.withUnsafeMutableBytes { target in try? compressor.zlibCompress(source, into: target) }
    }
    guard let written else { return nil }
    compressed.removeLast(compressed.count - written)
    return compressed
  }
}
