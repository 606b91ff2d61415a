package import Foundation

/// Finds where a JSON text first breaks the grammar (RFC 8259, plus the trailing commas
/// `JSONDecoder` accepts) or repeats a key within one object, for a message that points at it.
///
/// `JSONDecoder` says only that the data is not valid JSON, and keeps one of two values of a
/// repeated key without a word; this scan says where and what is wrong, and for a repeated key the
/// JSON path of its object (`content[2]`). It keeps its own stack, so any nesting depth is safe.
/// Report specs run it before decoding; it suits any JSON a person writes (a batch input line).
///
/// ```swift
/// let failure = JSONSyntaxCheck.firstFailure(in: Data(#"{"a": 1, "a": 2}"#.utf8))
/// failure?.description
/// // line 1, column 10: duplicate key "a" (first at line 1, column 2) in the top-level object
/// ```
package enum JSONSyntaxCheck {
  /// The first place the text breaks the grammar or repeats a key.
  package struct Failure: Equatable, Sendable, CustomStringConvertible {
    /// 1-based line.
    package var line: Int
    /// 1-based column, in characters.
    package var column: Int
    /// What is wrong there.
    package var problem: String
    /// The JSON path of the object holding a repeated key (`content[2].table`, empty for the top
    /// level); nil for a grammar error.
    package var duplicateKeyPath: String? = nil

    /// "line L, column C: problem", and for a repeated key the object's path.
    package var description: String {
      let place = duplicateKeyPath.map { $0.isEmpty ? " in the top-level object" : " in \($0)" } ?? ""
      return "line \(line), column \(column): \(problem)\(place)"
    }
  }

  private enum Expectation {
    case value, valueOrClose, keyOrClose, colon, commaOrClose, end
  }

  /// One open `{` or `[`, with where its next member goes.
  private struct Frame {
    var isObject: Bool
    /// The current member: its key in an object, its index in an array.
    var key: String?
    var index = -1
    /// The keys seen so far in an object, with the byte offset of each.
    var keys: [String: Int] = [:]
  }

  /// The first syntax error or repeated key in `data`, or nil when it is valid JSON with unique keys.
  package static func firstFailure(in data: Data) -> Failure? {
    data.withUnsafeBytes { raw in
      let bytes = raw.bindMemory(to: UInt8.self)
      guard let (offset, problem, path) = scan(bytes) else { return nil }
      var failure = position(of: offset, in: bytes, problem: problem)
      failure.duplicateKeyPath = path
      return failure
    }
  }

  /// The path of the container at the top of `stack`: `content[2].table`.
  private static func path(_ stack: [Frame]) -> String {
    var path = ""
    for (depth, frame) in stack.enumerated() where depth + 1 < stack.count {
      if frame.isObject {
        path += (path.isEmpty ? "" : ".") + (frame.key ?? "")
      } else {
        path += "[\(frame.index)]"
      }
    }
    return path
  }

  private static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d
  }

  private static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> (Int, String, String?)? {
    var open: [Frame] = []  // the `{` and `[` not yet closed
    var expected = Expectation.value
    var index = 0
    func afterValue() { expected = open.isEmpty ? .end : .commaOrClose }
    func close() {
      open.removeLast()
      afterValue()
    }
    /// Starts a value in the innermost array (objects count their members at the key).
    func startValue() {
      if let last = open.indices.last, !open[last].isObject { open[last].index += 1 }
    }
    while true {
      while index < bytes.count, isWhitespace(bytes[index]) { index += 1 }
      guard index < bytes.count else {
        return expected == .end
          ? nil : (index, "the text ends early; expected \(describe(expected, open.last?.isObject))", nil)
      }
      let byte = bytes[index]
      switch expected {
      case .end:
        return (index, "unexpected text after the end of the JSON value", nil)
      case .colon:
        guard byte == UInt8(ascii: ":") else { return (index, "expected ':' after the key", nil) }
        index += 1
        expected = .value
      case .commaOrClose:
        let isObject = open.last?.isObject == true
        let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        if byte == UInt8(ascii: ",") {
          // JSONDecoder accepts a trailing comma: so does this scan, or it would blame one
          // before the real error.
          index += 1
          expected = isObject ? .keyOrClose : .valueOrClose
        } else if byte == closing {
          index += 1
          close()
        } else {
          return (index, "expected \(describe(expected, isObject))", nil)
        }
      case .keyOrClose:
        if byte == UInt8(ascii: "}") {
          index += 1
          close()
        } else if byte == UInt8(ascii: "\"") {
          let start = index
          if let failure = scanString(bytes, &index) { return (failure.0, failure.1, nil) }
          let key = decodeKey(bytes[(start + 1)..<(index - 1)])
          let last = open.count - 1
          if let first = open[last].keys[key] {
            let earlier = position(of: first, in: bytes, problem: "")
            let container = path(open)
            return (
              start,
              "duplicate key \"\(key)\" (first at line \(earlier.line), column \(earlier.column))", container
            )
          }
          open[last].keys[key] = start
          open[last].key = key
          expected = .colon
        } else {
          return (index, "expected \(describe(expected, true))", nil)
        }
      case .value, .valueOrClose:
        switch byte {
        case UInt8(ascii: "]") where expected == .valueOrClose:
          index += 1
          close()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
          startValue()
          index += 1
          open.append(Frame(isObject: byte == UInt8(ascii: "{")))
          expected = byte == UInt8(ascii: "{") ? .keyOrClose : .valueOrClose
        case UInt8(ascii: "\""):
          startValue()
          if let failure = scanString(bytes, &index) { return (failure.0, failure.1, nil) }
          afterValue()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
          startValue()
          if let failure = scanNumber(bytes, &index) { return (failure.0, failure.1, nil) }
          afterValue()
        default:
          guard let literal = ["true", "false", "null"].first(where: { bytes[index...].starts(with: $0.utf8) }) else {
            return (index, "expected \(describe(expected, open.last?.isObject))", nil)
          }
          startValue()
          index += literal.utf8.count
          afterValue()
        }
      }
    }
  }

  /// A key as JSONDecoder reads it: escapes resolved, so that `"\u0074itle"` repeats `"title"`.
  /// The bytes are a string the scan has already checked.
  private static func decodeKey(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
    guard bytes.contains(UInt8(ascii: "\\")) else { return String(decoding: bytes, as: UTF8.self) }
    var units: [UInt16] = []
    var utf8: [UInt8] = []
    func flushUTF8() {
      units.append(contentsOf: String(decoding: utf8, as: UTF8.self).utf16)
      utf8.removeAll()
    }
    var index = bytes.startIndex
    while index < bytes.endIndex {
      let byte = bytes[index]
      guard byte == UInt8(ascii: "\\"), index + 1 < bytes.endIndex else {
        utf8.append(byte)
        index += 1
        continue
      }
      flushUTF8()
      let escaped = bytes[index + 1]
      switch escaped {
      case UInt8(ascii: "u"):
        let hex = String(decoding: bytes[(index + 2)..<min(index + 6, bytes.endIndex)], as: UTF8.self)
        units.append(UInt16(hex, radix: 16) ?? 0xfffd)
        index += 6
        continue
      case UInt8(ascii: "b"): units.append(0x08)
      case UInt8(ascii: "f"): units.append(0x0c)
      case UInt8(ascii: "n"): units.append(0x0a)
      case UInt8(ascii: "r"): units.append(0x0d)
      case UInt8(ascii: "t"): units.append(0x09)
      default: units.append(UInt16(escaped))
      }
      index += 2
    }
    flushUTF8()
    return String(decoding: units, as: UTF16.self)
  }

  private static func describe(_ expected: Expectation, _ isObject: Bool?) -> String {
    let value = "a value (a string in double quotes, a number, an object, an array, true, false or null)"
    switch expected {
    case .value: return value
    case .valueOrClose: return "\(value) or ']'"
    case .keyOrClose: return "a key in double quotes or '}'"
    case .colon: return "':'"
    case .commaOrClose: return isObject == true ? "',' or '}'" : "',' or ']'"
    case .end: return "nothing more"
    }
  }

  /// Scans a string from its opening quote to past its closing one.
  private static func scanString(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> (Int, String)? {
    let start = index
    index += 1
    while index < bytes.count {
      switch bytes[index] {
      case UInt8(ascii: "\""):
        index += 1
        return nil
      case UInt8(ascii: "\\"):
        guard index + 1 < bytes.count else { break }
        let escaped = bytes[index + 1]
        if escaped == UInt8(ascii: "u") {
          let hex = bytes[(index + 2)..<min(index + 6, bytes.count)]
          guard hex.count == 4, hex.allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }) else {
            return (index, #"invalid escape: \u must be followed by four hex digits"#)
          }
          index += 6
        } else {
          guard #"\"/bfnrt"#.utf8.contains(escaped) else {
            return (index, #"invalid escape (use \\, \", \/, \b, \f, \n, \r, \t or \uXXXX)"#)
          }
          index += 2
        }
      case 0..<0x20:
        return (index, #"a control character inside a string (write a line break as \n)"#)
      default:
        index += 1
      }
    }
    return (start, "a string that never ends (no closing '\"')")
  }

  /// Scans `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
  private static func scanNumber(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> (Int, String)? {
    func isDigit(_ at: Int) -> Bool { at < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) }
    func digits() -> Bool {
      guard isDigit(index) else { return false }
      while isDigit(index) { index += 1 }
      return true
    }
    let start = index
    let invalid = (start, "invalid number (expected digits such as 12, -3.5 or 1e6)")
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    if index < bytes.count, bytes[index] == UInt8(ascii: "0") {
      index += 1
    } else if !digits() {
      return invalid
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard digits() else { return invalid }
    }
    if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
      guard digits() else { return invalid }
    }
    return nil
  }

  /// The 1-based line and column (in characters: UTF-8 lead bytes) of byte `offset`.
  private static func position(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>, problem: String) -> Failure {
    let before = bytes[..<offset]
    let lineStart = (before.lastIndex(of: 0x0a) ?? -1) + 1
    let column = bytes[lineStart..<offset].count { $0 & 0xc0 != 0x80 } + 1
    return Failure(line: before.count { $0 == 0x0a } + 1, column: column, problem: problem)
  }
}
