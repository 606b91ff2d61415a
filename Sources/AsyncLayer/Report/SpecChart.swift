import Foundation

/// `{"type": "bar" | "line", "title", "categories": [...], "series": [{"name", "values", "color"}],
/// "referenceLines": [{"label", "value", "color"}]}`, checked value by value with its path; the
/// length of every list is checked before it is read.
struct SpecChart: Decodable {
  let chart: Chart

  private enum CodingKeys: String, CodingKey, CaseIterable { case type, title, categories, series, referenceLines }

  init(from decoder: any Decoder) throws {
    try ReportSpecKey.rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let kind = try container.decode(SpecChoice<Chart.Kind>.self, forKey: .type).value
    let title = try container.decodeIfPresent(String.self, forKey: .title)
    if container.contains(.categories) {
      try Self.checkCount(
        try container.nestedUnkeyedContainer(forKey: .categories).count,
        at: container.codingPath + [CodingKeys.categories])
    }
    let categories = try container.decodeIfPresent([String].self, forKey: .categories) ?? []
    var list = try container.nestedUnkeyedContainer(forKey: .series)
    let seriesPath = container.codingPath + [CodingKeys.series]
    guard let seriesCount = list.count, seriesCount > 0 else {
      throw DecodingError.invalid("expected at least one series", at: seriesPath)
    }
    guard seriesCount <= Chart.maximumSeries else {
      throw DecodingError.invalid(
        "expected at most \(Chart.maximumSeries) series (got \(seriesCount))", at: seriesPath)
    }
    var series: [Chart.Series] = []
    var total = 0
    while !list.isAtEnd {
      let entry = try list.decode(SpecChartSeries.self)
      total += entry.series.values.count
      try Self.checkCount(
        total, at: seriesPath + [ReportSpecKey(intValue: series.count), SpecChartSeries.CodingKeys.values])
      series.append(entry.series)
    }
    var lines: [Chart.ReferenceLine] = []
    if container.contains(.referenceLines) {
      lines = try container.decode([SpecReferenceLine].self, forKey: .referenceLines).map(\.line)
    }
    chart = Chart(kind: kind, title: title, categories: categories, series: series, referenceLines: lines)
  }

  /// Refuses more than ``Chart/maximumPoints`` values, before they are read.
  static func checkCount(_ count: Int?, at path: [any CodingKey]) throws {
    guard let count, count > Chart.maximumPoints else { return }
    throw DecodingError.invalid(
      "\(count) points, over the limit of \(Chart.maximumPoints) for a chart: aggregate the data first", at: path)
  }

  /// A chart value: finite and within ±1e15, so that scaling it to the page cannot overflow.
  static func checkValue(_ value: Double, at path: [any CodingKey]) throws {
    guard value.isFinite, abs(value) <= 1e15 else {
      throw DecodingError.invalid("expected a finite number within ±1e15 (got \(value))", at: path)
    }
  }
}

/// `{"name", "values": [number or null], "color"}`: null is a gap.
struct SpecChartSeries: Decodable {
  let series: Chart.Series

  enum CodingKeys: String, CodingKey, CaseIterable { case name, values, color }

  init(from decoder: any Decoder) throws {
    try ReportSpecKey.rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let name = try container.decodeIfPresent(String.self, forKey: .name) ?? ""
    var list = try container.nestedUnkeyedContainer(forKey: .values)
    let path = container.codingPath + [CodingKeys.values]
    try SpecChart.checkCount(list.count, at: path)
    guard let count = list.count, count > 0 else {
      throw DecodingError.invalid("expected at least one value (null for a gap)", at: path)
    }
    var values: [Double?] = []
    values.reserveCapacity(count)
    while !list.isAtEnd {
      let index = values.count
      if try list.decodeNil() {
        values.append(nil)
      } else {
        let value = try list.decode(Double.self)
        try SpecChart.checkValue(value, at: path + [ReportSpecKey(intValue: index)])
        values.append(value)
      }
    }
    let color = try container.decodeIfPresent(SpecColor.self, forKey: .color)?.color
    series = Chart.Series(name: name, values: values, color: color)
  }
}

/// `{"label", "value", "color"}`.
struct SpecReferenceLine: Decodable {
  let line: Chart.ReferenceLine

  private enum CodingKeys: String, CodingKey, CaseIterable { case label, value, color }

  init(from decoder: any Decoder) throws {
    try ReportSpecKey.rejectUnknownKeys(in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)))
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let value = try container.decode(Double.self, forKey: .value)
    try SpecChart.checkValue(value, at: container.codingPath + [CodingKeys.value])
    var line = Chart.ReferenceLine(
      label: try container.decodeIfPresent(String.self, forKey: .label) ?? "", value: value)
    if let color = try container.decodeIfPresent(SpecColor.self, forKey: .color)?.color { line.color = color }
    self.line = line
  }
}
