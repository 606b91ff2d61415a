import Foundation

/// The top-level keys of a JSON Lines line, read in one pass over its bytes without decoding it:
/// the line's id (for `SeenIDs`, in input order, before any worker renders) and the first key given
/// twice (`JSONDecoder` keeps one of the two values without a word).
///
/// The scan trusts the decoder with the grammar: on a line that is not a JSON object it gives up
/// (`isObject` false) and the parser reports the line's error. Nested objects are passed over: no
/// field of a line takes one, so the parser refuses them anyway.
struct LineKeys {
  /// The id as the parser reads it: a string, or an integral number below 10¹⁸ written as an integer.
  var id: String?
  /// How many top-level "id" keys the line has.
  var idCount = 0
  /// The first top-level key given twice.
  var duplicateKey: String?
  /// Whether the line scanned as one JSON object.
  var isObject = false

  init(_ line: Data) {
    line.withUnsafeBytes { raw in scan(raw.bindMemory(to: UInt8.self)) }
  }

  private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d }

  private mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>) {
    var index = 0
    let end = bytes.count
    func skipSpace() { while index < end, Self.isSpace(bytes[index]) { index += 1 } }
    /// From an opening quote to past the closing one: the contents' range and whether it has escapes.
    func string() -> (Range<Int>, Bool)? {
      let start = index + 1
      var escaped = false
      index += 1
      while index < end {
        switch bytes[index] {
        case UInt8(ascii: "\""):
          index += 1
          return (start..<(index - 1), escaped)
        case UInt8(ascii: "\\"):
          escaped = true
          index += 2
        default:
          index += 1
        }
      }
      return nil
    }
    /// Past one value of any kind (nested containers counted, strings skipped whole).
    func skipValue() -> Bool {
      var depth = 0
      while index < end {
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "\""):
          guard string() != nil else { return false }
          if depth == 0 { return true }
          continue
        case UInt8(ascii: "{"), UInt8(ascii: "["):
          depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
          if depth == 0 { return true }
          depth -= 1
          if depth == 0 {
            index += 1
            return true
          }
        case UInt8(ascii: ","):
          if depth == 0 { return true }
        default:
          if depth == 0, Self.isSpace(byte) { return true }
        }
        index += 1
      }
      return depth == 0
    }

    skipSpace()
    guard index < end, bytes[index] == UInt8(ascii: "{") else { return }
    index += 1
    var keys: [(Range<Int>, Bool)] = []
    while true {
      skipSpace()
      guard index < end else { return }
      if bytes[index] == UInt8(ascii: "}") { break }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      guard bytes[index] == UInt8(ascii: "\""), let key = string() else { return }
      skipSpace()
      guard index < end, bytes[index] == UInt8(ascii: ":") else { return }
      index += 1
      skipSpace()
      let valueStart = index
      guard index < end, skipValue() else { return }
      // A plain key is compared in place (no `String` per key); one with escapes is decoded.
      let isID =
        key.1
        ? Self.text(bytes, key) == "id"
        : key.0.count == 2 && bytes[key.0.lowerBound] == UInt8(ascii: "i")
          && bytes[key.0.lowerBound + 1] == UInt8(ascii: "d")
      if isID {
        idCount += 1
        if idCount == 1 { id = Self.id(bytes, valueStart..<index) }
      }
      if duplicateKey == nil { keys.append(key) }
    }
    isObject = true
    duplicateKey = Self.firstDuplicate(bytes, keys)
    if idCount != 1 { id = nil }
  }

  /// A key's text, escapes decoded (by `JSONDecoder`, the parser's reader, when it has any).
  private static func text(_ bytes: UnsafeBufferPointer<UInt8>, _ key: (Range<Int>, Bool)) -> String {
    let (range, escaped) = key
    if !escaped { return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
    let quoted = Data(UnsafeBufferPointer(rebasing: bytes[(range.lowerBound - 1)..<(range.upperBound + 1)]))
    return (try? JSONDecoder().decode(String.self, from: quoted)) ?? ""
  }

  /// The id a value gives, read the way `TileParser` reads it.
  private static func id(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String? {
    guard let first = range.first.map({ bytes[$0] }) else { return nil }
    var end = range.upperBound
    while end > range.lowerBound, isSpace(bytes[end - 1]) { end -= 1 }
    if first == UInt8(ascii: "\"") {
      guard end - range.lowerBound >= 2 else { return nil }
      let contents = (range.lowerBound + 1)..<(end - 1)
      let escaped = UnsafeBufferPointer(rebasing: bytes[contents]).contains(UInt8(ascii: "\\"))
      return text(bytes, (contents, escaped))
    }
    guard first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
      let number = Double(
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range.lowerBound..<end]), as: UTF8.self)),
      number == number.rounded(), abs(number) < 1e18
    else { return nil }
    return String(Int(number))
  }

  /// The first key that an earlier key equals (compared as decoded text).
  private static func firstDuplicate(_ bytes: UnsafeBufferPointer<UInt8>, _ keys: [(Range<Int>, Bool)]) -> String? {
    guard keys.count > 1 else { return nil }
    if keys.count <= 16, !keys.contains(where: { $0.1 }) {
      // The usual line: a few plain keys, compared in place.
      for later in 1..<keys.count {
        for earlier in 0..<later
        where keys[earlier].0.count == keys[later].0.count
          && memcmp(
            bytes.baseAddress! + keys[earlier].0.lowerBound, bytes.baseAddress! + keys[later].0.lowerBound,
            keys[later].0.count) == 0
        {
          return text(bytes, keys[later])
        }
      }
      return nil
    }
    var seen = Set<[UInt8]>()
    for key in keys {
      let name = text(bytes, key)
      if !seen.insert(Array(name.utf8)).inserted { return name }
    }
    return nil
  }
}
