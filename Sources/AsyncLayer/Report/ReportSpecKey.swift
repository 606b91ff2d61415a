import Foundation

/// A coding key for any name or index, to report unknown keys and indexed paths.
struct ReportSpecKey: CodingKey, Hashable {
  let stringValue: String
  let intValue: Int?

  init(stringValue: String) {
    self.stringValue = stringValue
    self.intValue = nil
  }

  init(intValue: Int) {
    self.stringValue = "\(intValue)"
    self.intValue = intValue
  }

  /// Throws for a key of the object being decoded that is not in `known`, so that a typo such as
  /// `"paragrph"` is reported instead of silently dropped.
  static func rejectUnknownKeys(in decoder: any Decoder, known: Set<String>) throws {
    let container = try decoder.container(keyedBy: ReportSpecKey.self)
    for key in container.allKeys where !known.contains(key.stringValue) {
      throw DecodingError.invalid(
        "unknown key; expected one of \(known.sorted().joined(separator: ", "))", at: container.codingPath + [key])
    }
  }
}
