import Foundation

/// One of an enumeration's words (`"natural"`, `"right"`, …), with the list in the error.
struct SpecChoice<Value: RawRepresentable<String> & CaseIterable>: Decodable {
  let value: Value

  init(from decoder: any Decoder) throws {
    let word = try decoder.singleValueContainer().decode(String.self)
    guard let value = Value(rawValue: word) else {
      throw DecodingError.invalid(
        "expected one of \(Value.allCases.map(\.rawValue).joined(separator: ", ")) (got \"\(word)\")",
        at: decoder.codingPath)
    }
    self.value = value
  }
}
