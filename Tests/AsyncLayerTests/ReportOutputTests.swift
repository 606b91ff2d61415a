import AsyncLayer
import Foundation
import Testing

/// PDF, SVG and PNG output of a ``ReportLayout``, checked with poppler's `pdftotext`, `pdfinfo` and
/// `pdftoppm` and by decoding pixels.
@Suite struct ReportOutputTests {
  /// A report over several small pages: a long paragraph, then a table spanning pages.
  static func sampleLayout() throws -> (ReportLayout, words: [String], rows: [[String]]) {
    let words = ReportLayoutTests.numberedWords(600)
    let rows = (0..<45).map { row in ["k\(1000 + row)", "value \(row)"] }
    var document = ReportDocument(
      title: "Output test", pageSize: Size(width: 360, height: 400),
      margins: EdgeInsets(all: 36))
    document.addHeading("Words")
    document.addParagraph(words.joined(separator: " "))
    document.addHeading("Table", level: 2)
    document.addTable(ReportTable(columns: ["Keycol", "Valuecol"], rows: rows))
    return (try ReportLayout(document), words, rows)
  }

  @Test func pdfHasThePagesAndTheTextInOrder() throws {
    let (layout, words, rows) = try Self.sampleLayout()
    try Poppler.withPDF(layout.pdfData()) { pdf in
      #expect(layout.pages.count >= 4)
      #expect(try Poppler.pageCount(pdf) == layout.pages.count)

      // Every word of the paragraph, once each and in order, across the page breaks.
      let text = try Poppler.run("pdftotext", [pdf, "-"])
      let extracted = text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
      let extractedWords = extracted.filter { word in
        word.hasPrefix("w") && word.count == 5 && word.dropFirst().allSatisfy(\.isNumber)
      }
      #expect(extractedWords.count == words.count)
      #expect(Self.firstDifference(extractedWords, words) == nil)
      #expect(Self.firstDifference(extracted.filter { $0.hasPrefix("k1") }, rows.map { $0[0] }) == nil)

      for page in layout.pages {
        let pageText = try Poppler.run("pdftotext", ["-f", "\(page.number)", "-l", "\(page.number)", pdf, "-"])
        #expect(pageText.contains("Page \(page.number) of \(layout.pages.count)"))
        // Each page holding table rows shows the header row too.
        if pageText.contains("k1") {
          #expect(pageText.contains("Keycol") && pageText.contains("Valuecol"), "page \(page.number) lacks the header")
        }
      }
      // The table spans more than one page, so the header was repeated.
      let tablePages = try layout.pages.filter {
        try Poppler.run("pdftotext", ["-f", "\($0.number)", "-l", "\($0.number)", pdf, "-"]).contains("k1")
      }
      #expect(tablePages.count >= 2)
    }
  }

  @Test func pngPagesBreakLinesWhereThePDFDoes() async throws {
    let (layout, _, _) = try Self.sampleLayout()
    // Metrics hinting is off: the text of every run breaks at the same offsets at any scale.
    for run in layout.pages.flatMap(\.textRuns) {
      for scale in [1.0, 1.5, 2, 3] {
        let relaid = try TextLayout(run.content, style: run.style, width: run.width, scale: scale)
        #expect(Array(relaid.lines[run.lines].map(\.utf8Offset)) == run.lineOffsets, "scale \(scale)")
      }
    }
    // Both outputs draw that one layout: each line of each run has ink at its place in the PNG page
    // and in the PDF page rasterized by pdftoppm.
    let scale = 2.0
    let images = try await layout.renderPages(scale: scale)
    #expect(images.count == layout.pages.count)
    try await Poppler.withPDF(layout.pdfData()) { pdf in
      let rasters = try Poppler.grayPages(pdf, dpi: 144)
      #expect(rasters.count == layout.pages.count)
      var linesChecked = 0
      for (index, page) in layout.pages.enumerated() {
        let image = images[index]
        #expect(image.pixelWidth == Int((layout.pageSize.width * scale).rounded(.up)))
        for run in page.textRuns {
          for frame in run.lineFrames where frame.width >= 4 {
            #expect(
              Self.inkCount(in: frame, scale: scale) { x, y in Self.luminance(image.color(x: x, y: y)) } > 0,
              "no ink in the PNG for a line of \(run.role) on page \(page.number)")
            #expect(
              Self.inkCount(in: frame, scale: scale) { x, y in rasters[index].value(x: x, y: y) } > 0,
              "no ink in the PDF for a line of \(run.role) on page \(page.number)")
            linesChecked += 1
          }
        }
        // The side margins stay blank in both.
        let margin = Rect(x: 0, y: 0, width: layout.contentRect.minX - 2, height: layout.pageSize.height)
        #expect(Self.inkCount(in: margin, scale: scale) { x, y in Self.luminance(image.color(x: x, y: y)) } == 0)
        #expect(Self.inkCount(in: margin, scale: scale) { x, y in rasters[index].value(x: x, y: y) } == 0)
      }
      #expect(linesChecked > 50)
    }
  }

  @Test func parallelPagesMatchPagesRenderedOneByOne() async throws {
    let (layout, _, _) = try Self.sampleLayout()
    let parallel = try await layout.renderPages(scale: 1)
    for index in layout.pages.indices {
      #expect(parallel[index] == (try layout.renderPage(index, scale: 1, isCancelled: { false })))
    }
  }

  @Test func cancelledPageRenderThrows() throws {
    let (layout, _, _) = try Self.sampleLayout()
    #expect(throws: CancellationError.self) { try layout.renderPage(0, scale: 1, isCancelled: { true }) }
    #expect(throws: ReportError.pageOutOfRange(index: layout.pages.count, count: layout.pages.count)) {
      try layout.renderPage(layout.pages.count)
    }
  }

  @Test func svgStacksThePagesAndDrawsGlyphsAsOutlines() throws {
    let (layout, _, _) = try Self.sampleLayout()
    let svg = String(decoding: try layout.svgData(pageGap: 20), as: UTF8.self)
    let pages = Double(layout.pages.count)
    let height = pages * layout.pageSize.height + (pages - 1) * 20
    #expect(svg.hasPrefix("<?xml"))
    #expect(svg.contains("viewBox=\"0 0 \(Self.svgNumber(layout.pageSize.width)) \(Self.svgNumber(height))\""))
    // cairo 1.16 writes each glyph once as a <symbol> outline and places it with <use>: the SVG
    // shows the text but does not contain it as characters.
    #expect(svg.contains("<symbol overflow=\"visible\" id=\"glyph"))
    #expect(svg.components(separatedBy: "<use xlink:href=\"#glyph").count > 1000)
    #expect(!svg.contains("<text"))
    #expect(!svg.contains("w0001"))
  }

  @Test func pdfMetadataCarriesTheTitle() throws {
    let (layout, _, _) = try Self.sampleLayout()
    try Poppler.withPDF(layout.pdfData()) { pdf throws in
      #expect(try Poppler.run("pdfinfo", [pdf]).contains("Output test"))
    }
  }

  // MARK: Helpers

  /// Where two word lists first differ ("at 112: w0120 instead of w0113"), or nil when equal.
  static func firstDifference(_ actual: [String], _ expected: [String]) -> String? {
    for index in 0..<max(actual.count, expected.count) {
      let got = index < actual.count ? actual[index] : "(end)"
      let want = index < expected.count ? expected[index] : "(end)"
      if got != want { return "at \(index): \(got) instead of \(want)" }
    }
    return nil
  }

  static func svgNumber(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(value)
  }

  static func luminance(_ color: Color) -> Double {
    // Transparent counts as the white page.
    let alpha = color.alpha
    return ((0.299 * color.red + 0.587 * color.green + 0.114 * color.blue) * alpha + (1 - alpha)) * 255
  }

  /// Pixels darker than light gray inside `rect` (points) of an image at `scale`.
  static func inkCount(in rect: Rect, scale: Double, luminance: (Int, Int) -> Double) -> Int {
    var count = 0
    let x0 = Int((rect.minX * scale).rounded(.down)), x1 = Int((rect.maxX * scale).rounded(.up))
    let y0 = Int((rect.minY * scale).rounded(.down)), y1 = Int((rect.maxY * scale).rounded(.up))
    for y in max(0, y0)..<max(max(0, y0), y1) {
      for x in max(0, x0)..<max(max(0, x0), x1) where luminance(x, y) < 200 { count += 1 }
    }
    return count
  }
}

/// Runs poppler-utils (`pdftotext`, `pdfinfo`, `pdftoppm`), which `make deps` installs.
enum Poppler {
  struct Missing: Error, CustomStringConvertible {
    let tool: String
    var description: String {
      "\(tool) not found: install poppler-utils (`make deps` or `apt-get install poppler-utils`) to run the PDF tests"
    }
  }

  struct Failed: Error, CustomStringConvertible {
    let description: String
  }

  /// A grayscale raster of one page.
  struct GrayImage {
    let width: Int
    let height: Int
    let bytes: [UInt8]
    func value(x: Int, y: Int) -> Double {
      guard x < width, y < height else { return 255 }
      return Double(bytes[y * width + x])
    }
  }

  static func executable(_ tool: String) throws -> String {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
    for directory in directories + ["/usr/bin", "/usr/local/bin"] {
      let path = directory + "/" + tool
      if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    throw Missing(tool: tool)
  }

  @discardableResult
  static func run(_ tool: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try executable(tool))
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw Failed(description: "\(tool) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
    }
    return String(decoding: data, as: UTF8.self)
  }

  static func pageCount(_ pdf: String) throws -> Int? {
    let info = try run("pdfinfo", [pdf])
    let line = info.split(separator: "\n").first { $0.hasPrefix("Pages:") }
    return line.flatMap { Int($0.dropFirst("Pages:".count).trimmingCharacters(in: .whitespaces)) }
  }

  /// Writes `data` to a PDF file in a temporary directory and runs `body` with the file's path;
  /// the file and its directory are removed afterwards.
  static func withPDF<T>(_ data: Data, _ body: (String) throws -> T) throws -> T {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("report.pdf").path
      try data.write(to: URL(fileURLWithPath: path))
      return try body(path)
    }
  }

  /// Rasterizes every page with `pdftoppm -gray` and decodes the PGM files.
  static func grayPages(_ pdf: String, dpi: Int) throws -> [GrayImage] {
    try withTemporaryDirectory { directory in
      try run("pdftoppm", ["-gray", "-r", "\(dpi)", pdf, directory.appendingPathComponent("page").path])
      let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".pgm") }
      // pdftoppm pads page numbers to the width of the last one: page-1.pgm or page-01.pgm.
      let sorted = files.sorted { pageNumber($0) < pageNumber($1) }
      return try sorted.map { try decodePGM(Data(contentsOf: directory.appendingPathComponent($0))) }
    }
  }

  private static func pageNumber(_ file: String) -> Int {
    Int(file.dropFirst("page-".count).dropLast(".pgm".count)) ?? 0
  }

  /// Decodes a binary (P5) PGM with a maximum value of 255.
  static func decodePGM(_ data: Data) throws -> GrayImage {
    let bytes = [UInt8](data)
    var fields: [String] = []
    var index = 0
    while fields.count < 4, index < bytes.count {
      while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0a || bytes[index] == 0x0d { index += 1 }
      var field = ""
      while index < bytes.count, bytes[index] != 0x20, bytes[index] != 0x0a, bytes[index] != 0x0d {
        field.append(Character(UnicodeScalar(bytes[index])))
        index += 1
      }
      fields.append(field)
    }
    index += 1
    guard fields.count == 4, fields[0] == "P5", let width = Int(fields[1]), let height = Int(fields[2]),
      fields[3] == "255", bytes.count - index >= width * height
    else { throw Failed(description: "pdftoppm wrote an unexpected PGM header: \(fields)") }
    return GrayImage(width: width, height: height, bytes: Array(bytes[index..<index + width * height]))
  }
}
