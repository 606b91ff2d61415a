import Foundation

/// A colour: "#rgb", "#rrggbb", "#rrggbbaa" or a name.
struct SpecColor: Decodable {
  let color: Color

  init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    do {
      color = try Color(parsing: text)
    } catch {
      throw DecodingError.invalid("\(error)", at: decoder.codingPath)
    }
  }
}
