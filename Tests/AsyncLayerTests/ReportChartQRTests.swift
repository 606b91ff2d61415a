import AsyncLayer
import Foundation
import Testing

/// Charts and QR codes: bar heights and QR modules in decoded pixels, a QR code read back by
/// zbarimg, and their spec errors and limits with paths.
@Suite struct ReportChartQRTests {
  /// Heights in pixels of the runs of `color` in each column of `image`, left to right, for the
  /// columns that hold any.
  static func barHeights(_ image: RenderedImage, color: Color) -> [Int] {
    var bars: [Int] = []
    var inBar = false
    for x in 0..<image.pixelWidth {
      let count = (0..<image.pixelHeight).count { y in
        ReportFigureTests.near(image.color(x: x, y: y), color, tolerance: 0.02)
      }
      if count > 0, !inBar { bars.append(count) }
      if count > 0, let last = bars.last { bars[bars.count - 1] = max(last, count) }
      inBar = count > 0
    }
    return bars
  }

  @Test func barHeightsMatchTheirValues() throws {
    let chart = Chart(
      kind: .bar, categories: ["a", "b", "c", "d"], series: [.init(name: "S", values: [10, 20, 40, nil])])
    let image = try ImageRenderer(size: Size(width: 300, height: 200), scale: 2).render { context in
      context.clear(to: .white)
      try context.draw(chart, in: Rect(x: 0, y: 0, width: 300, height: 200))
    }
    let heights = Self.barHeights(image, color: Chart.palette[0])
    // Three bars (the nil is a gap); heights proportional to the values within two pixels.
    #expect(heights.count == 3, "\(heights)")
    guard heights.count == 3 else { return }
    // Against the tallest (40): each bar's height is its value's share within two pixels (an edge
    // pixel at each end is partly covered).
    #expect(abs(Double(heights[0]) - Double(heights[2]) / 4) <= 2, "\(heights)")
    #expect(abs(Double(heights[1]) - Double(heights[2]) / 2) <= 2, "\(heights)")
    // The scale's top tick is 40: the tallest bar spans most of the 400-pixel-high picture.
    #expect(heights[2] > 250)
  }

  @Test func chartInASpecTakesTheReportFontAndDrawsItsLegend() throws {
    let json = """
      {"font": "DejaVu Sans", "content": [{"chart": {"type": "line", "title": "Two lines",
        "categories": ["Jan", "Feb", "Mar"],
        "series": [{"name": "North", "values": [1, null, 3]}, {"name": "South", "values": [2, 2, 1], "color": "#00aa00"}],
        "referenceLines": [{"label": "target", "value": 2.5}]}, "alt": "Sales"}]}
      """
    let layout = try ReportFigureTests.layout(json)
    let placed = try #require(ReportFigureTests.figures(layout).first)
    guard case .chart(let chart) = placed.figure.content else { throw ReportFigureTests.Failure("not a chart") }
    #expect(chart.fontFamily == "DejaVu Sans")
    #expect(chart.series[0].values == [1, nil, 3])
    #expect(chart.series[1].color == Color(red: 0, green: 2.0 / 3, blue: 0))
    let page = try layout.renderPage(placed.page, scale: 1)
    // The second series' green appears (its line and legend square).
    var green = 0
    for y in Int(placed.frame.minY)..<Int(placed.frame.maxY) {
      for x in Int(placed.frame.minX)..<Int(placed.frame.maxX)
      where ReportFigureTests.near(page.color(x: x, y: y), Color(red: 0, green: 2.0 / 3, blue: 0), tolerance: 0.05) {
        green += 1
      }
    }
    #expect(green > 50)
  }

  @Test func chartSpecErrorsNameTheirPath() throws {
    func error(_ chart: String) -> ReportSpecError? {
      ReportFigureTests.specError(#"{"content": [{"paragraph": "x"}, {"chart": \#(chart)}]}"#)
    }
    let values = #"[{"name": "a", "values": [1, 2]}, {"name": "b", "values": [1, 2, "three"]}]"#
    #expect(error(#"{"type": "bar", "series": \#(values)}"#)?.path == "spec.content[1].chart.series[1].values[2]")
    #expect(error(#"{"type": "bar", "series": [{"values": []}]}"#)?.path == "spec.content[1].chart.series[0].values")
    #expect(error(#"{"type": "bar", "series": []}"#)?.path == "spec.content[1].chart.series")
    #expect(error(#"{"type": "pie", "series": [{"values": [1]}]}"#)?.path == "spec.content[1].chart.type")
    #expect(
      error(#"{"type": "bar", "series": [{"values": [1e300]}]}"#)?.path == "spec.content[1].chart.series[0].values[0]")
    #expect(
      error(#"{"type": "bar", "series": [{"values": [1]}], "colour": 1}"#)?.path == "spec.content[1].chart.colour")
    // 100,001 values: refused from the array's length, before the values are read.
    let many = "[" + Array(repeating: "1", count: Chart.maximumPoints + 1).joined(separator: ",") + "]"
    let tooMany = error(#"{"type": "line", "series": [{"values": \#(many)}]}"#)
    #expect(tooMany?.path == "spec.content[1].chart.series[0].values")
    #expect(tooMany?.message.contains("100001 points") == true)
    // Size and alt belong to figures only.
    let misplaced = ReportFigureTests.specError(#"{"content": [{"paragraph": "x", "alt": "y"}]}"#)
    #expect(misplaced?.path == "spec.content[0].alt")
    let badWidth = ReportFigureTests.specError(#"{"content": [{"qrCode": "x", "width": -5}]}"#)
    #expect(badWidth?.path == "spec.content[0].width")
  }

  @Test func chartAPIRefusesBadValuesBeforeDrawing() {
    #expect(throws: ChartError.badValue(series: 0, index: 1, value: .infinity)) {
      try Chart(kind: .line, series: [.init(name: "s", values: [1, .infinity])]).validate()
    }
    #expect(throws: ChartError.noSeries) { try Chart(kind: .bar, series: []).validate() }
    #expect(throws: ChartError.emptySeries(0)) {
      try Chart(kind: .bar, series: [.init(name: "", values: [])]).validate()
    }
    let count = Chart.maximumPoints / 2 + 1
    let big = Chart(
      kind: .line,
      series: [
        .init(name: "a", values: Array(repeating: 1, count: count)),
        .init(name: "b", values: Array(repeating: 1, count: count)),
      ])
    #expect(throws: ChartError.tooManyPoints(2 * count, limit: Chart.maximumPoints)) { try big.validate() }
    // NaN is refused too (compared by message: NaN is unequal to itself).
    do {
      try Chart(kind: .bar, series: [.init(name: "s", values: [.nan])]).validate()
      Issue.record("NaN accepted")
    } catch {
      #expect(error.description.contains("nan"))
    }
  }

  // MARK: QR codes

  @Test func qrCodeHasFinderPatternsInItsPixels() throws {
    let code = try QRCode("HELLO", errorCorrection: .high)
    #expect(code.moduleCount == 21)
    let modulePixels = 4
    let side = Double(code.totalModuleCount * modulePixels)
    let image = try ImageRenderer(size: Size(width: side, height: side), scale: 1).render { context in
      context.draw(code, in: Rect(x: 0, y: 0, width: side, height: side))
    }
    // Each finder pattern (top-left, top-right, bottom-left): a dark 7 × 7 ring, a light ring, a
    // dark 3 × 3 centre, read at module centres.
    func dark(_ row: Int, _ column: Int) -> Bool {
      let x = (code.quietZone + column) * modulePixels + modulePixels / 2
      let y = (code.quietZone + row) * modulePixels + modulePixels / 2
      return image.color(x: x, y: y).red < 0.5
    }
    for (top, left) in [(0, 0), (0, code.moduleCount - 7), (code.moduleCount - 7, 0)] {
      for row in 0..<7 {
        for column in 0..<7 {
          let ring = max(abs(row - 3), abs(column - 3))
          #expect(dark(top + row, left + column) == (ring != 2), "finder at \(top),\(left): module \(row),\(column)")
        }
      }
    }
    // The quiet zone is white.
    #expect(image.color(x: 1, y: 1) == .white)
  }

  @Test func qrCodeInAReportPageReadsBackWithZbarimg() throws {
    let text = "https://example.com/ticket/2024-118?seat=12B"
    let json = #"{"content": [{"qrCode": "\#(text)", "errorCorrection": "Q", "width": 120, "alt": "Ticket"}]}"#
    let layout = try ReportFigureTests.layout(json)
    let image = try layout.renderPage(0, scale: 2)
    guard (try? Poppler.executable("zbarimg")) != nil else {
      // The Makefile installs zbar-tools; without it the finder-pattern test above still checks.
      Issue.record("zbarimg is missing (make deps installs zbar-tools)")
      return
    }
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("page.png").path
      try PNGEncoder().encode(image).write(to: URL(fileURLWithPath: path))
      let output = try Poppler.run("zbarimg", ["--quiet", "--raw", path])
      #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == text)
    }
  }

  @Test func qrCodeErrors() {
    #expect(throws: QRCodeError.emptyText) { try QRCode("") }
    let long = String(repeating: "x", count: 3000)
    #expect(throws: QRCodeError.tooLong(bytes: 3000, errorCorrection: .medium)) { try QRCode(long) }
    // Within the L limit but over H's: libqrencode refuses it, reported the same way.
    let mid = String(repeating: "x", count: 2000)
    #expect(throws: QRCodeError.tooLong(bytes: 2000, errorCorrection: .high)) {
      try QRCode(mid, errorCorrection: .high)
    }
    let error = ReportFigureTests.specError(#"{"content": [{"qrCode": "\#(long)"}]}"#)
    #expect(error?.path == "spec.content[0].qrCode")
    let level = ReportFigureTests.specError(#"{"content": [{"qrCode": "x", "errorCorrection": "X"}]}"#)
    #expect(level?.path == "spec.content[0].errorCorrection")
  }
}
