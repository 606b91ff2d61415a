import Foundation

extension DecodingError {
  /// An error at `path` for a value that decodes but makes no sense. It carries the finished
  /// ``ReportSpecError`` so that mapping it back needs no message text.
  static func invalid(_ message: String, at path: [any CodingKey]) -> DecodingError {
    .dataCorrupted(
      Context(
        codingPath: path, debugDescription: message,
        underlyingError: ReportSpecError(path: ReportSpecError.path(path), message: message)))
  }
}

extension KeyedDecodingContainer {
  /// A whole number, read as a JSON number and checked here: Foundation reports `2.5` or `1e300`
  /// for an `Int` as invalid JSON without a path.
  func decodeWholeNumberIfPresent(forKey key: Key) throws -> Int? {
    guard let number = try decodeIfPresent(Double.self, forKey: key) else { return nil }
    guard let whole = Int(exactly: number), abs(whole) <= 1 << 53 else {
      throw DecodingError.invalid("expected a whole number (got \(number))", at: codingPath + [key])
    }
    return whole
  }
}

extension ReportSpec: Decodable {
  private enum CodingKeys: String, CodingKey, CaseIterable {
    case title, page, margins, fonts, font, fontSize, pageNumbers, content
    case header, footer, date, author, subject, keywords, language, tagged, align, stripes, rules
    case widows, orphans, firstHeader, firstFooter, contentsLeaders
  }

  /// Decodes the spec's JSON object, refusing unknown keys; ``init(jsonData:baseDirectory:)`` wraps
  /// this and names the JSON path of any error.
  public init(from decoder: any Decoder) throws {
    try ReportSpecKey.rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
    let container = try decoder.container(keyedBy: CodingKeys.self)
    title = try container.decodeIfPresent(String.self, forKey: .title)
    pageSize = try container.decodeIfPresent(SpecPageSize.self, forKey: .page)?.size
    margins = try container.decodeIfPresent(SpecMargins.self, forKey: .margins)?.insets
    fonts = try container.decodeIfPresent([String].self, forKey: .fonts) ?? []
    fontFamily = try container.decodeIfPresent(String.self, forKey: .font)
    fontSize = try container.decodeIfPresent(Double.self, forKey: .fontSize)
    if let fontSize, !(fontSize > 0 && fontSize <= 1000) {
      throw DecodingError.invalid(
        "expected a font size above 0 and at most 1000 points (got \(fontSize))",
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
      keywords: try container.decodeIfPresent([String].self, forKey: .keywords) ?? [],
      language: try container.decodeIfPresent(String.self, forKey: .language),
      tagged: try container.decodeIfPresent(Bool.self, forKey: .tagged) ?? true)
    alignment = try container.decodeIfPresent(SpecChoice<TextAlignment>.self, forKey: .align)?.value
    tableStripes = try container.decodeIfPresent(SpecColor.self, forKey: .stripes)?.color
    tableRules = try container.decodeIfPresent(SpecChoice<ReportTableRules>.self, forKey: .rules)?.value
    for key in [CodingKeys.widows, .orphans] {
      guard let lines = try container.decodeWholeNumberIfPresent(forKey: key) else { continue }
      guard (1...100).contains(lines) else {
        throw DecodingError.invalid("expected from 1 to 100 lines (got \(lines))", at: container.codingPath + [key])
      }
      if key == .widows { widows = lines } else { orphans = lines }
    }
    firstPageHeader = try container.decodeIfPresent(String.self, forKey: .firstHeader)
    firstPageFooter = try container.decodeIfPresent(String.self, forKey: .firstFooter)
    contentsLeaders = try container.decodeIfPresent(Bool.self, forKey: .contentsLeaders) ?? false
    content = try container.decode([Item].self, forKey: .content)
    baseDirectory = FileManager.default.currentDirectoryPath
  }
}

extension ReportSpec.Item: Decodable {
  private enum CodingKeys: String, CodingKey, CaseIterable {
    case heading, level, paragraph, markup, spans, table, image, scale, pageBreak, contents
    case chart, qrCode, alt, width, height, errorCorrection
    case list, keepTogether, keepWithNext
  }

  private static let kinds: [CodingKeys] = [
    .heading, .paragraph, .markup, .spans, .table, .image, .pageBreak, .contents, .chart, .qrCode, .list,
  ]

  /// Decodes one content item: an object with exactly one of the item keys (`heading`, `paragraph`,
  /// `markup`, `spans`, `table`, `image`, `pageBreak`, `contents`, `chart`, `qrCode`, `list`), and
  /// optionally `keepTogether` and `keepWithNext`.
  public init(from decoder: any Decoder) throws {
    self = try Self.decodeKind(from: decoder)
    let container = try decoder.container(keyedBy: CodingKeys.self)
    var flow: ReportFlow = []
    if try container.decodeIfPresent(Bool.self, forKey: .keepTogether) == true { flow.insert(.keepTogether) }
    if try container.decodeIfPresent(Bool.self, forKey: .keepWithNext) == true { flow.insert(.keepWithNext) }
    if !flow.isEmpty { self = .flow(self, flow) }
  }

  private static func decodeKind(from decoder: any Decoder) throws -> Self {
    try ReportSpecKey.rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
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
    if [.image, .chart, .qrCode].contains(kind) {
      if let figure = try Self.decodeFigure(kind, in: container) { return .figure(figure) }
    } else if let misplaced = [CodingKeys.alt, .width, .height, .errorCorrection].first(where: container.contains) {
      throw DecodingError.invalid(
        "only an image, chart or qrCode item takes \(misplaced.rawValue)", at: container.codingPath + [misplaced])
    }
    switch kind {
    case .heading:
      let level = try container.decodeWholeNumberIfPresent(forKey: .level) ?? 1
      guard (1...6).contains(level) else {
        throw DecodingError.invalid(
          "expected a level from 1 to 6 (got \(level))",
          at: container.codingPath + [CodingKeys.level])
      }
      return .heading(try container.decode(String.self, forKey: .heading), level: level)
    case .paragraph:
      return .paragraph(try container.decode(String.self, forKey: .paragraph))
    case .markup:
      return .markup(try container.decode(String.self, forKey: .markup))
    case .table:
      return .table(try container.decode(SpecTable.self, forKey: .table).table)
    case .spans:
      let spans = try container.decode([SpecSpan].self, forKey: .spans)
      return .spans(spans.reduce(into: AttributedText()) { $0.append($1.text, $1.attributes) })
    case .contents:
      guard try container.decode(Bool.self, forKey: .contents) else {
        throw DecodingError.invalid("expected true", at: container.codingPath + [CodingKeys.contents])
      }
      return .tableOfContents
    case .list:
      return .list(try container.decode(SpecList.self, forKey: .list).list)
    case .image:
      let scale = try container.decodeIfPresent(Double.self, forKey: .scale) ?? 1
      guard scale >= 0.001, scale <= 1000 else {
        throw DecodingError.invalid(
          "expected pixels per point from 0.001 to 1000 (got \(scale))",
          at: container.codingPath + [CodingKeys.scale])
      }
      return .image(path: try container.decode(String.self, forKey: .image), scale: scale)
    default:
      guard try container.decode(Bool.self, forKey: .pageBreak) else {
        throw DecodingError.invalid("expected true", at: container.codingPath + [CodingKeys.pageBreak])
      }
      return .pageBreak
    }
  }

  /// A figure item (`chart`, `qrCode`, or an `image` with `alt`, `width` or `height`); nil for a
  /// plain `image`, which stays ``ReportSpec/Item/image(path:scale:)``.
  private static func decodeFigure(_ kind: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>) throws
    -> ReportSpec.Figure?
  {
    let alt = try container.decodeIfPresent(String.self, forKey: .alt)
    var sides: [Double?] = []
    for key in [CodingKeys.width, .height] {
      let side = try container.decodeIfPresent(Double.self, forKey: key)
      if let side, !(side >= 1 && side <= 14_400) {
        throw DecodingError.invalid(
          "expected a size from 1 to 14400 points (got \(side))", at: container.codingPath + [key])
      }
      sides.append(side)
    }
    if kind != .qrCode, container.contains(.errorCorrection) {
      throw DecodingError.invalid(
        "only a qrCode item takes errorCorrection", at: container.codingPath + [CodingKeys.errorCorrection])
    }
    if kind != .image, container.contains(.scale) {
      throw DecodingError.invalid("only an image item takes scale", at: container.codingPath + [CodingKeys.scale])
    }
    let source: ReportSpec.Figure.Source
    switch kind {
    case .chart:
      source = .chart(try container.decode(SpecChart.self, forKey: .chart).chart)
    case .qrCode:
      let level =
        try container.decodeIfPresent(SpecChoice<QRCode.ErrorCorrection>.self, forKey: .errorCorrection)?.value
        ?? .medium
      source = .qrCode(try container.decode(String.self, forKey: .qrCode), errorCorrection: level)
    default:
      guard alt != nil || sides.contains(where: { $0 != nil }) else { return nil }
      let scale = try container.decodeIfPresent(Double.self, forKey: .scale) ?? 1
      guard scale >= 0.001, scale <= 1000 else {
        throw DecodingError.invalid(
          "expected pixels per point from 0.001 to 1000 (got \(scale))", at: container.codingPath + [CodingKeys.scale])
      }
      source = .file(path: try container.decode(String.self, forKey: .image), scale: scale)
    }
    return ReportSpec.Figure(source, width: sides[0], height: sides[1], alternativeText: alt)
  }
}
