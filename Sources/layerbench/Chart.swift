import AsyncLayer
import Foundation

/// Colours of chart series, in order.
private let palette: [Color] = [
  Color(red: 0.16, green: 0.45, blue: 0.78), Color(red: 0.90, green: 0.45, blue: 0.12),
  Color(red: 0.20, green: 0.62, blue: 0.30), Color(red: 0.75, green: 0.20, blue: 0.25),
  Color(red: 0.50, green: 0.35, blue: 0.70), Color(red: 0.55, green: 0.55, blue: 0.55),
  Color(red: 0.10, green: 0.70, blue: 0.75), Color(red: 0.85, green: 0.30, blue: 0.65),
  Color(red: 0.60, green: 0.45, blue: 0.20),
]

/// The frame, axes and labels shared by the charts, drawn with AsyncLayer itself.
private struct ChartCanvas {
  static let size = Size(width: 960, height: 540)
  static let plot = Rect(x: 80, y: 60, width: 840, height: 380)

  static func label(
    _ text: String, _ context: DrawingContext, at point: Point, size: Double = 12, width: Double = 200,
    alignment: TextAlignment = .left, bold: Bool = false
  ) throws {
    var style = TextStyle(fontFamily: "Sans", fontSize: size, weight: bold ? .bold : .regular)
    style.alignment = alignment
    style.color = Color(red: 0.2, green: 0.2, blue: 0.2)
    let layout = try TextLayout(.plain(text), style: style, width: width, scale: context.scale)
    let x = alignment == .center ? point.x - width / 2 : alignment == .right ? point.x - width : point.x
    context.draw(layout, at: Point(x: x, y: point.y))
  }

  /// Draws the background, title, y grid with labels, and the legend; returns the y scale's top.
  static func frame(_ context: DrawingContext, title: String, maximum: Double, legend: [String]) throws -> Double {
    context.clear(to: .white)
    try label(title, context, at: Point(x: 80, y: 18), size: 18, width: 800, bold: true)
    let top = niceCeiling(maximum)
    for step in 0...5 {
      let value = top * Double(step) / 5
      let y = plot.maxY - plot.height * Double(step) / 5
      context.strokeLine(
        from: Point(x: plot.minX, y: y), to: Point(x: plot.maxX, y: y),
        color: Color(red: 0.88, green: 0.88, blue: 0.88), lineWidth: 1)
      try label(formatValue(value), context, at: Point(x: plot.minX - 8, y: y - 8), width: 70, alignment: .right)
    }
    context.strokeLine(from: Point(x: plot.minX, y: plot.minY), to: Point(x: plot.minX, y: plot.maxY), color: .gray)
    context.strokeLine(from: Point(x: plot.minX, y: plot.maxY), to: Point(x: plot.maxX, y: plot.maxY), color: .gray)
    // Five entries to a row; more wrap onto a second row (sweeps draw a line per mode and load).
    let perRow = 5
    let rows = (legend.count + perRow - 1) / perRow
    for (index, name) in legend.enumerated() {
      let x = plot.minX + Double(index % perRow) * 170
      let y = size.height - 30 - Double(rows - 1 - index / perRow) * 22
      context.fill(Rect(x: x, y: y, width: 14, height: 14), color: palette[index % palette.count])
      try label(name, context, at: Point(x: x + 20, y: y - 2), width: 150)
    }
    return top
  }

  static func niceCeiling(_ value: Double) -> Double {
    guard value > 0, value.isFinite else { return 1 }
    let magnitude = pow(10, floor(log10(value)))
    for step in [1.0, 2, 2.5, 5, 10] where step * magnitude >= value { return step * magnitude }
    return 10 * magnitude
  }

  static func formatValue(_ value: Double) -> String {
    value >= 100
      ? String(format: "%.0f", value) : value >= 10 ? String(format: "%.1f", value) : String(format: "%.2f", value)
  }
}

/// Grouped bars: one group per category, one bar per series.
struct BarChart {
  let title: String
  let categories: [String]
  let series: [(name: String, values: [Double])]

  func render() throws -> RenderedImage {
    try ImageRenderer(size: ChartCanvas.size, scale: 1).render { context in
      let maximum = series.flatMap(\.values).max() ?? 1
      let top = try ChartCanvas.frame(context, title: title, maximum: maximum, legend: series.map(\.name))
      let plot = ChartCanvas.plot
      let groupWidth = plot.width / Double(max(categories.count, 1))
      let barWidth = groupWidth * 0.8 / Double(max(series.count, 1))
      for (categoryIndex, category) in categories.enumerated() {
        let groupX = plot.minX + groupWidth * Double(categoryIndex) + groupWidth * 0.1
        for (seriesIndex, entry) in series.enumerated() where categoryIndex < entry.values.count {
          let height = plot.height * entry.values[categoryIndex] / top
          context.fill(
            Rect(
              x: groupX + barWidth * Double(seriesIndex), y: plot.maxY - height, width: barWidth - 1, height: height),
            color: palette[seriesIndex % palette.count])
        }
        try ChartCanvas.label(
          category, context, at: Point(x: groupX + groupWidth * 0.4, y: plot.maxY + 6), size: 11,
          width: groupWidth, alignment: .center)
      }
    }
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
    try ImageRenderer(size: ChartCanvas.size, scale: 1).render { context in
      let maximum = max(series.flatMap(\.values).max() ?? 1, threshold?.value ?? 0)
      let top = try ChartCanvas.frame(context, title: title, maximum: maximum, legend: series.map(\.name))
      let plot = ChartCanvas.plot
      let count = series.map(\.values.count).max() ?? 1
      func point(_ index: Int, _ value: Double) -> Point {
        Point(
          x: plot.minX + plot.width * Double(index) / Double(max(count - 1, 1)),
          y: plot.maxY - plot.height * min(value, top) / top)
      }
      if let threshold {
        let y = plot.maxY - plot.height * threshold.value / top
        context.strokeLine(from: Point(x: plot.minX, y: y), to: Point(x: plot.maxX, y: y), color: .red, lineWidth: 1)
        try ChartCanvas.label(
          threshold.label, context, at: Point(x: plot.maxX - 200, y: y - 18), width: 200,
          alignment: .right)
      }
      for (seriesIndex, entry) in series.enumerated() {
        let color = palette[seriesIndex % palette.count]
        for index in entry.values.indices.dropFirst() {
          context.strokeLine(
            from: point(index - 1, entry.values[index - 1]), to: point(index, entry.values[index]), color: color,
            lineWidth: count > 200 ? 1 : 2)
        }
        // Few points (a sweep): mark each, so a one-point series still shows.
        if count <= 60 {
          for (index, value) in entry.values.enumerated() {
            let p = point(index, value)
            context.fill(Rect(x: p.x - 3, y: p.y - 3, width: 6, height: 6), color: color)
          }
        }
      }
      if let xLabels {
        for (index, text) in xLabels.enumerated() {
          let p = point(index, 0)
          try ChartCanvas.label(
            text, context, at: Point(x: p.x, y: plot.maxY + 6), size: 11, width: 80,
            alignment: .center)
        }
      }
    }
  }
}
