/// A bar or line chart of numbers, drawn by ``DrawingContext/draw(_:in:)-(Chart,_)`` as vectors:
/// axes, a value scale with round tick values, category labels, a legend when there are several
/// series, in one font.
///
/// A `nil` value is a gap: no bar, and a break in the line. NaN and infinite values are refused
/// (``validate()``), as are empty series and more than ``maximumPoints`` values.
///
/// ```swift
/// let chart = Chart(
///   kind: .bar, title: "Sales by quarter", categories: ["Q1", "Q2", "Q3", "Q4"],
///   series: [Chart.Series(name: "North", values: [12, 15, 14, 18]),
///            Chart.Series(name: "South", values: [9, 11, nil, 13])])
/// try chart.validate()
/// let image = try ImageRenderer(size: Size(width: 480, height: 270), scale: 2).render { context in
///   context.clear(to: .white)
///   context.draw(chart, in: Rect(x: 0, y: 0, width: 480, height: 270))
/// }
/// ```
public struct Chart: Sendable, Hashable {
  /// How values are drawn.
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    /// Grouped bars: one group per category, one bar per series, from zero.
    case bar
    /// One line per series across the categories, with a mark at each point when there are few.
    case line
  }

  /// One named row of values, one per category.
  public struct Series: Sendable, Hashable {
    /// Shown in the legend.
    public var name: String
    /// One value per category; `nil` is a gap.
    public var values: [Double?]
    /// The series' colour; nil takes the next one of ``Chart/palette``.
    public var color: Color?

    /// A series; `color` nil takes the palette's colour for its position.
    public init(name: String, values: [Double?], color: Color? = nil) {
      self.name = name
      self.values = values
      self.color = color
    }
  }

  /// A labelled horizontal line at a value (a budget, a target).
  public struct ReferenceLine: Sendable, Hashable {
    /// Drawn at the line's right end, above it.
    public var label: String
    /// Where the line is on the value axis.
    public var value: Double
    /// The line's colour.
    public var color: Color

    /// A reference line, red unless told.
    public init(label: String, value: Double, color: Color = Color(red: 0.85, green: 0.1, blue: 0.1)) {
      self.label = label
      self.value = value
      self.color = color
    }
  }

  /// The most values a chart takes, all series together: 100,000. A chart of 10⁷ points is
  /// refused before any drawing (no page shows that many).
  public static let maximumPoints = 100_000
  /// The most series: 64 (their legend would not fit beyond that).
  public static let maximumSeries = 64

  /// The colours series take in order when they name none.
  public static let palette: [Color] = [
    Color(red: 0.16, green: 0.45, blue: 0.78), Color(red: 0.90, green: 0.45, blue: 0.12),
    Color(red: 0.20, green: 0.62, blue: 0.30), Color(red: 0.75, green: 0.20, blue: 0.25),
    Color(red: 0.50, green: 0.35, blue: 0.70), Color(red: 0.55, green: 0.55, blue: 0.55),
    Color(red: 0.10, green: 0.70, blue: 0.75), Color(red: 0.85, green: 0.30, blue: 0.65),
    Color(red: 0.60, green: 0.45, blue: 0.20),
  ]

  /// Bars or lines.
  public var kind: Kind
  /// Drawn bold above the plot, or nil for none.
  public var title: String?
  /// The labels along the category axis; may be empty (a line chart then numbers its points from
  /// 1). A series longer than the categories extends the axis.
  public var categories: [String]
  /// The values, one series per bar colour or line.
  public var series: [Series]
  /// Horizontal lines at given values.
  public var referenceLines: [ReferenceLine]
  /// The font family of the labels.
  public var fontFamily: String
  /// The size of tick labels and legend entries, in points (the title is 1.25 times it).
  public var fontSize: Double

  /// A chart; see ``Chart`` for an example.
  public init(
    kind: Kind, title: String? = nil, categories: [String] = [], series: [Series],
    referenceLines: [ReferenceLine] = [], fontFamily: String = "Sans", fontSize: Double = 10
  ) {
    self.kind = kind
    self.title = title
    self.categories = categories
    self.series = series
    self.referenceLines = referenceLines
    self.fontFamily = fontFamily
    self.fontSize = fontSize
  }

  /// Positions along the category axis: the longest of the categories and the series.
  public var pointCount: Int { series.reduce(categories.count) { max($0, $1.values.count) } }

  /// The smallest and largest value drawn (reference lines included), nil when every value is a gap.
  var valueRange: ClosedRange<Double>? {
    var low = Double.infinity
    var high = -Double.infinity
    for entry in series {
      for case let value? in entry.values {
        low = min(low, value)
        high = max(high, value)
      }
    }
    for line in referenceLines {
      low = min(low, line.value)
      high = max(high, line.value)
    }
    return low <= high ? low...high : nil
  }

  /// The colour of series `index`.
  func color(ofSeries index: Int) -> Color {
    series[index].color ?? Self.palette[index % Self.palette.count]
  }

  /// Checks what drawing needs: at least one series, none empty, at most ``maximumSeries`` series
  /// and ``maximumPoints`` values, every value and reference line finite and within ±1e15, and a
  /// font size from 1 to 200 points.
  ///
  /// - Throws: ``ChartError`` naming the series and value at fault.
  public func validate() throws(ChartError) {
    guard !series.isEmpty else { throw .noSeries }
    guard series.count <= Self.maximumSeries else { throw .tooManySeries(series.count, limit: Self.maximumSeries) }
    let total = series.reduce(0) { $0 + $1.values.count }
    guard total <= Self.maximumPoints else { throw .tooManyPoints(total, limit: Self.maximumPoints) }
    guard categories.count <= Self.maximumPoints else {
      throw .tooManyPoints(categories.count, limit: Self.maximumPoints)
    }
    guard fontSize >= 1, fontSize <= 200 else { throw .badFontSize(fontSize) }
    for (seriesIndex, entry) in series.enumerated() {
      guard !entry.values.isEmpty else { throw .emptySeries(seriesIndex) }
      for (valueIndex, value) in entry.values.enumerated() {
        if let value, !(value.isFinite && abs(value) <= 1e15) {
          throw .badValue(series: seriesIndex, index: valueIndex, value: value)
        }
      }
    }
    for (index, line) in referenceLines.enumerated() where !(line.value.isFinite && abs(line.value) <= 1e15) {
      throw .badReferenceLine(index, value: line.value)
    }
  }
}

/// Why a ``Chart`` cannot be drawn.
public enum ChartError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The chart has no series.
  case noSeries
  /// Series `index` has no values.
  case emptySeries(Int)
  /// More series than ``Chart/maximumSeries``.
  case tooManySeries(Int, limit: Int)
  /// More values than ``Chart/maximumPoints``.
  case tooManyPoints(Int, limit: Int)
  /// A value is NaN, infinite or beyond ±1e15 (a gap is `nil`).
  case badValue(series: Int, index: Int, value: Double)
  /// A reference line's value is NaN, infinite or beyond ±1e15.
  case badReferenceLine(Int, value: Double)
  /// The font size is outside 1...200 points.
  case badFontSize(Double)

  public var description: String {
    switch self {
    case .noSeries: return "a chart needs at least one series"
    case .emptySeries(let index): return "series \(index) has no values"
    case .tooManySeries(let count, let limit): return "\(count) series, over the limit of \(limit)"
    case .tooManyPoints(let count, let limit):
      return "\(count) points, over the limit of \(limit) for a chart: aggregate the data first"
    case .badValue(let series, let index, let value):
      return "series \(series) value \(index) is \(value): values must be finite numbers within ±1e15 (null for a gap)"
    case .badReferenceLine(let index, let value):
      return "reference line \(index) is at \(value): it must be a finite number within ±1e15"
    case .badFontSize(let size): return "font size \(size) is outside 1 to 200 points"
    }
  }
}
