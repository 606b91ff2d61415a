import Foundation

/// One span of a `spans` paragraph: `{"text": "terms", "bold": true, "link": "https://…"}`.
struct SpecSpan: Decodable {
  let text: String
  let attributes: TextAttributes

  private enum CodingKeys: String, CodingKey, CaseIterable {
    case text, font, size, bold, weight, italic, color, background, underline, strikethrough, letterSpacing
    case baselineShift, link
  }

  init(from decoder: any Decoder) throws {
    try ReportSpecKey.rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
    let container = try decoder.container(keyedBy: CodingKeys.self)
    text = try container.decode(String.self, forKey: .text)
    var attributes = TextAttributes()
    attributes.fontFamily = try container.decodeIfPresent(String.self, forKey: .font)
    attributes.fontSize = try container.decodeIfPresent(Double.self, forKey: .size)
    if try container.decodeIfPresent(Bool.self, forKey: .bold) == true { attributes.weight = .bold }
    if let weight = try container.decodeWholeNumberIfPresent(forKey: .weight) {
      guard let known = FontWeight(rawValue: weight) else {
        throw DecodingError.invalid(
          "expected a weight of \(FontWeight.allCases.map { "\($0.rawValue)" }.joined(separator: ", ")) (got \(weight))",
          at: container.codingPath + [CodingKeys.weight])
      }
      attributes.weight = known
    }
    attributes.isItalic = try container.decodeIfPresent(Bool.self, forKey: .italic)
    attributes.color = try container.decodeIfPresent(SpecColor.self, forKey: .color)?.color
    attributes.backgroundColor = try container.decodeIfPresent(SpecColor.self, forKey: .background)?.color
    if let underline = try? container.decodeIfPresent(Bool.self, forKey: .underline) {
      attributes.underline = underline ? .single : TextAttributes.Underline.none
    } else {
      attributes.underline = try container.decodeIfPresent(
        SpecChoice<TextAttributes.Underline>.self, forKey: .underline)?
        .value
    }
    attributes.strikethrough = try container.decodeIfPresent(Bool.self, forKey: .strikethrough)
    attributes.letterSpacing = try container.decodeIfPresent(Double.self, forKey: .letterSpacing)
    attributes.baselineShift = try container.decodeIfPresent(Double.self, forKey: .baselineShift)
    attributes.link = try container.decodeIfPresent(String.self, forKey: .link)
    self.attributes = attributes
  }
}
