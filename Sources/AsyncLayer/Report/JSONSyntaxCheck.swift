import Foundation

/// Finds where a JSON text first breaks the grammar (RFC 8259, plus the trailing commas
/// `JSONDecoder` accepts), for a message that points at it.
///
/// `JSONDecoder` says only that the data is not valid JSON; this scan, run after it failed, says
/// where and what was expected there. It keeps its own stack, so any nesting depth is safe.
enum JSONSyntaxCheck {
  /// The first place the text breaks the grammar.
  struct Failure: Equatable {
    /// 1-based line.
    var line: Int
    /// 1-based column, in characters.
    var column: Int
    /// What is wrong there.
    var problem: String
  }

  private enum Expectation {
    case value, valueOrClose, keyOrClose, colon, commaOrClose, end
  }

  /// The first syntax error in `data`, or nil when it is valid JSON.
  static func firstFailure(in data: Data) -> Failure? {
    let bytes = [UInt8](data)
    guard let (offset, problem) = scan(bytes) else { return nil }
    return position(of: offset, in: bytes, problem: problem)
  }

  private static func scan(_ bytes: [UInt8]) -> (Int, String)? {
    var open: [UInt8] = []  // the `{` and `[` not yet closed
    var expected = Expectation.value
    var index = 0
    func afterValue() { expected = open.isEmpty ? .end : .commaOrClose }
    while true {
      while index < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[index]) { index += 1 }
      guard index < bytes.count else {
        return expected == .end ? nil : (index, "the text ends early; expected \(describe(expected, open.last))")
      }
      let byte = bytes[index]
      switch expected {
      case .end:
        return (index, "unexpected text after the end of the JSON value")
      case .colon:
        guard byte == UInt8(ascii: ":") else { return (index, "expected ':' after the key") }
        index += 1
        expected = .value
      case .commaOrClose:
        let close = open.last == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
        if byte == UInt8(ascii: ",") {
          // JSONDecoder accepts a trailing comma: so does this scan, or it would blame one
          // before the real error.
          index += 1
          expected = open.last == UInt8(ascii: "{") ? .keyOrClose : .valueOrClose
        } else if byte == close {
          index += 1
          open.removeLast()
          afterValue()
        } else {
          return (index, "expected \(describe(expected, open.last))")
        }
      case .keyOrClose:
        if byte == UInt8(ascii: "}") {
          index += 1
          open.removeLast()
          afterValue()
        } else if byte == UInt8(ascii: "\"") {
          if let failure = scanString(bytes, &index) { return failure }
          expected = .colon
        } else {
          return (index, "expected \(describe(expected, open.last))")
        }
      case .value, .valueOrClose:
        switch byte {
        case UInt8(ascii: "]") where expected == .valueOrClose:
          index += 1
          open.removeLast()
          afterValue()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
          index += 1
          open.append(byte)
          expected = byte == UInt8(ascii: "{") ? .keyOrClose : .valueOrClose
        case UInt8(ascii: "\""):
          if let failure = scanString(bytes, &index) { return failure }
          afterValue()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
          if let failure = scanNumber(bytes, &index) { return failure }
          afterValue()
        default:
          guard let literal = ["true", "false", "null"].first(where: { bytes[index...].starts(with: $0.utf8) }) else {
            return (index, "expected \(describe(expected, open.last))")
          }
          index += literal.utf8.count
          afterValue()
        }
      }
    }
  }

  private static func describe(_ expected: Expectation, _ container: UInt8?) -> String {
    let value = "a value (a string in double quotes, a number, an object, an array, true, false or null)"
    switch expected {
    case .value: return value
    case .valueOrClose: return "\(value) or ']'"
    case .keyOrClose: return "a key in double quotes or '}'"
    case .colon: return "':'"
    case .commaOrClose: return container == UInt8(ascii: "{") ? "',' or '}'" : "',' or ']'"
    case .end: return "nothing more"
    }
  }

  /// Scans a string from its opening quote to past its closing one.
  private static func scanString(_ bytes: [UInt8], _ index: inout Int) -> (Int, String)? {
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
  private static func scanNumber(_ bytes: [UInt8], _ index: inout Int) -> (Int, String)? {
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
  private static func position(of offset: Int, in bytes: [UInt8], problem: String) -> Failure {
    let before = bytes[..<offset]
    let lineStart = (before.lastIndex(of: 0x0a) ?? -1) + 1
    let column = bytes[lineStart..<offset].count { $0 & 0xc0 != 0x80 } + 1
    return Failure(line: before.count { $0 == 0x0a } + 1, column: column, problem: problem)
  }
}
