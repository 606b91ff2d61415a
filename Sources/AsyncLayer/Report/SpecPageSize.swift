import Foundation

/// `"a4"`, `"letter"` or `{"width": …, "height": …}`.
struct SpecPageSize: Decodable {
  let size: Size

  private enum CodingKeys: String, CodingKey, CaseIterable { case width, height }

  init(from decoder: any Decoder) throws {
    if let name = try? decoder.singleValueContainer().decode(String.self) {
      switch name.lowercased() {
      case "a4": size = .a4
      case "letter": size = .letter
      default:
        throw DecodingError.invalid(
          #"expected "a4", "letter" or {"width": …, "height": …} (got "\#(name)")"#,
          at: decoder.codingPath)
      }
      return
    }
    try ReportSpecKey.rejectUnknownKeys(in: decoder, known: ["width", "height"])
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let width = try container.decode(Double.self, forKey: .width)
    let height = try container.decode(Double.self, forKey: .height)
    for (key, value) in [(CodingKeys.width, width), (.height, height)] where !(value >= 1 && value <= 14_400) {
      throw DecodingError.invalid(
        "expected a size in points from 1 to 14400 (got \(value))",
        at: container.codingPath + [key])
    }
    size = Size(width: width, height: height)
  }
}
