import Foundation

/// Repairs cairo 1.16's repeated XObject keys in the PDFs it writes.
///
/// cairo appends an image to a page's (or group's) resource list each time it paints it, without
/// looking for it there, and writes the list as `   /XObject << /x8 8 0 R /x8 8 0 R >>`: the key
/// is the object number, so a repeat always names the same object, and `qpdf --check` warns
/// "dictionary has duplicated key /x8". Blanking each repeat with spaces drops nothing and keeps
/// every byte offset, so the cross-reference table stays valid.
enum PDFResourceCleanup {
  static func removingDuplicateXObjectKeys(from data: Data) -> Data {
    var bytes = [UInt8](data)
    let opening = Array("   /XObject <<".utf8)
    var changed = false
    var searchStart = 0
    while let start = find(opening, in: bytes, from: searchStart) {
      var index = start + opening.count
      var seen = Set<ArraySlice<UInt8>>()
      // Entries ` /xN N 0 R`, as cairo writes them, until ` >>`; anything else ends the scan.
      while let entryEnd = entry(in: bytes, at: index) {
        let entry = bytes[index..<entryEnd]
        if !seen.insert(entry).inserted {
          for position in index..<entryEnd { bytes[position] = UInt8(ascii: " ") }
          changed = true
        }
        index = entryEnd
      }
      searchStart = index
    }
    return changed ? Data(bytes) : data
  }

  /// The end of an entry ` /x<digits> <digits> 0 R` starting at `index`, or nil.
  private static func entry(in bytes: [UInt8], at index: Int) -> Int? {
    var position = index
    func expect(_ text: String) -> Bool {
      for byte in text.utf8 {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
      }
      return true
    }
    func digits() -> Bool {
      let start = position
      while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
        position += 1
      }
      return position > start
    }
    guard expect(" /x"), digits(), expect(" "), digits(), expect(" 0 R") else { return nil }
    return position
  }

  private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
    guard let first = needle.first, bytes.count >= needle.count else { return nil }
    var index = start
    while index <= bytes.count - needle.count {
      if bytes[index] == first, bytes[index..<index + needle.count].elementsEqual(needle) { return index }
      index += 1
    }
    return nil
  }
}
