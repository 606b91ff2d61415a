import Foundation

/// A fast reader for the JSON Lines a batch takes: one flat object of strings, numbers, booleans
/// and nulls, read straight from the line's bytes into the values `JSONSerialization` gives
/// (`String`, `NSNumber`, `NSNull`), without its bridging.
///
/// Anything else — a nested array or object, a syntax error, a duplicate key, a lone surrogate —
/// returns nil, and the caller reads the line with `JSONSerialization`, whose error messages it
/// reports: this reader only changes how fast a well-formed line is read.
///
/// ```swift
/// FlatJSON.object(Data(#"{"id": "a1", "width": 200}"#.utf8))  // ["id": "a1", "width": 200]
/// ```
enum FlatJSON {
  static func object(_ line: Data) -> [String: Any]? {
    line.withUnsafeBytes { raw -> [String: Any]? in
      var reader = Reader(bytes: raw.bindMemory(to: UInt8.self))
      return reader.object()
    }
  }

  private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    mutating func object() -> [String: Any]? {
      skipSpace()
      guard take(UInt8(ascii: "{")) else { return nil }
      var result: [String: Any] = [:]
      skipSpace()
      if !take(UInt8(ascii: "}")) {
        repeat {
          skipSpace()
          guard let key = string() else { return nil }
          skipSpace()
          guard take(UInt8(ascii: ":")) else { return nil }
          skipSpace()
          guard let value = value(), result.updateValue(value, forKey: key) == nil else { return nil }
          skipSpace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { return nil }
      }
      skipSpace()
      return index == bytes.count ? result : nil
    }

    private mutating func skipSpace() {
      while index < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[index]) { index += 1 }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
      guard index < bytes.count, bytes[index] == byte else { return false }
      index += 1
      return true
    }

    private mutating func take(_ word: StaticString) -> Bool {
      let count = word.utf8CodeUnitCount
      guard bytes.count - index >= count,
        memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0
      else { return false }
      index += count
      return true
    }

    private mutating func value() -> Any? {
      guard index < bytes.count else { return nil }
      switch bytes[index] {
      case UInt8(ascii: "\""): return string()
      case UInt8(ascii: "t"): return take("true") ? NSNumber(value: true) : nil
      case UInt8(ascii: "f"): return take("false") ? NSNumber(value: false) : nil
      case UInt8(ascii: "n"): return take("null") ? NSNull() : nil
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
      default: return nil  // arrays and objects: JSONSerialization's
      }
    }

    /// RFC 8259 numbers; an integer literal that fits is an `Int`, as JSONSerialization reads it.
    private mutating func number() -> NSNumber? {
      let start = index
      func digits() -> Int {
        let first = index
        while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
        return index - first
      }
      _ = take(UInt8(ascii: "-"))
      let integerStart = index
      guard digits() > 0, bytes[integerStart] != 0x30 || index - integerStart == 1 else { return nil }
      var isInteger = true
      if take(UInt8(ascii: ".")) {
        isInteger = false
        guard digits() > 0 else { return nil }
      }
      if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
        isInteger = false
        if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
        guard digits() > 0 else { return nil }
      }
      let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
      if isInteger, let integer = Int(text) { return NSNumber(value: integer) }
      guard let double = Double(text), double.isFinite else { return nil }
      return NSNumber(value: double)
    }

    private mutating func string() -> String? {
      guard take(UInt8(ascii: "\"")) else { return nil }
      let start = index
      // The common case: no escapes, one copy.
      while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
        guard bytes[index] >= 0x20 else { return nil }
        index += 1
      }
      guard index < bytes.count else { return nil }
      if bytes[index] == UInt8(ascii: "\"") {
        index += 1
        return String(validating: UnsafeBufferPointer(rebasing: bytes[start..<index - 1]), as: UTF8.self)
      }
      var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
      while index < bytes.count {
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return String(validating: utf8, as: UTF8.self)
        case UInt8(ascii: "\\"):
          guard index < bytes.count else { return nil }
          let escape = bytes[index]
          index += 1
          switch escape {
          case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
          case UInt8(ascii: "b"): utf8.append(0x08)
          case UInt8(ascii: "f"): utf8.append(0x0c)
          case UInt8(ascii: "n"): utf8.append(0x0a)
          case UInt8(ascii: "r"): utf8.append(0x0d)
          case UInt8(ascii: "t"): utf8.append(0x09)
          case UInt8(ascii: "u"):
            guard let scalar = unicodeEscape() else { return nil }
            utf8.append(contentsOf: String(Character(scalar)).utf8)
          default: return nil
          }
        case 0..<0x20: return nil
        default: utf8.append(byte)
        }
      }
      return nil
    }

    /// The scalar of `\uXXXX` (the `\u` read), joining a surrogate pair; nil for a lone surrogate.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
      guard let high = hex4() else { return nil }
      if (0xD800..<0xDC00).contains(high) {
        guard take("\\u"), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
      }
      return Unicode.Scalar(high)
    }

    private mutating func hex4() -> UInt32? {
      guard bytes.count - index >= 4 else { return nil }
      var value: UInt32 = 0
      for _ in 0..<4 {
        let byte = bytes[index]
        let digit: UInt8
        switch byte {
        case 0x30...0x39: digit = byte - 0x30
        case 0x41...0x46: digit = byte - 0x41 + 10
        case 0x61...0x66: digit = byte - 0x61 + 10
        default: return nil
        }
        value = value << 4 | UInt32(digit)
        index += 1
      }
      return value
    }
  }
}
