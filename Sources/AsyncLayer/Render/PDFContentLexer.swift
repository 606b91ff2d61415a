/// The tokens of a PDF content stream (ISO 32000-1, 7.2 and 7.8.2), read in place: each token is
/// a kind and a byte range of the stream, nothing is copied. Used by ``PDFContentMarker`` to find
/// the text-showing operators cairo writes and the operands to split.
///
/// Inline images (`BI … ID … EI`) hold raw bytes this lexer cannot step over; cairo 1.16 writes
/// them for small stencil masks only, and the marker refuses a stream that has one.
struct PDFContentLexer {
  enum Kind: Equatable {
    /// An operator (`Tj`, `BT`, `'`), or `true`/`false`/`null`.
    case keyword
    case name
    case number
    case literalString
    case hexString
    case arrayOpen
    case arrayClose
    case dictionaryOpen
    case dictionaryClose
  }

  struct Token {
    let kind: Kind
    let range: Range<Int>
  }

  /// Why the stream could not be read.
  struct Malformed: Error {
    let offset: Int
    let reason: String
  }

  let bytes: UnsafeRawBufferPointer
  private(set) var position = 0

  init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

  static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x0C || byte == 0x00
  }

  static func isDelimiter(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "["),
      UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "/"), UInt8(ascii: "%"):
      true
    default: false
    }
  }

  /// The next token, or nil at the end of the stream.
  mutating func next() throws(Malformed) -> Token? {
    let count = bytes.count
    while position < count {
      let byte = bytes[position]
      if Self.isWhitespace(byte) {
        position += 1
      } else if byte == UInt8(ascii: "%") {
        while position < count, bytes[position] != 0x0A, bytes[position] != 0x0D { position += 1 }
      } else {
        break
      }
    }
    guard position < count else { return nil }
    let start = position
    let byte = bytes[position]
    switch byte {
    case UInt8(ascii: "("):
      try skipLiteralString()
      return Token(kind: .literalString, range: start..<position)
    case UInt8(ascii: "<"):
      if position + 1 < count, bytes[position + 1] == UInt8(ascii: "<") {
        position += 2
        return Token(kind: .dictionaryOpen, range: start..<position)
      }
      while position < count, bytes[position] != UInt8(ascii: ">") { position += 1 }
      guard position < count else { throw Malformed(offset: start, reason: "unterminated hex string") }
      position += 1
      return Token(kind: .hexString, range: start..<position)
    case UInt8(ascii: ">"):
      guard position + 1 < count, bytes[position + 1] == UInt8(ascii: ">") else {
        throw Malformed(offset: start, reason: "a lone '>'")
      }
      position += 2
      return Token(kind: .dictionaryClose, range: start..<position)
    case UInt8(ascii: "["):
      position += 1
      return Token(kind: .arrayOpen, range: start..<position)
    case UInt8(ascii: "]"):
      position += 1
      return Token(kind: .arrayClose, range: start..<position)
    case UInt8(ascii: "/"):
      position += 1
      skipRegular()
      return Token(kind: .name, range: start..<position)
    case UInt8(ascii: ")"), UInt8(ascii: "{"), UInt8(ascii: "}"):
      throw Malformed(offset: start, reason: "an unexpected '\(Character(UnicodeScalar(byte)))'")
    default:
      skipRegular()
      let isNumber =
        byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
      return Token(kind: isNumber ? .number : .keyword, range: start..<position)
    }
  }

  private mutating func skipRegular() {
    while position < bytes.count, !Self.isWhitespace(bytes[position]), !Self.isDelimiter(bytes[position]) {
      position += 1
    }
  }

  /// Past the literal string at `position` (its `(`): balanced parentheses, backslash escapes.
  private mutating func skipLiteralString() throws(Malformed) {
    let start = position
    var depth = 0
    while position < bytes.count {
      let byte = bytes[position]
      position += 1
      switch byte {
      case UInt8(ascii: "\\"): position += 1
      case UInt8(ascii: "("): depth += 1
      case UInt8(ascii: ")"):
        depth -= 1
        if depth == 0 { return }
      default: break
      }
    }
    throw Malformed(offset: start, reason: "unterminated string")
  }

  /// Whether `token` is the keyword `word`.
  func isKeyword(_ token: Token, _ word: StaticString) -> Bool {
    guard token.kind == .keyword, token.range.count == word.utf8CodeUnitCount else { return false }
    let pointer = word.utf8Start
    for index in 0..<token.range.count where bytes[token.range.lowerBound + index] != pointer[index] {
      return false
    }
    return true
  }

  // MARK: String contents

  /// The byte count of the string `token` decodes to.
  func decodedCount(of token: Token) -> Int {
    // The common cases without the general walk: hex digits, and literal strings with no escape
    // or carriage return (one byte each).
    let start = token.range.lowerBound + 1
    let end = token.range.upperBound - 1
    if token.kind == .hexString {
      var digits = 0
      for offset in start..<end where Self.hexValue(bytes[offset]) != nil { digits += 1 }
      return (digits + 1) / 2
    }
    var plain = true
    for offset in start..<end where bytes[offset] == UInt8(ascii: "\\") || bytes[offset] == 0x0D {
      plain = false
      break
    }
    if plain { return end - start }
    var count = 0
    walkString(token) { _ in
      count += 1
      return true
    }
    return count
  }

  /// The stream offset where the string `token`'s decoded byte `index` starts in its source (the
  /// closing delimiter's offset for `index` == the decoded count): splitting the source there
  /// splits the decoded bytes there, escapes and hex digit pairs kept whole.
  func sourceOffset(ofByte index: Int, in token: Token) -> Int {
    var seen = 0
    var found = token.range.upperBound - 1
    walkString(token) { offset in
      if seen == index {
        found = offset
        return false
      }
      seen += 1
      return true
    }
    return found
  }

  /// The decoded bytes of the string `token`.
  func decoded(_ token: Token) -> [UInt8] {
    var result: [UInt8] = []
    if token.kind == .hexString {
      var high: UInt8?
      for offset in (token.range.lowerBound + 1)..<(token.range.upperBound - 1) {
        guard let value = Self.hexValue(bytes[offset]) else { continue }
        if let first = high {
          result.append(first << 4 | value)
          high = nil
        } else {
          high = value
        }
      }
      if let first = high { result.append(first << 4) }
      return result
    }
    var offset = token.range.lowerBound + 1
    let end = token.range.upperBound - 1
    while offset < end {
      let byte = bytes[offset]
      if byte != UInt8(ascii: "\\") {
        if byte == 0x0D {
          if offset + 1 < end, bytes[offset + 1] == 0x0A { offset += 1 }
          result.append(0x0A)
        } else {
          result.append(byte)
        }
        offset += 1
        continue
      }
      offset += 1
      guard offset < end else { break }
      let escaped = bytes[offset]
      switch escaped {
      case UInt8(ascii: "0")...UInt8(ascii: "7"):
        var value: UInt8 = 0
        var digits = 0
        while digits < 3, offset < end, bytes[offset] >= UInt8(ascii: "0"), bytes[offset] <= UInt8(ascii: "7") {
          value = value &* 8 &+ (bytes[offset] - UInt8(ascii: "0"))
          offset += 1
          digits += 1
        }
        result.append(value)
      case 0x0A: offset += 1
      case 0x0D:
        offset += 1
        if offset < end, bytes[offset] == 0x0A { offset += 1 }
      default:
        let map: [UInt8: UInt8] = [
          UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09, UInt8(ascii: "b"): 0x08,
          UInt8(ascii: "f"): 0x0C,
        ]
        result.append(map[escaped] ?? escaped)
        offset += 1
      }
    }
    return result
  }

  /// Calls `body` with the source offset of each decoded byte's start, in order, until it returns
  /// false.
  private func walkString(_ token: Token, _ body: (Int) -> Bool) {
    let end = token.range.upperBound - 1
    var offset = token.range.lowerBound + 1
    if token.kind == .hexString {
      var pending: Int?
      while offset < end {
        if Self.hexValue(bytes[offset]) != nil {
          if let first = pending {
            pending = nil
            if !body(first) { return }
          } else {
            pending = offset
          }
        }
        offset += 1
      }
      if let first = pending { _ = body(first) }
      return
    }
    while offset < end {
      let start = offset
      let byte = bytes[offset]
      offset += 1
      if byte == 0x0D, offset < end, bytes[offset] == 0x0A { offset += 1 }
      if byte == UInt8(ascii: "\\"), offset < end {
        let escaped = bytes[offset]
        offset += 1
        if escaped >= UInt8(ascii: "0"), escaped <= UInt8(ascii: "7") {
          var digits = 1
          while digits < 3, offset < end, bytes[offset] >= UInt8(ascii: "0"), bytes[offset] <= UInt8(ascii: "7") {
            offset += 1
            digits += 1
          }
        } else if escaped == 0x0A || escaped == 0x0D {
          // A line continuation: no byte.
          if escaped == 0x0D, offset < end, bytes[offset] == 0x0A { offset += 1 }
          continue
        }
      }
      if !body(start) { return }
    }
  }

  static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
