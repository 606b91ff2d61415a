import Foundation

/// How the cells of a table column are written: as given, or as numbers, money, percentages or
/// dates parsed from the cell text. A cell that does not parse is shown as given.
///
/// ```swift
/// var table = ReportTable(columns: ["Item", "Price", "Share", "Due"], rows: [["Paper", "1234.5", "0.125", "2024-03-05"]])
/// table.formats = [.text, .currency(symbol: "€", decimals: 2), .percent(decimals: 1), .date(pattern: "d MMM yyyy")]
/// // "Paper", "€1,234.50", "12.5%", "5 Mar 2024"
/// ```
public enum ReportColumnFormat: Sendable, Hashable {
  /// The cell text as it is.
  case text
  /// A number with thousands separators and a fixed number of decimals: "1234.5" → "1,234.50".
  case number(decimals: Int)
  /// Money: the symbol before the number ("€1,234.50", "-€3.00").
  case currency(symbol: String, decimals: Int)
  /// A fraction as a percentage: "0.125" → "12.5%" with 1 decimal.
  case percent(decimals: Int)
  /// An ISO 8601 date ("2024-03-05", or a full timestamp) written with a Unicode date pattern
  /// ("d MMM yyyy" → "5 Mar 2024"), in English and UTC.
  case date(pattern: String)

  /// The most decimals a format may ask for.
  public static let maximumDecimals = 10

  /// `cell` written in this format, or `cell` itself when it does not parse.
  ///
  /// ```swift
  /// ReportColumnFormat.number(decimals: 0).format("1234567")  // "1,234,567"
  /// ```
  public func format(_ cell: String) -> String { makeFormatter()(cell) }

  /// A function that formats cells, its date formatters made once (a table formats a column with
  /// one).
  func makeFormatter() -> (String) -> String {
    switch self {
    case .text:
      return { $0 }
    case .number(let decimals):
      return { cell in Self.number(cell).map { Self.grouped($0, decimals: decimals) } ?? cell }
    case .currency(let symbol, let decimals):
      return { cell in
        guard let value = Self.number(cell) else { return cell }
        let digits = Self.grouped(value, decimals: decimals)
        return digits.hasPrefix("-") ? "-" + symbol + digits.dropFirst() : symbol + digits
      }
    case .percent(let decimals):
      return { cell in Self.number(cell).map { Self.grouped($0 * 100, decimals: decimals) + "%" } ?? cell }
    case .date(let pattern):
      let timestamp = ISO8601DateFormatter()
      let output = DateFormatter()
      output.locale = Locale(identifier: "en_US_POSIX")
      output.timeZone = TimeZone(identifier: "UTC")
      output.dateFormat = pattern
      return { cell in
        let text =
          cell.first?.isWhitespace == true || cell.last?.isWhitespace == true
          ? cell.trimmingCharacters(in: .whitespaces) : cell
        // Foundation's ISO 8601 parser costs ~0.5 M instructions a call: plain days are read here.
        guard let date = Self.day(text) ?? (text.count > 10 ? timestamp.date(from: text) : nil) else { return cell }
        return output.string(from: date)
      }
    }
  }

  /// A "yyyy-MM-dd" day at midnight UTC, or nil for anything else (an impossible day included).
  static func day(_ text: String) -> Date? {
    let bytes = Array(text.utf8)
    guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for byte in bytes[range] {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), (1...12).contains(month)
    else { return nil }
    let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let lengths = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    guard (1...lengths[month - 1]).contains(day) else { return nil }
    // Days from 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468
    return Date(timeIntervalSince1970: Double(days) * 86_400)
  }

  /// A finite number in plain notation ("1234.5", "-3", "1e3"); thousands separators are refused
  /// so that "1,5" is not read as 15.
  private static func number(_ cell: String) -> Double? {
    guard let value = Double(cell) ?? Double(cell.trimmingCharacters(in: .whitespaces)), value.isFinite,
      abs(value) < 1e15
    else {
      return nil
    }
    return value
  }

  /// `units` (|value| × 10^`places`, rounded) as `grouped` writes it: the integer part with a comma
  /// every three digits, `places` decimals, and a minus sign when `negative` and not zero.
  private static func groupedBytes(units: Int64, places: Int, negative: Bool) -> String {
    var reversed: [UInt8] = []  // least significant digit first, at least one before the point
    reversed.reserveCapacity(20 + places)
    var rest = units
    repeat {
      reversed.append(UInt8(ascii: "0") + UInt8(rest % 10))
      rest /= 10
    } while rest > 0
    while reversed.count < places + 1 { reversed.append(UInt8(ascii: "0")) }
    let integerDigits = reversed.count - places
    var text: [UInt8] = []
    text.reserveCapacity(reversed.count + integerDigits / 3 + 2)
    // "-0.00" is written "0.00".
    if negative && units != 0 { text.append(UInt8(ascii: "-")) }
    for index in 0..<integerDigits {
      if index > 0 && (integerDigits - index) % 3 == 0 { text.append(UInt8(ascii: ",")) }
      text.append(reversed[reversed.count - 1 - index])
    }
    if places > 0 {
      text.append(UInt8(ascii: "."))
      for index in 0..<places { text.append(reversed[places - 1 - index]) }
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// `value` with `decimals` decimals and a comma every three digits of its integer part.
  static func grouped(_ value: Double, decimals: Int) -> String {
    let places = min(max(decimals, 0), maximumDecimals)
    let scale = pow(10, Double(places))
    if abs(value) * scale < 1e15 {
      // Exact in a Double and an Int64: the digits written straight into bytes, without
      // String(format:) or string edits (a table's money column formats thousands of cells).
      // NaN and the infinities fail the test and take the String(format:) path below.
      return groupedBytes(units: Int64((abs(value) * scale).rounded()), places: places, negative: value < 0)
    }
    let fixed = String(format: "%.\(places)f", value)
    let negative = fixed.hasPrefix("-")
    let unsigned = negative ? String(fixed.dropFirst()) : fixed
    let parts = unsigned.split(separator: ".", maxSplits: 1)
    let integer = Array(parts[0])
    var groupedDigits = ""
    for (index, digit) in integer.enumerated() {
      if index > 0 && (integer.count - index) % 3 == 0 { groupedDigits.append(",") }
      groupedDigits.append(digit)
    }
    let fraction = parts.count > 1 ? "." + parts[1] : ""
    // "-0.00" is written "0.00".
    let isZero = !unsigned.contains { $0 != "0" && $0 != "." }
    return (negative && !isZero ? "-" : "") + groupedDigits + fraction
  }
}
