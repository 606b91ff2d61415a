import ArgumentParser
import AsyncLayer
import Foundation
import Synchronization

/// `layerbench render`: text to PNG tiles.
struct RenderCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "render",
    abstract: "Render text to PNG or JPEG tiles.",
    discussion: """
      One tile from --text or --markup into --out (PNG or JPEG, by its extension), or one PNG tile per non-blank \
      line of --file into --out-dir, rendered in parallel: tile-0004.png is line 4 of the file (every line \
      counts, blank ones too, as in the error messages).
      """
  )

  @Option(help: "Plain text to render.")
  var text: String?

  @Option(help: "Pango markup to render, e.g. '<b>bold</b> text'.")
  var markup: String?

  @Option(help: "A UTF-8 file: one tile per non-blank line.")
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
    let lines = try Self.lines(of: file)
    try FileAccess.createDirectory(outDir)
    let digits = max(4, String(lines.last!.number).count)
    let outcomes = ThreadSanitizedMutex([Result<RenderedText, any Error>?](repeating: nil, count: lines.count))
    let done = Atomic<Int>(0)
    let tiles = lines.map { options.tile(fileIsMarkup ? .markup($0.text) : .plain($0.text)) }
    let paths = lines.map { line in
      (outDir as NSString).appendingPathComponent("tile-" + String(format: "%0\(digits)d", line.number) + ".png")
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
        FileHandle.standardError.write(Data("error: \(file):\(lines[index].number): \(error)\n".utf8))
      case nil:
        failures += 1
      }
    }
    warnAboutFonts(rendered)
    if failures > 0 {
      // One line per failed line of the file; a count when there are several.
      if failures > 1 {
        FileHandle.standardError.write(Data("error: \(failures) of \(lines.count) tiles failed\n".utf8))
      }
      throw ExitCode.failure
    }
  }

  /// The non-blank lines of `file`, numbered as an editor numbers them: every line counts, blank
  /// ones too; lines end at "\n" (a "\r" before it is dropped), and a final newline ends the last one.
  static func lines(of file: String) throws -> [(number: Int, text: String)] {
    var data = try FileAccess.read(file)[...]
    guard !data.isEmpty else { throw ValidationErrorMessage("\(file) is empty: there is nothing to render") }
    if data.starts(with: [0xEF, 0xBB, 0xBF]) { data = data.dropFirst(3) }  // a UTF-8 byte-order mark
    var pieces = data.split(separator: 0x0A, omittingEmptySubsequences: false)
    if pieces.count > 1, pieces.last?.isEmpty == true { pieces.removeLast() }
    var lines: [(number: Int, text: String)] = []
    for (index, piece) in pieces.enumerated() {
      let bytes = piece.last == 0x0D ? piece.dropLast() : piece
      guard let text = String(validating: bytes, as: UTF8.self) else {
        throw ValidationErrorMessage("\(file):\(index + 1): not valid UTF-8")
      }
      if !text.allSatisfy(\.isWhitespace) { lines.append((index + 1, text)) }
    }
    guard !lines.isEmpty else {
      throw ValidationErrorMessage(
        "\(file) has only blank lines (\(pieces.count)): there is nothing to render")
    }
    return lines
  }

  private func report(_ result: RenderedText, path: String) {
    let image = result.image
    print("wrote \(path) (\(image.pixelWidth)×\(image.pixelHeight) px, \(result.lineCount) lines)")
  }

  private func warnAboutFonts(_ results: [RenderedText]) {
    let unknown = results.reduce(0) { $0 + $1.unknownGlyphCount }
    if unknown > 0 {
      Terminal.warn(
        "\(unknown == 1 ? "1 character has" : "\(unknown) characters have") no font and "
          + "\(unknown == 1 ? "was" : "were") drawn as boxes; `layerbench fonts` with the same text shows which "
          + "characters and scripts lack a font")
    }
    if let missing = results.first?.missingFontFamilies, !missing.isEmpty {
      Terminal.warn("font family \(missing.joined(separator: ", ")) is not installed; a fallback font was used")
    }
  }
}
