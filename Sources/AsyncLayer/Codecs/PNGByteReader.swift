import Foundation

/// Feeds bytes to cairo's PNG reader.
struct PNGByteReader {
  let data: Data
  var offset = 0

  mutating func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
    guard count <= data.count - offset else { return false }
    data.copyBytes(to: buffer, from: data.startIndex + offset..<data.startIndex + offset + count)
    offset += count
    return true
  }
}
