import Foundation

/// `{"items": ["…", {"text": "…", "list": {…}}], "numbered": true, "start": 1}`: a list, its nesting
/// and item count checked before its items are decoded.
struct SpecList: Decodable {
  let list: ReportList

  private enum CodingKeys: String, CodingKey, CaseIterable { case items, numbered, start }

  init(from decoder: any Decoder) throws {
    try ReportSpecKey.rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
    let container = try decoder.container(keyedBy: CodingKeys.self)
    // Each level of nesting adds a "list" key to the path.
    let depth = decoder.codingPath.filter { $0.intValue == nil && $0.stringValue == "list" }.count
    guard depth <= ReportList.maximumDepth else {
      throw DecodingError.invalid(
        "lists nest at most \(ReportList.maximumDepth) levels deep (this is level \(depth))", at: decoder.codingPath)
    }
    if let count = try? container.nestedUnkeyedContainer(forKey: .items).count, count > ReportList.maximumItems {
      throw DecodingError.invalid(
        "expected at most \(ReportList.maximumItems) items (got \(count)); split the list",
        at: container.codingPath + [CodingKeys.items])
    }
    let start = try container.decodeWholeNumberIfPresent(forKey: .start) ?? 1
    guard abs(start) <= 1_000_000_000 else {
      throw DecodingError.invalid(
        "expected a start number from -1000000000 to 1000000000 (got \(start))",
        at: container.codingPath + [CodingKeys.start])
    }
    list = ReportList(
      numbered: try container.decodeIfPresent(Bool.self, forKey: .numbered) ?? false, start: start,
      items: try container.decode([SpecListItem].self, forKey: .items).map(\.item))
  }
}

/// One list item: a string, or `{"text" | "markup": …, "list": {…}}`.
struct SpecListItem: Decodable {
  let item: ReportListItem

  private enum CodingKeys: String, CodingKey, CaseIterable { case text, markup, list }

  init(from decoder: any Decoder) throws {
    if let text = try? decoder.singleValueContainer().decode(String.self) {
      item = ReportListItem(text)
      return
    }
    let container: KeyedDecodingContainer<CodingKeys>
    do {
      container = try decoder.container(keyedBy: CodingKeys.self)
    } catch DecodingError.typeMismatch(_, let context) {
      throw DecodingError.invalid("expected a string or an object with text or markup", at: context.codingPath)
    }
    try ReportSpecKey.rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
    let sublist = try container.decodeIfPresent(SpecList.self, forKey: .list)?.list
    switch (
      try container.decodeIfPresent(String.self, forKey: .text),
      try container.decodeIfPresent(String.self, forKey: .markup)
    ) {
    case (let text?, nil): item = ReportListItem(.plain(text), sublist: sublist)
    case (nil, let markup?): item = ReportListItem(.markup(markup), sublist: sublist)
    default:
      throw DecodingError.invalid("expected one of text and markup", at: container.codingPath)
    }
  }
}
