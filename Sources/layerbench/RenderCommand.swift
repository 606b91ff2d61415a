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
      line of --file into --out-dir, rendered in parallel on the batch engine (streaming: a file of any size in \
      bounded memory): tile-0004.png is line 4 of the file (every line counts, blank ones too, as in the error \
      messages). `layerbench batch` adds JSON Lines input, a manifest, resume and sharding.
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
    warnAboutFonts(unknownGlyphs: result.unknownGlyphCount, missingFamilies: result.missingFontFamilies)
  }

  /// `--file`: the lines of the file through the batch engine (streaming, a bounded window of
  /// tiles in flight, atomic writes), without a manifest; each tile is reported in line order as it
  /// is written, each bad line as `file:line:`.
  private func renderBatch(file: String) throws {
    let scan = try Self.scan(file)
    var parser = TileParser(format: fileIsMarkup ? .markup : .plain, defaults: options)
    parser.idPrefix = "tile-"
    parser.idDigits = max(4, String(scan.lastTileLine).count)
    let workers = ProcessInfo.processInfo.activeProcessorCount
    var configuration = BatchConfiguration(
      input: file, outDir: outDir, parser: parser, workers: workers, window: 4 * workers, shard: nil)
    configuration.writesManifest = false
    configuration.writeThread = WriteThreadOption.auto.isUsed(workers: workers)
    configuration.resume = false
    configuration.progressInterval = 0  // the progress bar on a terminal only
    let unknownGlyphs = Atomic<Int>(0)
    let outDir = outDir
    configuration.onCommit = { record in
      if let error = record.error {
        FileHandle.standardError.write(Data("error: \(file):\(record.line): \(error)\n".utf8))
      } else {
        let path = (outDir as NSString).appendingPathComponent(record.file ?? "")
        print("wrote \(path) (\(record.width ?? 0)×\(record.height ?? 0) px, \(record.lines ?? 0) lines)")
        unknownGlyphs.add(record.unknownGlyphs ?? 0, ordering: .relaxed)
      }
    }
    let summary: BatchSummary
    do {
      summary = try BatchEngine(configuration: configuration).run()
    } catch {
      throw ValidationErrorMessage("\(error)")
    }
    if summary.rendered > 0 {
      warnAboutFonts(
        unknownGlyphs: unknownGlyphs.load(ordering: .relaxed),
        missingFamilies: FontCatalog.missingFamilies(in: options.style.fontFamily))
    }
    if summary.interrupted {
      FileHandle.standardError.write(Data("interrupted after \(summary.records) of \(scan.tiles) tiles\n".utf8))
      throw ExitCode(130)
    }
    if summary.failures > 0 {
      // One line per failed line of the file (above); a count when there are several.
      if summary.failures > 1 {
        FileHandle.standardError.write(Data("error: \(summary.failures) of \(summary.records) tiles failed\n".utf8))
      }
      throw ExitCode.failure
    }
  }

  /// Reads `file` once, streaming, before anything renders: refuses an unreadable or empty file,
  /// one of blank lines only, or a line that is not UTF-8 (`file:line:`). Lines are numbered as an
  /// editor numbers them (every line counts, blank ones too; a final newline ends the last line).
  static func scan(_ file: String) throws -> (tiles: Int, lastTileLine: Int) {
    try FileAccess.checkReadable(file)
    let reader: LineReader
    do {
      reader = try LineReader(path: file)
    } catch {
      throw ValidationErrorMessage("cannot read \(file): \(error)")
    }
    var tiles = 0
    var lastTileLine = 0
    while let line = try reader.next() {
      if !line.isTooLong {
        guard String(validating: line.bytes, as: UTF8.self) != nil else {
          throw ValidationErrorMessage("\(file):\(line.number): not valid UTF-8")
        }
        if TileParser.isBlank(line.bytes) { continue }
      }
      tiles += 1
      lastTileLine = line.number
    }
    guard reader.lineCount > 0 else { throw ValidationErrorMessage("\(file) is empty: there is nothing to render") }
    guard tiles > 0 else {
      throw ValidationErrorMessage("\(file) has only blank lines (\(reader.lineCount)): there is nothing to render")
    }
    return (tiles, lastTileLine)
  }

  private func report(_ result: RenderedText, path: String) {
    let image = result.image
    print("wrote \(path) (\(image.pixelWidth)×\(image.pixelHeight) px, \(result.lineCount) lines)")
  }

  private func warnAboutFonts(unknownGlyphs unknown: Int, missingFamilies: [String]) {
    if unknown > 0 {
      Terminal.warn(
        "\(unknown == 1 ? "1 character has" : "\(unknown) characters have") no font and "
          + "\(unknown == 1 ? "was" : "were") drawn as boxes; `layerbench fonts` with the same text shows which "
          + "characters and scripts lack a font")
    }
    if !missingFamilies.isEmpty {
      Terminal.warn("font family \(missingFamilies.joined(separator: ", ")) is not installed; a fallback font was used")
    }
  }
}
