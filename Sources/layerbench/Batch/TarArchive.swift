import Foundation

/// The bytes of a POSIX tar archive (ustar, with pax extended headers where ustar cannot say it):
/// what `--output webdataset` writes, one tile's members after another.
///
/// Each member is a 512-byte header, its data, and zeros to the next 512-byte boundary; the archive
/// ends with two zero blocks, padded to a whole 10 KiB record (tar's default blocking factor of 20, as
/// GNU tar and Python's `tarfile` write it). Headers are deterministic (mode 0644, owner 0/0, mtime
/// 0, no user names): the same tiles give the same archive, byte for byte, which is what lets a
/// resumed run keep a finished tar file. A name over 100 bytes or with a byte outside ASCII, or a
/// size over ustar's 11 octal digits (8 GiB), is written in a pax extended header (`x`) before the
/// member's own header, which holds a truncated name and a zero size then, as POSIX specifies.
enum TarArchive {
  static let blockSize = 512
  static let recordSize = 20 * 512
  /// The largest size ustar's 12-byte octal field holds (11 digits).
  static let largestUstarSize = (1 << 33) - 1

  /// Appends the header(s) of a regular file member `name` of `size` bytes to `out`; the data follows
  /// (then `appendPadding`).
  static func appendHeader(name: String, size: Int, to out: inout [UInt8]) {
    precondition(size >= 0)
    var name = name
    name.withUTF8 { nameBytes in
      let needsPaxName = nameBytes.count > 100 || nameBytes.contains { $0 >= 0x80 }
      let needsPaxSize = size > largestUstarSize
      guard needsPaxName || needsPaxSize else {
        // The usual member (`<id>.png`, `<id>.txt`): one header, its name copied in place.
        appendUstarHeader(name: nameBytes, size: size, type: UInt8(ascii: "0"), to: &out)
        return
      }
      let nameArray = Array(nameBytes)
      var records: [UInt8] = []
      if needsPaxName { records += paxRecord(key: "path", value: nameArray) }
      if needsPaxSize { records += paxRecord(key: "size", value: Array(String(size).utf8)) }
      // The extended header's own name: informational, ASCII, within 100 bytes.
      appendUstarHeader(
        name: Array("PaxHeaders/".utf8) + asciiPrefix(nameArray, limit: 88), size: records.count, type: "x",
        to: &out)
      out += records
      appendPadding(after: records.count, to: &out)
      appendUstarHeader(
        name: needsPaxName ? asciiPrefix(nameArray, limit: 100) : nameArray, size: needsPaxSize ? 0 : size,
        type: "0", to: &out)
    }
  }

  /// Zeros from `size` bytes of data up to the next block boundary.
  static func appendPadding(after size: Int, to out: inout [UInt8]) {
    let remainder = size % blockSize
    if remainder != 0 { out += [UInt8](repeating: 0, count: blockSize - remainder) }
  }

  /// The archive's end: two zero blocks, then zeros up to a whole record, for an archive of `length`
  /// bytes so far.
  static func end(afterLength length: Int) -> [UInt8] {
    var total = length + 2 * blockSize
    total += (recordSize - total % recordSize) % recordSize
    return [UInt8](repeating: 0, count: total - length)
  }

  /// The bytes of a member's header(s): where its data starts, from the member's start.
  static func headerLength(name: String, size: Int) -> Int {
    var name = name
    let isUstar = name.withUTF8 { $0.count <= 100 && !$0.contains { $0 >= 0x80 } } && size <= largestUstarSize
    if isUstar { return blockSize }
    var header: [UInt8] = []
    appendHeader(name: name, size: size, to: &header)
    return header.count
  }

  /// One pax record, "LENGTH key=value\n", LENGTH counting the whole record, its own digits too.
  private static func paxRecord(key: String, value: [UInt8]) -> [UInt8] {
    let body = 1 + key.utf8.count + 1 + value.count + 1  // space, key, "=", value, newline
    var length = body + String(body).utf8.count
    if String(length).utf8.count != String(body).utf8.count { length = body + String(length).utf8.count }
    return Array("\(length) \(key)=".utf8) + value + [0x0a]
  }

  /// The longest prefix of `bytes` within `limit` bytes with only printable ASCII (others as `_`).
  private static func asciiPrefix(_ bytes: [UInt8], limit: Int) -> [UInt8] {
    bytes.prefix(limit).map { (0x20..<0x7f).contains($0) ? $0 : UInt8(ascii: "_") }
  }

  /// The fields every header shares (mode 0644, owner 0/0, mtime 0, magic, version, device 0/0),
  /// with the checksum field as eight spaces, as the checksum is computed.
  private static let template: [UInt8] = {
    var header = [UInt8](repeating: 0, count: blockSize)
    func put(_ text: String, at offset: Int) {
      for (index, byte) in text.utf8.enumerated() { header[offset + index] = byte }
    }
    put("0000644", at: 100)  // mode
    put("0000000", at: 108)  // uid
    put("0000000", at: 116)  // gid
    put("00000000000", at: 136)  // mtime: fixed, so that the same tiles give the same bytes
    put("        ", at: 148)  // the checksum, as spaces while summing
    put("ustar\u{0}00", at: 257)  // magic and version
    put("0000000", at: 329)  // devmajor
    put("0000000", at: 337)  // devminor
    return header
  }()

  /// The sum of the template's bytes: a header's checksum is this plus what is written over its
  /// zeros (name, size, type), so that a header is not summed byte by byte.
  private static let templateSum = template.reduce(0) { $0 + Int($1) }

  private static func appendUstarHeader(name: [UInt8], size: Int, type: Character, to out: inout [UInt8]) {
    name.withUnsafeBufferPointer { appendUstarHeader(name: $0, size: size, type: type.asciiValue!, to: &out) }
  }

  /// One 512-byte header, written in place (no intermediate strings: a tile has two or three). The
  /// name (at most 100 bytes are written), size and type go where the template has zeros.
  private static func appendUstarHeader(
    name: UnsafeBufferPointer<UInt8>, size: Int, type: UInt8, to out: inout [UInt8]
  ) {
    let start = out.count
    out.append(contentsOf: template)
    out.withUnsafeMutableBufferPointer { all in
      let header = all.baseAddress! + start
      var sum = templateSum + Int(type)
      let nameCount = min(name.count, 100)
      if nameCount > 0 { header.update(from: name.baseAddress!, count: nameCount) }
      for index in 0..<nameCount { sum += Int(name[index]) }
      func octal(_ value: Int, at offset: Int, digits: Int) -> Int {
        var rest = value
        var digitSum = 0
        for position in stride(from: digits - 1, through: 0, by: -1) {
          let digit = 0x30 + UInt8(rest & 7)
          header[offset + position] = digit
          digitSum += Int(digit)
          rest >>= 3
        }
        header[offset + digits] = 0
        return digitSum
      }
      sum += octal(size, at: 124, digits: 11)
      header[156] = type
      // The checksum: the header's bytes summed with its own field taken as eight spaces (the template's).
      _ = octal(sum, at: 148, digits: 6)
      header[155] = 0x20
    }
  }
}
