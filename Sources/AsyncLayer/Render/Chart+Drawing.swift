internal import CCairo
import Foundation

extension DrawingContext {
  /// Draws `chart` into `rect`: the title at the top, the legend (for more than one series) at
  /// the bottom, the value axis with round ticks on the left, category labels below the plot.
  /// Bars of one series are one filled path, a line one stroked path, so PDF and SVG output hold
  /// few vector objects.
  ///
  /// ```swift
  /// try context.draw(chart, in: Rect(x: 0, y: 0, width: 480, height: 270))
  /// ```
  ///
  /// - Throws: ``ChartError`` from ``Chart/validate()`` before anything is drawn, ``RenderError``
  ///   for a label Pango cannot lay out.
  public func draw(_ chart: Chart, in rect: Rect) throws {
    try chart.validate()
    guard rect.width.isFinite, rect.height.isFinite, rect.width >= 20, rect.height >= 20 else { return }
    var labels = ChartLabels(chart: chart, scale: scale)
    let pad = chart.fontSize * 0.6
    var top = rect.minY
    if let title = chart.title, !title.isEmpty {
      let layout = try labels.layout(title, bold: true, size: chart.fontSize * 1.25, width: rect.width, align: .center)
      draw(layout, at: Point(x: rect.minX, y: top))
      top += layout.size.height + pad
    }
    let legend = chart.series.count > 1 ? try legendRows(chart, labels: &labels, width: rect.width) : []
    let lineHeight = try labels.layout("0", width: nil).size.height
    let legendHeight = legend.isEmpty ? 0 : Double(legend.count) * (lineHeight + pad / 2) + pad
    let scaleValues = ChartScale(covering: chart.valueRange)
    let tickLabels = scaleValues.ticks.map(scaleValues.label)
    var tickWidth = 0.0
    for text in tickLabels { tickWidth = max(tickWidth, try labels.layout(text, width: nil).size.width) }
    let plot = Rect(
      x: rect.minX + tickWidth + pad, y: top + lineHeight / 2,
      width: rect.width - tickWidth - 2 * pad,
      height: rect.maxY - legendHeight - lineHeight - pad - top - lineHeight / 2)
    guard plot.width >= 10, plot.height >= 10 else { return }
    let y = { (value: Double) in plot.maxY - plot.height * scaleValues.fraction(value) }
    // Grid and tick labels.
    for (value, text) in zip(scaleValues.ticks, tickLabels) {
      strokeLine(
        from: Point(x: plot.minX, y: y(value)), to: Point(x: plot.maxX, y: y(value)),
        color: Color(red: 0.85, green: 0.85, blue: 0.85), lineWidth: 0.75)
      let layout = try labels.layout(text, width: tickWidth, align: .right)
      draw(layout, at: Point(x: rect.minX, y: y(value) - layout.size.height / 2))
    }
    let count = max(1, chart.pointCount)
    let slot = plot.width / Double(count)
    switch chart.kind {
    case .bar: drawBars(chart, plot: plot, slot: slot, y: y)
    case .line: drawLines(chart, plot: plot, slot: slot, y: y)
    }
    let axis = Color(red: 0.35, green: 0.35, blue: 0.35)
    strokeLine(from: Point(x: plot.minX, y: plot.minY), to: Point(x: plot.minX, y: plot.maxY), color: axis)
    strokeLine(from: Point(x: plot.minX, y: y(0)), to: Point(x: plot.maxX, y: y(0)), color: axis)
    for line in chart.referenceLines {
      strokeLine(
        from: Point(x: plot.minX, y: y(line.value)), to: Point(x: plot.maxX, y: y(line.value)), color: line.color)
      let layout = try labels.layout(line.label, width: plot.width, align: .right)
      draw(layout, at: Point(x: plot.minX, y: y(line.value) - layout.size.height))
    }
    try drawCategoryLabels(chart, labels: &labels, plot: plot, slot: slot, count: count, top: plot.maxY + pad / 2)
    // Legend rows, each entry a colour square and the series name.
    var rowTop = rect.maxY - legendHeight + pad
    for row in legend {
      for entry in row {
        let square = Rect(
          x: rect.minX + entry.x, y: rowTop + (lineHeight - chart.fontSize) / 2, width: chart.fontSize,
          height: chart.fontSize)
        fill(square, color: chart.color(ofSeries: entry.series))
        draw(entry.layout, at: Point(x: square.maxX + pad / 2, y: rowTop))
      }
      rowTop += lineHeight + pad / 2
    }
  }

  /// One filled path per series: its bars side by side in each category's slot, from zero.
  private func drawBars(_ chart: Chart, plot: Rect, slot: Double, y: (Double) -> Double) {
    let barWidth = slot * 0.8 / Double(chart.series.count)
    let cr = cairo.raw
    for (index, entry) in chart.series.enumerated() {
      cairo_new_path(cr)
      for (position, value) in entry.values.enumerated() {
        guard let value else { continue }
        let x = plot.minX + slot * Double(position) + slot * 0.1 + barWidth * Double(index)
        let top = min(y(value), y(0))
        cairo_rectangle(cr, x, top, barWidth, abs(y(value) - y(0)))
      }
      let color = chart.color(ofSeries: index).clamped
      cairo_set_source_rgba(cr, color.red, color.green, color.blue, color.alpha)
      cairo_fill(cr)
    }
  }

  /// One stroked path per series through the centre of each slot, broken at gaps; marks at the
  /// points when there are 60 or fewer.
  private func drawLines(_ chart: Chart, plot: Rect, slot: Double, y: (Double) -> Double) {
    let cr = cairo.raw
    let count = chart.pointCount
    cairo_save(cr)
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
    for (index, entry) in chart.series.enumerated() {
      let color = chart.color(ofSeries: index).clamped
      cairo_set_source_rgba(cr, color.red, color.green, color.blue, color.alpha)
      cairo_new_path(cr)
      var previous: Double?
      for (position, value) in entry.values.enumerated() {
        defer { previous = value }
        guard let value else { continue }
        let x = plot.minX + slot * (Double(position) + 0.5)
        if previous == nil { cairo_move_to(cr, x, y(value)) } else { cairo_line_to(cr, x, y(value)) }
      }
      cairo_set_line_width(cr, count > 200 ? 1 : 2)
      cairo_stroke(cr)
      guard count <= 60 else { continue }
      for (position, value) in entry.values.enumerated() {
        guard let value else { continue }
        let x = plot.minX + slot * (Double(position) + 0.5)
        cairo_new_sub_path(cr)
        cairo_arc(cr, x, y(value), 2.5, 0, 2 * Double.pi)
      }
      cairo_fill(cr)
    }
    cairo_restore(cr)
  }

  /// Category labels centred under their slots, every n-th one when they would overlap.
  private func drawCategoryLabels(
    _ chart: Chart, labels: inout ChartLabels, plot: Rect, slot: Double, count: Int, top: Double
  ) throws {
    let text = { (index: Int) in index < chart.categories.count ? chart.categories[index] : "\(index + 1)" }
    // The widest label is measured from the longest text in bytes (laying out 10⁵ labels would
    // be slow), and the last number when the points outnumber the categories.
    var candidates: [Int] = []
    let categories = chart.categories
    if let longest = categories.indices.max(by: { categories[$0].utf8.count < categories[$1].utf8.count }) {
      candidates.append(longest)
    }
    if count > categories.count { candidates.append(count - 1) }
    var widest = 0.0
    for index in candidates { widest = max(widest, try labels.layout(text(index), width: nil).size.width) }
    widest += chart.fontSize * 0.6
    let stride = max(1, Int((widest / slot).rounded(.up)))
    for index in Swift.stride(from: 0, to: count, by: stride) {
      let width = slot * Double(stride)
      let layout = try labels.layout(text(index), width: width, align: .center, singleLine: true)
      draw(layout, at: Point(x: plot.minX + slot * (Double(index) + 0.5) - width / 2, y: top))
    }
  }

  /// The legend's entries, wrapped into rows of `width`: each with its x and its laid-out name.
  private func legendRows(_ chart: Chart, labels: inout ChartLabels, width: Double) throws
    -> [[(x: Double, series: Int, layout: TextLayout)]]
  {
    var rows: [[(x: Double, series: Int, layout: TextLayout)]] = [[]]
    var x = 0.0
    let gap = chart.fontSize * 1.5
    for (index, entry) in chart.series.enumerated() {
      let layout = try labels.layout(entry.name, width: nil)
      let entryWidth = chart.fontSize * 1.3 + layout.size.width
      if x > 0, x + entryWidth > width {
        rows.append([])
        x = 0
      }
      rows[rows.count - 1].append((x, index, layout))
      x += entryWidth + gap
    }
    return rows
  }
}

/// Lays out a chart's labels in its font at the drawing scale.
struct ChartLabels {
  let chart: Chart
  let scale: Double

  /// `text` in the chart's font (`size` defaults to its size), one paragraph, dark grey.
  mutating func layout(
    _ text: String, bold: Bool = false, size: Double? = nil, width: Double?, align: TextAlignment = .left,
    singleLine: Bool = false
  ) throws -> TextLayout {
    var style = TextStyle(
      fontFamily: chart.fontFamily, fontSize: size ?? chart.fontSize, weight: bold ? .bold : .regular,
      color: Color(red: 0.2, green: 0.2, blue: 0.2), alignment: align)
    if singleLine {
      style.maxLines = 1
      style.ellipsize = .end
    }
    return try TextLayout(.plain(text.isEmpty ? " " : text), style: style, width: width, scale: scale)
  }
}
