import AsyncLayer
import Foundation

/// The bench charts: AsyncLayer's own ``Chart`` (the one reports draw), on a white 960 × 540 canvas.
private enum ChartCanvas {
  static let size = Size(width: 960, height: 540)

  static func render(_ chart: Chart) throws -> RenderedImage {
    try ImageRenderer(size: size, scale: 1).render { context in
      context.clear(to: .white)
      try context.draw(chart, in: Rect(x: 16, y: 16, width: size.width - 32, height: size.height - 32))
    }
  }

  /// Bench values as chart values: a NaN or infinite measurement is a gap, not a refused chart.
  static func series(_ series: [(name: String, values: [Double])]) -> [Chart.Series] {
    series.map { Chart.Series(name: $0.name, values: $0.values.map { $0.isFinite ? $0 : nil }) }
  }
}

/// Grouped bars: one group per category, one bar per series.
struct BarChart {
  let title: String
  let categories: [String]
  let series: [(name: String, values: [Double])]

  func render() throws -> RenderedImage {
    try ChartCanvas.render(
      Chart(
        kind: .bar, title: title, categories: categories, series: ChartCanvas.series(series), fontSize: 12))
  }
}

/// Lines over a shared x axis (sample index, or labelled points).
struct LineChart {
  let title: String
  let xLabels: [String]?
  let series: [(name: String, values: [Double])]
  /// A horizontal reference line (for example the 16.7 ms frame budget).
  var threshold: (label: String, value: Double)?

  func render() throws -> RenderedImage {
    try ChartCanvas.render(
      Chart(
        kind: .line, title: title, categories: xLabels ?? [], series: ChartCanvas.series(series),
        referenceLines: threshold.map { [Chart.ReferenceLine(label: $0.label, value: $0.value)] } ?? [],
        fontSize: 12))
  }
}
