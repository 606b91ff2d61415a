import ArgumentParser
import AsyncLayer
import Foundation
import Synchronization

/// `layerbench render`: text to PNG tiles.
struct RenderCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "render",
    abstract: "Render text to PNG tiles.",
    discussion: """
      One tile from --text or --markup into --out, or one tile per non-empty line of --file into --out-dir
      (numbered PNGs, rendered in parallel).
      """
  )

  @Option(help: "Plain text to render.")
  var text: String?

  @Option(help: "Pango markup to render, e.g. '<b>bold</b> text'.")
  var markup: String?

  @Option(help: "A UTF-8 file: one tile per non-empty line.")
  var file: String?

  @Flag(help: "Treat the lines of --file as Pango markup.")
  var fileIsMarkup = false

  @Option(
    name: [.short, .customLong("out")],
    help: "Output image for --text / --markup: .png, or .jpg / .jpeg (quality 90, needs an opaque --bg).")
  var out = "out.png"

  @Option(help: "Output directory for --file.")
  var outDir = "out"

  @OptionGroup var options: TextOptions

  func validate() throws {
    let inputs = [text, markup, file].compactMap { $0 }
    guard inputs.count == 1 else { throw ValidationError("give exactly one of --text, --markup or --file") }
    for (name, value) in [("--text", text), ("--markup", markup)] where value?.allSatisfy(\.isWhitespace) == true {
      throw ValidationErrorMessage("\(name) is empty or only spaces: there is nothing to render")
    }
    if file != nil {
      try FileAccess.checkDirectoryUsable(outDir, option: "--out-dir")
    } else {
      let format = try ImageFileFormat.checkOutput(out, option: "-o")
      if format == .jpeg, let background = try? Color(parsing: options.bg), background.alpha < 1 {
        throw ValidationErrorMessage(
          "-o \(out): JPEG has no transparency and --bg \(options.bg) is not opaque; use a .png file or an opaque --bg")
      }
    }
  }

  func run() throws {
    if let file {
      try renderBatch(file: file)
      return
    }
    let content: TextContent = markup.map(TextContent.markup) ?? .plain(text ?? "")
    let result = try options.tile(content).render()
    try ImageFileFormat.write(result.image, to: out, option: "-o")
    report(result, path: out)
    warnAboutFonts([result])
  }

  private func renderBatch(file: String) throws {
    guard let source = String(validating: try FileAccess.read(file), as: UTF8.self) else {
      throw ValidationErrorMessage("cannot read \(file): not valid UTF-8")
    }
    let lines = source.split(whereSeparator: \.isNewline).map(String.init)
      .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    try FileAccess.createDirectory(outDir)
    let digits = max(4, String(lines.count).count)
    let outcomes = Mutex([Result<RenderedText, any Error>?](repeating: nil, count: lines.count))
    let done = Atomic<Int>(0)
    let tiles = lines.map { options.tile(fileIsMarkup ? .markup($0) : .plain($0)) }
    let paths = lines.indices.map { index in
      (outDir as NSString).appendingPathComponent("tile-" + String(format: "%0\(digits)d", index + 1) + ".png")
    }
    DispatchQueue.concurrentPerform(iterations: lines.count) { index in
      let outcome = Result {
        let result = try tiles[index].render()
        try FileAccess.write(result.image.pngData(), to: paths[index])
        return result
      }
      outcomes.withLock { $0[index] = outcome }
      let finished = done.add(1, ordering: .relaxed).newValue
      Terminal.progress(finished, of: lines.count, label: "rendering")
    }
    var failures = 0
    var rendered: [RenderedText] = []
    for (index, outcome) in outcomes.withLock({ $0 }).enumerated() {
      switch outcome {
      case .success(let result)?:
        report(result, path: paths[index])
        rendered.append(result)
      case .failure(let error)?:
        failures += 1
        FileHandle.standardError.write(Data("error: line \(index + 1): \(error)\n".utf8))
      case nil:
        failures += 1
      }
    }
    warnAboutFonts(rendered)
    if failures > 0 {
      throw ValidationError("\(failures) of \(lines.count) tiles failed")
    }
  }

  private func report(_ result: RenderedText, path: String) {
    let image = result.image
    print("wrote \(path) (\(image.pixelWidth)×\(image.pixelHeight) px, \(result.lineCount) lines)")
  }

  private func warnAboutFonts(_ results: [RenderedText]) {
    let unknown = results.reduce(0) { $0 + $1.unknownGlyphCount }
    if unknown > 0 {
      Terminal.warn("\(unknown) characters have no font and were drawn as boxes (install a font that covers them)")
    }
    if let missing = results.first?.missingFontFamilies, !missing.isEmpty {
      Terminal.warn("font family \(missing.joined(separator: ", ")) is not installed; a fallback font was used")
    }
  }
}
