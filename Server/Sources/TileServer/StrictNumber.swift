/// Numbers from a query string, read strictly: decimal notation only, finite, in range.
///
/// `Double("nan")`, `Double("inf")` and `Double("1e400")` (infinity) all succeed in Swift; a
/// request's numbers must not, so the text is checked character by character first.
enum StrictNumber {
  /// `-?digits[.digits][e[+-]digits]`, at most 64 characters, and finite once converted.
  static func double(_ text: Substring, field: String) throws(RequestError) -> Double {
    guard isDecimal(text), let value = Double(text), value.isFinite else {
      throw .bad(field, "must be a finite decimal number (got '\(text.prefix(40))')")
    }
    return value
  }

  /// A whole number within `range`.
  static func integer(_ text: Substring, field: String, _ range: ClosedRange<Int>) throws(RequestError) -> Int {
    let value = try double(text, field: field)
    guard value == value.rounded(), value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
      throw .bad(
        field, "must be a whole number from \(range.lowerBound) to \(range.upperBound) (got '\(text.prefix(40))')")
    }
    return Int(value)
  }

  static func isDecimal(_ text: Substring) -> Bool {
    let bytes = Array(text.utf8)
    guard !bytes.isEmpty, bytes.count <= 64 else { return false }
    var index = 0
    func digits() -> Int {
      let start = index
      while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
      return index - start
    }
    if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
    var mantissa = digits()
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      mantissa += digits()
    }
    guard mantissa > 0 else { return false }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
      guard digits() > 0 else { return false }
    }
    return index == bytes.count
  }
}
