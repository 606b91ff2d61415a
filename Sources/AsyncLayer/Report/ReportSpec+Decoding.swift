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
}

extension DecodingError {
  /// An error at `container`'s path plus `keys`, for values that decode but make no sense.
  static func invalid(_ message: String, at path: [any CodingKey]) -> DecodingError {
    .dataCorrupted(Context(codingPath: path, debugDescription: message))
  }
}

/// Throws for a key of the object being decoded that is not in `known`, so that a typo such as
/// `"paragrph"` is reported instead of silently dropped.
private func rejectUnknownKeys(in decoder: any Decoder, known: Set<String>) throws {
  let container = try decoder.container(keyedBy: ReportSpecKey.self)
  for key in container.allKeys where !known.contains(key.stringValue) {
    throw DecodingError.invalid(
      "unknown key; expected one of \(known.sorted().joined(separator: ", "))", at: container.codingPath + [key])
  }
}

extension ReportSpec: Decodable {
  private enum CodingKeys: String, CodingKey, CaseIterable {
    case title, page, margins, fonts, font, fontSize, pageNumbers, content
  }

  public init(from decoder: any Decoder) throws {
    try rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
    let container = try decoder.container(keyedBy: CodingKeys.self)
    title = try container.decodeIfPresent(String.self, forKey: .title)
    pageSize = try container.decodeIfPresent(SpecPageSize.self, forKey: .page)?.size
    margins = try container.decodeIfPresent(SpecMargins.self, forKey: .margins)?.insets
    fonts = try container.decodeIfPresent([String].self, forKey: .fonts) ?? []
    fontFamily = try container.decodeIfPresent(String.self, forKey: .font)
    fontSize = try container.decodeIfPresent(Double.self, forKey: .fontSize)
    if let fontSize, !(fontSize > 0 && fontSize <= 1000) {
      throw DecodingError.invalid(
        "expected a font size in points, above 0 (got \(fontSize))",
        at: container.codingPath + [CodingKeys.fontSize])
    }
    showsPageNumbers = try container.decodeIfPresent(Bool.self, forKey: .pageNumbers) ?? true
    content = try container.decode([Item].self, forKey: .content)
    baseDirectory = FileManager.default.currentDirectoryPath
  }
}

extension ReportSpec.Item: Decodable {
  private enum CodingKeys: String, CodingKey, CaseIterable {
    case heading, level, paragraph, markup, table, image, scale, pageBreak
  }

  private static let kinds: [CodingKeys] = [.heading, .paragraph, .markup, .table, .image, .pageBreak]

  public init(from decoder: any Decoder) throws {
    try rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let present = Self.kinds.filter(container.contains)
    guard present.count == 1, let kind = present.first else {
      let names = Self.kinds.map(\.rawValue).joined(separator: ", ")
      throw DecodingError.invalid(
        present.isEmpty
          ? "expected one of \(names)"
          : "expected only one of \(names), found "
            + present.map(\.rawValue).joined(separator: " and "), at: container.codingPath)
    }
    switch kind {
    case .heading:
      let level = try container.decodeIfPresent(Int.self, forKey: .level) ?? 1
      guard (1...6).contains(level) else {
        throw DecodingError.invalid(
          "expected a level from 1 to 6 (got \(level))",
          at: container.codingPath + [CodingKeys.level])
      }
      self = .heading(try container.decode(String.self, forKey: .heading), level: level)
    case .paragraph:
      self = .paragraph(try container.decode(String.self, forKey: .paragraph))
    case .markup:
      self = .markup(try container.decode(String.self, forKey: .markup))
    case .table:
      self = .table(try container.decode(SpecTable.self, forKey: .table).table)
    case .image:
      let scale = try container.decodeIfPresent(Double.self, forKey: .scale) ?? 1
      guard scale > 0, scale.isFinite else {
        throw DecodingError.invalid(
          "expected a positive number of pixels per point (got \(scale))",
          at: container.codingPath + [CodingKeys.scale])
      }
      self = .image(path: try container.decode(String.self, forKey: .image), scale: scale)
    default:
      guard try container.decode(Bool.self, forKey: .pageBreak) else {
        throw DecodingError.invalid("expected true", at: container.codingPath + [CodingKeys.pageBreak])
      }
      self = .pageBreak
    }
  }
}

/// `"a4"`, `"letter"` or `{"width": …, "height": …}`.
private struct SpecPageSize: Decodable {
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
    try rejectUnknownKeys(in: decoder, known: ["width", "height"])
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let width = try container.decode(Double.self, forKey: .width)
    let height = try container.decode(Double.self, forKey: .height)
    for (key, value) in [(CodingKeys.width, width), (.height, height)] where !(value > 0 && value <= 14_400) {
      throw DecodingError.invalid(
        "expected a size in points from 1 to 14400 (got \(value))",
        at: container.codingPath + [key])
    }
    size = Size(width: width, height: height)
  }
}

/// A number for all sides, or `{"top", "left", "bottom", "right"}` (missing sides are 0).
private struct SpecMargins: Decodable {
  let insets: EdgeInsets

  private enum CodingKeys: String, CodingKey, CaseIterable { case top, left, bottom, right }

  init(from decoder: any Decoder) throws {
    if let all = try? decoder.singleValueContainer().decode(Double.self) {
      guard all >= 0, all.isFinite else {
        throw DecodingError.invalid("expected a margin of 0 points or more (got \(all))", at: decoder.codingPath)
      }
      insets = EdgeInsets(all: all)
      return
    }
    try rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
    let container = try decoder.container(keyedBy: CodingKeys.self)
    var sides: [Double] = []
    for key in CodingKeys.allCases {
      let value = try container.decodeIfPresent(Double.self, forKey: key) ?? 0
      guard value >= 0, value.isFinite else {
        throw DecodingError.invalid(
          "expected a margin of 0 points or more (got \(value))",
          at: container.codingPath + [key])
      }
      sides.append(value)
    }
    insets = EdgeInsets(top: sides[0], left: sides[1], bottom: sides[2], right: sides[3])
  }
}

/// `{"columns": [...], "widths": [...], "rows": [[...]]}`, checked for shape.
private struct SpecTable: Decodable {
  let table: ReportTable

  private enum CodingKeys: String, CodingKey, CaseIterable { case columns, widths, rows }

  init(from decoder: any Decoder) throws {
    try rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
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
    table = ReportTable(columns: columns, widths: widths, rows: rows)
  }
}
