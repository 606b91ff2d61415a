import Foundation

/// A number for all sides, or `{"top", "left", "bottom", "right"}` (missing sides are 0).
struct SpecMargins: Decodable {
  let insets: EdgeInsets

  private enum CodingKeys: String, CodingKey, CaseIterable { case top, left, bottom, right }

  init(from decoder: any Decoder) throws {
    if let all = try? decoder.singleValueContainer().decode(Double.self) {
      guard all >= 0, all <= 14_400 else {
        throw DecodingError.invalid("expected a margin from 0 to 14400 points (got \(all))", at: decoder.codingPath)
      }
      insets = EdgeInsets(all: all)
      return
    }
    try ReportSpecKey.rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
    let container = try decoder.container(keyedBy: CodingKeys.self)
    var sides: [Double] = []
    for key in CodingKeys.allCases {
      let value = try container.decodeIfPresent(Double.self, forKey: key) ?? 0
      guard value >= 0, value <= 14_400 else {
        throw DecodingError.invalid(
          "expected a margin from 0 to 14400 points (got \(value))",
          at: container.codingPath + [key])
      }
      sides.append(value)
    }
    insets = EdgeInsets(top: sides[0], left: sides[1], bottom: sides[2], right: sides[3])
  }
}
