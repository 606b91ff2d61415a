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
    case header, footer, date, author, subject, keywords, align, stripes, rules
  }

  /// Decodes the spec's JSON object, refusing unknown keys; ``init(jsonData:baseDirectory:)`` wraps
  /// this and names the JSON path of any error.
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
    header = try container.decodeIfPresent(String.self, forKey: .header)
    footer = try container.decodeIfPresent(String.self, forKey: .footer)
    date = try container.decodeIfPresent(String.self, forKey: .date).map { text in
      let formatter = ISO8601DateFormatter()
      let day = ISO8601DateFormatter()
      day.formatOptions = [.withFullDate]
      guard let date = formatter.date(from: text) ?? day.date(from: text) else {
        throw DecodingError.invalid(
          #"expected an ISO 8601 date such as "2024-03-05" (got "\#(text)")"#,
          at: container.codingPath + [CodingKeys.date])
      }
      return date
    }
    metadata = ReportMetadata(
      author: try container.decodeIfPresent(String.self, forKey: .author),
      subject: try container.decodeIfPresent(String.self, forKey: .subject),
      keywords: try container.decodeIfPresent([String].self, forKey: .keywords) ?? [])
    alignment = try container.decodeIfPresent(SpecChoice<TextAlignment>.self, forKey: .align)?.value
    tableStripes = try container.decodeIfPresent(SpecColor.self, forKey: .stripes)?.color
    tableRules = try container.decodeIfPresent(SpecChoice<ReportTableRules>.self, forKey: .rules)?.value
    content = try container.decode([Item].self, forKey: .content)
    baseDirectory = FileManager.default.currentDirectoryPath
  }
}

extension ReportSpec.Item: Decodable {
  private enum CodingKeys: String, CodingKey, CaseIterable {
    case heading, level, paragraph, markup, spans, table, image, scale, pageBreak, contents
  }

  private static let kinds: [CodingKeys] = [
    .heading, .paragraph, .markup, .spans, .table, .image, .pageBreak, .contents,
  ]

  /// Decodes one content item: an object with exactly one of the item keys (`heading`, `paragraph`,
  /// `markup`, `spans`, `table`, `image`, `pageBreak`, `contents`).
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
    case .spans:
      let spans = try container.decode([SpecSpan].self, forKey: .spans)
      self = .spans(spans.reduce(into: AttributedText()) { $0.append($1.text, $1.attributes) })
    case .contents:
      guard try container.decode(Bool.self, forKey: .contents) else {
        throw DecodingError.invalid("expected true", at: container.codingPath + [CodingKeys.contents])
      }
      self = .tableOfContents
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

  private enum CodingKeys: String, CodingKey, CaseIterable { case columns, widths, rows, align, formats }

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

/// One of an enumeration's words (`"natural"`, `"right"`, …), with the list in the error.
private struct SpecChoice<Value: RawRepresentable<String> & CaseIterable>: Decodable {
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

/// A colour: "#rgb", "#rrggbb", "#rrggbbaa" or a name.
private struct SpecColor: Decodable {
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

/// A column format: `"text"`, `"number"`, `"currency"`, `"percent"`, `"date"`, or an object
/// `{"format": "currency", "symbol": "€", "decimals": 2}` (`pattern` for dates).
private struct SpecFormat: Decodable {
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
      try rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
      let container = try decoder.container(keyedBy: CodingKeys.self)
      name = try container.decode(String.self, forKey: .format)
      decimals = try container.decodeIfPresent(Int.self, forKey: .decimals)
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

/// One span of a `spans` paragraph: `{"text": "terms", "bold": true, "link": "https://…"}`.
private struct SpecSpan: Decodable {
  let text: String
  let attributes: TextAttributes

  private enum CodingKeys: String, CodingKey, CaseIterable {
    case text, font, size, bold, weight, italic, color, background, underline, strikethrough, letterSpacing
    case baselineShift, link
  }

  init(from decoder: any Decoder) throws {
    try rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
    let container = try decoder.container(keyedBy: CodingKeys.self)
    text = try container.decode(String.self, forKey: .text)
    var attributes = TextAttributes()
    attributes.fontFamily = try container.decodeIfPresent(String.self, forKey: .font)
    attributes.fontSize = try container.decodeIfPresent(Double.self, forKey: .size)
    if try container.decodeIfPresent(Bool.self, forKey: .bold) == true { attributes.weight = .bold }
    if let weight = try container.decodeIfPresent(Int.self, forKey: .weight) {
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
