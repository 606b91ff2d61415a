import Foundation

/// `{"columns": [...], "widths": [...], "rows": [[...]]}`, checked for shape.
struct SpecTable: Decodable {
  let table: ReportTable

  private enum CodingKeys: String, CodingKey, CaseIterable { case columns, widths, rows, align, formats }

  init(from decoder: any Decoder) throws {
    try ReportSpecKey.rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let columns = try container.decode([String].self, forKey: .columns)
    guard !columns.isEmpty else {
      throw DecodingError.invalid("expected at least one column", at: container.codingPath + [CodingKeys.columns])
    }
    let widths = try container.decodeIfPresent([Double].self, forKey: .widths)
    if let widths {
      guard widths.count == columns.count else {
        throw DecodingError.invalid(
          "expected \(columns.count) widths, one per column (got \(widths.count))",
          at: container.codingPath + [CodingKeys.widths])
      }
      if let bad = widths.firstIndex(where: { !($0 > 0 && $0.isFinite) }) {
        throw DecodingError.invalid(
          "expected a positive relative width (got \(widths[bad]))",
          at: container.codingPath + [CodingKeys.widths, ReportSpecKey(intValue: bad)])
      }
    }
    let rows = try container.decode([[String]].self, forKey: .rows)
    if let bad = rows.firstIndex(where: { $0.count > columns.count }) {
      throw DecodingError.invalid(
        "\(rows[bad].count) cells, but the table has \(columns.count) columns",
        at: container.codingPath + [CodingKeys.rows, ReportSpecKey(intValue: bad)])
    }
    var table = ReportTable(columns: columns, widths: widths, rows: rows)
    for key in [CodingKeys.align, .formats] {
      guard let count = try? container.nestedUnkeyedContainer(forKey: key).count, count > columns.count else {
        continue
      }
      throw DecodingError.invalid(
        "expected at most \(columns.count) entries, one per column (got \(count))", at: container.codingPath + [key])
    }
    table.alignments =
      try container.decodeIfPresent([SpecChoice<ReportColumnAlignment>].self, forKey: .align)?
      .map(\.value) ?? []
    table.formats = try container.decodeIfPresent([SpecFormat].self, forKey: .formats)?.map(\.format) ?? []
    self.table = table
  }
}
