import Foundation

/// A column format: `"text"`, `"number"`, `"currency"`, `"percent"`, `"date"`, or an object
/// `{"format": "currency", "symbol": "€", "decimals": 2}` (`pattern` for dates).
struct SpecFormat: Decodable {
  let format: ReportColumnFormat

  private enum CodingKeys: String, CodingKey, CaseIterable { case format, decimals, symbol, pattern }

  init(from decoder: any Decoder) throws {
    var name: String
    var decimals: Int?
    var symbol: String?
    var pattern: String?
    if let word = try? decoder.singleValueContainer().decode(String.self) {
      name = word
    } else {
      try ReportSpecKey.rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
      let container = try decoder.container(keyedBy: CodingKeys.self)
      name = try container.decode(String.self, forKey: .format)
      decimals = try container.decodeWholeNumberIfPresent(forKey: .decimals)
      if let decimals, !(0...ReportColumnFormat.maximumDecimals).contains(decimals) {
        throw DecodingError.invalid(
          "expected 0 to \(ReportColumnFormat.maximumDecimals) decimals (got \(decimals))",
          at: container.codingPath + [CodingKeys.decimals])
      }
      symbol = try container.decodeIfPresent(String.self, forKey: .symbol)
      pattern = try container.decodeIfPresent(String.self, forKey: .pattern)
      if let pattern, pattern.isEmpty || pattern.count > 64 {
        throw DecodingError.invalid(
          "expected a date pattern of 1 to 64 characters", at: container.codingPath + [CodingKeys.pattern])
      }
    }
    switch name {
    case "text": format = .text
    case "number": format = .number(decimals: decimals ?? 0)
    case "currency": format = .currency(symbol: symbol ?? "", decimals: decimals ?? 2)
    case "percent": format = .percent(decimals: decimals ?? 0)
    case "date": format = .date(pattern: pattern ?? "yyyy-MM-dd")
    default:
      throw DecodingError.invalid(
        #"expected a format of text, number, currency, percent or date (got "\#(name)")"#, at: decoder.codingPath)
    }
  }
}
