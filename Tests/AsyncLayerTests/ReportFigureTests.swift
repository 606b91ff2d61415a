import AsyncLayer
import Foundation
import Testing

/// Report figures: SVG, JPEG, charts and QR codes, in PNG pages (decoded pixels), PDF (poppler's
/// tools: vectors stay vectors) and SVG, and the spec errors and limits of each.
@Suite struct ReportFigureTests {
  /// Half red, half blue, 100 × 50 CSS pixels (75 × 37.5 points).
  static let twoColourSVG = """
    <svg xmlns="http://www.w3.org/2000/svg" width="100" height="50">
    <rect x="0" y="0" width="50" height="50" fill="#ff0000"/><rect x="50" y="0" width="50" height="50" fill="#0000ff"/>
    </svg>
    """

  /// The spec `json` (with `files` written beside it) read from a temporary directory.
  static func spec(_ json: String, files: [String: Data] = [:]) throws -> ReportSpec {
    try withTemporaryDirectory { directory in
      for (name, data) in files { try data.write(to: directory.appendingPathComponent(name)) }
      let path = directory.appendingPathComponent("spec.json").path
      try Data(json.utf8).write(to: URL(fileURLWithPath: path))
      let spec = try ReportSpec(contentsOfFile: path)
      return spec
    }
  }

  /// The layout of `json` with `files` beside it (files are read while the directory exists).
  static func layout(
    _ json: String, files: [String: Data] = [:], pixelsPerPoint: Double = ReportSpec.printPixelsPerPoint
  )
    throws -> ReportLayout
  {
    try withTemporaryDirectory { directory in
      for (name, data) in files { try data.write(to: directory.appendingPathComponent(name)) }
      let path = directory.appendingPathComponent("spec.json").path
      try Data(json.utf8).write(to: URL(fileURLWithPath: path))
      return try ReportLayout(try ReportSpec(contentsOfFile: path).makeDocument(imagePixelsPerPoint: pixelsPerPoint))
    }
  }

  /// The spec error `json` (with `files`) throws, from decoding or from making the document.
  static func specError(_ json: String, files: [String: Data] = [:]) -> ReportSpecError? {
    do {
      _ = try layout(json, files: files)
      return nil
    } catch let error as ReportSpecError {
      return error
    } catch {
      Issue.record("expected a ReportSpecError, got \(error)")
      return nil
    }
  }

  /// Every figure frame of the layout, with its page index.
  static func figures(_ layout: ReportLayout) -> [(page: Int, figure: ReportFigure, frame: Rect)] {
    layout.pages.enumerated().flatMap { index, page in
      page.elements.compactMap { element -> (Int, ReportFigure, Rect)? in
        if case .figure(let figure, let frame) = element { return (index, figure, frame) }
        return nil
      }
    }
  }

  static func near(_ color: Color, _ expected: Color, tolerance: Double = 0.1) -> Bool {
    abs(color.red - expected.red) <= tolerance && abs(color.green - expected.green) <= tolerance
      && abs(color.blue - expected.blue) <= tolerance
  }

  // MARK: SVG

  @Test func svgFillsItsFrameInThePNGPage() throws {
    let layout = try Self.layout(
      #"{"content": [{"paragraph": "Logo:"}, {"image": "logo.svg", "width": 200, "alt": "Two squares"}]}"#,
      files: ["logo.svg": Data(Self.twoColourSVG.utf8)])
    let placed = try #require(Self.figures(layout).first)
    #expect(placed.figure.alternativeText == "Two squares")
    guard case .svg = placed.figure.content else { throw Failure("not an SVG figure: \(placed.figure.content)") }
    #expect(abs(placed.frame.width - 200) < 0.01 && abs(placed.frame.height - 100) < 0.01)
    let scale = 2.0
    let page = try layout.renderPage(placed.page, scale: scale)
    func sample(_ fx: Double, _ fy: Double) -> Color {
      page.color(
        x: Int((placed.frame.minX + placed.frame.width * fx) * scale),
        y: Int((placed.frame.minY + placed.frame.height * fy) * scale))
    }
    #expect(Self.near(sample(0.25, 0.5), .red))
    #expect(Self.near(sample(0.75, 0.5), .blue))
    // Just outside the frame: white page.
    #expect(Self.near(page.color(x: Int((placed.frame.minX - 2) * scale), y: Int(placed.frame.midY * scale)), .white))
  }

  @Test func plainImageItemOfAnSVGFileIsDrawnAsAnSVG() throws {
    let layout = try Self.layout(
      #"{"content": [{"image": "logo.svg"}]}"#, files: ["logo.svg": Data(Self.twoColourSVG.utf8)])
    let placed = try #require(Self.figures(layout).first)
    // 100 × 50 CSS pixels are 75 × 37.5 points.
    #expect(abs(placed.frame.width - 75) < 0.01 && abs(placed.frame.height - 37.5) < 0.01)
  }

  @Test func svgChartAndQRCodeStayVectorsInThePDF() throws {
    let json = """
      {"content": [
        {"image": "logo.svg", "width": 150, "alt": "Logo"},
        {"chart": {"type": "bar", "categories": ["A", "B"], "series": [{"name": "S", "values": [1, 2]}]}, "height": 150},
        {"qrCode": "https://example.com", "width": 90}
      ]}
      """
    let layout = try Self.layout(json, files: ["logo.svg": Data(Self.twoColourSVG.utf8)])
    #expect(Self.figures(layout).count == 3)
    try Poppler.withPDF(layout.pdfData()) { pdf in
      let list = try Poppler.run("pdfimages", ["-list", pdf])
      // The header and its rule, and no image row.
      #expect(list.split(separator: "\n").count == 2, "\(list)")
    }
    // The same check sees a JPEG: the test can fail.
    let jpeg = try quadrantImage(width: 64, height: 64).jpegData(quality: 95)
    let withPhoto = try Self.layout(
      #"{"content": [{"image": "photo.jpg", "alt": "Quadrants"}]}"#, files: ["photo.jpg": jpeg])
    try Poppler.withPDF(withPhoto.pdfData()) { pdf in
      let list = try Poppler.run("pdfimages", ["-list", pdf])
      #expect(list.split(separator: "\n").count == 3, "\(list)")
    }
    // SVG output: the chart's bars and the QR code are paths, not <image> elements.
    let svg = String(decoding: try layout.svgData(), as: UTF8.self)
    #expect(!svg.contains("<image"))
  }

  @Test func jpegFigureShowsItsColoursWhereExpected() throws {
    let jpeg = try quadrantImage(width: 80, height: 80).jpegData(quality: 95)
    let layout = try Self.layout(
      #"{"content": [{"image": "photo.jpg", "width": 160, "alt": "Four colours"}]}"#, files: ["photo.jpg": jpeg],
      pixelsPerPoint: 2)
    let placed = try #require(Self.figures(layout).first)
    #expect(placed.figure.alternativeText == "Four colours")
    let page = try layout.renderPage(placed.page, scale: 2)
    for sample in quadrantColors {
      let color = page.color(
        x: Int((placed.frame.minX + placed.frame.width * sample.x) * 2),
        y: Int((placed.frame.minY + placed.frame.height * sample.y) * 2))
      #expect(Self.near(color, sample.color, tolerance: 0.08), "\(sample) got \(color)")
    }
  }

  @Test func svgLimitsAreSpecErrorsNamingTheItem() throws {
    let huge = #"<svg xmlns="http://www.w3.org/2000/svg" width="20000" height="20000"/>"#
    let error = try #require(
      Self.specError(#"{"content": [{"image": "big.svg"}]}"#, files: ["big.svg": Data(huge.utf8)]))
    #expect(error.path == "spec.content[0].image")
    #expect(error.message.contains("20000") && error.message.contains("16384"))
    let absurd = #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1e300 1e300"/>"#
    let viewBox = try #require(
      Self.specError(#"{"content": [{"image": "a.svg", "alt": "x"}]}"#, files: ["a.svg": Data(absurd.utf8)]))
    #expect(viewBox.path == "spec.content[0].image")
    #expect(viewBox.message.contains("viewBox"))
    let broken = try #require(
      Self.specError(#"{"content": [{"image": "b.svg"}]}"#, files: ["b.svg": Data("<svg><rect".utf8)]))
    #expect(broken.path == "spec.content[0].image")
    #expect(broken.message.contains("not a readable SVG"))
    // Too many bytes: refused from the count, before librsvg parses anything.
    let tooBig = Data(count: SVGImage.maximumBytes + 1)
    #expect(throws: SVGImageError.tooLarge(bytes: SVGImage.maximumBytes + 1, limit: SVGImage.maximumBytes)) {
      try SVGImage(data: tooBig)
    }
  }

  // MARK: Sizes and pagination

  @Test func figureTallerThanAPageIsScaledDownAndOneThatDoesNotFitMovesOn() throws {
    let json = """
      {"page": {"width": 300, "height": 400}, "margins": 20, "pageNumbers": false, "content": [
        {"qrCode": "tall", "width": 1000},
        {"paragraph": "after"},
        {"chart": {"type": "line", "series": [{"values": [1, 3, 2]}]}, "width": 260, "height": 300}
      ]}
      """
    let layout = try Self.layout(json)
    let placed = Self.figures(layout)
    #expect(placed.count == 2)
    // 1000 points square, scaled to the 260 × 360 content area: 260 square, on page 1.
    #expect(placed[0].page == 0 && abs(placed[0].frame.width - 260) < 0.01 && abs(placed[0].frame.height - 260) < 0.01)
    // The chart (300 high) does not fit below the QR code and the paragraph: next page, at its top.
    #expect(placed[1].page == 1 && abs(placed[1].frame.minY - 20) < 0.01 && abs(placed[1].frame.height - 300) < 0.01)
  }

  @Test func headingMovesToThePageOfTheFigureBelowIt() throws {
    let json = """
      {"page": {"width": 300, "height": 400}, "margins": 20, "pageNumbers": false, "content": [
        {"chart": {"type": "bar", "series": [{"values": [1, 2]}]}, "width": 260, "height": 250},
        {"heading": "Codes"},
        {"qrCode": "below", "width": 80}
      ]}
      """
    let layout = try Self.layout(json)
    let placed = Self.figures(layout)
    #expect(placed.map(\.page) == [0, 1])
    // The heading is on the QR code's page, above it.
    let heading = layout.pages[1].textRuns.first { $0.role == .heading(level: 1) }
    #expect(heading != nil && heading!.frame.maxY <= placed[1].frame.minY)
  }

  @Test func swiftAPIAddsFigures() throws {
    var document = ReportDocument(pageSize: Size(width: 300, height: 300), margins: EdgeInsets(all: 10))
    document.addFigure(
      ReportFigure(.qrCode(try QRCode("x")), size: Size(width: 50, height: 50), alternativeText: "Code"))
    let layout = try ReportLayout(document)
    let placed = try #require(Self.figures(layout).first)
    #expect(placed.figure.alternativeText == "Code")
    #expect(abs(placed.frame.width - 50) < 0.01)
  }

  struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }
}
