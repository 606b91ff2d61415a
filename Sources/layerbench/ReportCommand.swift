import ArgumentParser
import AsyncLayer
import Foundation
import Synchronization

/// `layerbench report --spec report.json -o out.pdf|out.svg|out.png`: lays out a JSON report spec
/// and writes a PDF, an SVG (pages stacked vertically) or one PNG per page.
struct ReportCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "report",
    abstract: "Lay out a JSON report spec into pages and write a PDF, an SVG or PNG pages.",
    discussion: """
      The output format follows the extension of -o: .pdf (multi-page, text selectable), .svg (one \
      file, pages stacked top to bottom, glyphs as outlines) or .png (one file per page: out.png \
      writes out-1.png, out-2.png, …, rendered in parallel). See samples/report.json for the spec format.
      """)

  /// Page sizes selectable on the command line.
  enum PageOption: String, ExpressibleByArgument, CaseIterable {
    case a4, letter

    var size: Size {
      switch self {
      case .a4: return .a4
      case .letter: return .letter
      }
    }
  }

  @Option(name: .long, help: "The JSON report spec.")
  var spec: String

  @Option(name: [.short, .customLong("output")], help: "The output file: .pdf, .svg or .png.")
  var output: String

  @Option(name: .long, help: "Page size, overriding the spec's: a4 or letter.")
  var page: PageOption?

  @Option(name: .long, parsing: .unconditional, help: "Device pixels per point for PNG pages, 0.1–16.")
  var scale: Double = 2

  @Flag(
    name: .customLong("probe-own-marking"),
    help: ArgumentHelp(
      "Measuring only (bench/own-tags-marker.sh): mark a tagged report's content ourselves, throw it away, write the untagged PDF.",
      visibility: .hidden))
  var probeOwnMarking = false

  @Option(
    name: .customLong("tags"),
    help: ArgumentHelp(
      "Who writes a tagged PDF's structure: own (our marked content and tree) or cairo (cairo's tags); default: the library's.",
      visibility: .hidden))
  var tags: String?

  func validate() throws {
    guard ["pdf", "svg", "png"].contains(outputExtension) else {
      throw ValidationErrorMessage("-o: cannot tell the format of '\(output)': use a .pdf, .svg or .png file name")
    }
    try Bounds.check(scale, "--scale", 0.1...16, "pixels per point")
    try FileAccess.checkWritable(output, option: "-o")
  }

  private var outputExtension: String { URL(fileURLWithPath: output).pathExtension.lowercased() }

  func run() throws {
    let start = ContinuousClock.now
    let layout: ReportLayout
    do {
      let data: Data
      do {
        // Bounded while reading: a spec over the limit (or /dev/zero) is refused before parsing.
        data = try ReportSpec.readFile(spec)
      } catch {
        throw Self.failure("cannot read \(spec): \(error.reason)")
      }
      // Image paths in the spec are relative to its directory.
      let base = URL(fileURLWithPath: spec).deletingLastPathComponent().path
      // Images are decoded at the size they are drawn: at the page scale for PNG pages, at
      // 300 ppi for PDF and SVG.
      let document = try ReportSpec(jsonData: data, baseDirectory: base)
        .makeDocument(
          pageSize: page?.size,
          imagePixelsPerPoint: outputExtension == "png" ? scale : ReportSpec.printPixelsPerPoint)
      layout = try ReportLayout(document)
    } catch let error as ReportSpecError {
      throw Self.failure("\(spec): \(error)")
    } catch let error as ReportError {
      throw Self.failure("\(spec): \(error)")
    }
    var written: [String] = []
    switch outputExtension {
    case "pdf":
      let pdf: Data
      let fallbacks = ReportLayout.ownStructureFallbackCount
      defer {
        if ReportLayout.ownStructureFallbackCount != fallbacks {
          Terminal.warn("\(spec): the structure tree was written by cairo's tags (the library's own did not add up)")
        }
      }
      if probeOwnMarking {
        pdf = try layout.ownMarkingProbe()
      } else if let tags {
        guard tags == "own" || tags == "cairo" else { throw Self.failure("--tags: own or cairo, not '\(tags)'") }
        pdf = try layout.pdfData(ownStructureTree: tags == "own")
      } else {
        pdf = try layout.pdfData()
      }
      try FileAccess.write(pdf, to: output)
      written = [output]
    case "svg":
      try FileAccess.write(layout.svgData(), to: output)
      written = [output]
    default:
      // Pages render in parallel, one per worker; the command itself stays synchronous.
      let pages = ThreadSanitizedMutex([Result<RenderedImage, any Error>?](repeating: nil, count: layout.pages.count))
      DispatchQueue.concurrentPerform(iterations: layout.pages.count) { index in
        let result = Result { try layout.renderPage(index, scale: scale) }
        pages.withLock { $0[index] = result }
      }
      let images = try pages.withLock { $0 }.map { try $0!.get() }
      let stem = (output as NSString).deletingPathExtension
      for (index, image) in images.enumerated() {
        let path = "\(stem)-\(index + 1).png"
        try FileAccess.write(image.pngData(), to: path)
        written.append(path)
      }
    }
    let elapsed = ContinuousClock.now - start
    let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
    print("\(layout.pages.count) page(s) → \(written.joined(separator: ", ")) in \(Int(milliseconds.rounded())) ms")
  }
}

extension ReportCommand {
  /// Prints `message` on standard error and returns the exit status 1 to throw.
  static func failure(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    return ExitCode.failure
  }
}
