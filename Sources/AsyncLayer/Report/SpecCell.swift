import Foundation

/// One table cell in a spec: a string, or `{"text": …, "colspan": 2, "rowspan": 1, "fill": "#fe0",
/// "bold": true, "color": "…", "align": "right"}`. Spans are checked against the table where the
/// cell is placed (``SpecTable``).
struct SpecCell: Decodable {
  let text: String
  let options: ReportTableCell?
  /// Where the cell is in the JSON, for errors about its span.
  let codingPath: [any CodingKey]

  private enum CodingKeys: String, CodingKey, CaseIterable { case text, colspan, rowspan, fill, bold, color, align }

  init(from decoder: any Decoder) throws {
    codingPath = decoder.codingPath
    let single = try decoder.singleValueContainer()
    let stringError: any Error
    do {
      text = try single.decode(String.self)
      options = nil
      return
    } catch {
      stringError = error
    }
    guard let container = try? decoder.container(keyedBy: CodingKeys.self) else {
      // Neither a string nor an object: report it as a string was expected, as before cells had options.
      throw stringError
    }
    try ReportSpecKey.rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
    text = try container.decodeIfPresent(String.self, forKey: .text) ?? ""
    var cell = ReportTableCell()
    for key in [CodingKeys.colspan, .rowspan] {
      guard let span = try container.decodeWholeNumberIfPresent(forKey: key) else { continue }
      guard span >= 1 else {
        throw DecodingError.invalid("expected a span of at least 1 (got \(span))", at: container.codingPath + [key])
      }
      if key == .colspan { cell.columnSpan = span } else { cell.rowSpan = span }
    }
    cell.fill = try container.decodeIfPresent(SpecColor.self, forKey: .fill)?.color
    cell.isBold = try container.decodeIfPresent(Bool.self, forKey: .bold)
    cell.color = try container.decodeIfPresent(SpecColor.self, forKey: .color)?.color
    cell.alignment = try container.decodeIfPresent(SpecChoice<ReportColumnAlignment>.self, forKey: .align)?.value
    options = cell
  }

  /// The path of this cell's `key` (`spec.content[3].table.rows[12][1].colspan`).
  func path(_ key: String) -> [any CodingKey] { codingPath + [ReportSpecKey(stringValue: key)] }
}
