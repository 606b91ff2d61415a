import ArgumentParser
import AsyncLayer
import Foundation
import OrderedCollections

/// `layerbench fonts`: which font draws each script of a text, and which characters have none.
struct FontsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "fonts",
    abstract: "Show which font draws each script of a text and which characters have no font (drawn as boxes).",
    discussion: """
      Lays the text out as `render` does (same --font and --language) and reports, per script, the font Pango \
      chose and whether it is a fallback, then every character no installed font covers, with its code point \
      and script. The text comes from the argument, --file, or standard input. --scripts checks the sample \
      sentence of every script the project supports instead. Exits 1 when a character has no font.
      """
  )

  @Argument(help: "The text to check (or use --file, or pipe it on standard input).")
  var text: String?

  @Option(help: "A UTF-8 file to check.")
  var file: String?

  @Flag(help: "Treat the text as Pango markup.")
  var markup = false

  @Flag(help: "Check the built-in sample sentence of every supported script.")
  var scripts = false

  @Flag(help: "Show each font's file.")
  var files = false

  @Option(help: "Pango font description, e.g. \"Sans 14\" or \"DejaVu Serif 12\".")
  var font = "Sans 14"

  @Option(help: "BCP 47 language tag, e.g. zh-CN or ja: steers the choice among fonts that cover a script.")
  var language: String?

  func validate() throws {
    if [text != nil, file != nil, scripts].filter({ $0 }).count > 1 {
      throw ValidationErrorMessage("give at most one of a text, --file or --scripts")
    }
    if text?.isEmpty == true { throw ValidationErrorMessage("the text is empty: there is nothing to check") }
  }

  func run() throws {
    if scripts {
      try checkSamples()
      return
    }
    let input = try readInput()
    var style = TextStyle(font: font)
    style.language = language
    // Plain text is checked in parts of whole lines, so that a file longer than one layout takes
    // (TextLimits) is checked whole; markup in one piece, as a tag may span lines.
    let parts = markup ? [input] : Self.parts(of: input)
    let coverage = FontCoverage(
      combining: try parts.map { try FontCoverage(markup ? .markup($0) : .plain($0), style: style) })
    print(Self.describe(coverage, family: style.fontFamily, files: files), terminator: "")
    if !coverage.isComplete {
      let scripts = Self.scriptsWithout(coverage)
      let count = coverage.missingCharacterCount
      throw ValidationErrorMessage(
        "\(count == 1 ? "1 character has" : "\(count) characters have") no font (\(scripts)); install a font "
          + "that covers \(count == 1 ? "it" : "them") (`make deps` installs fonts for the scripts in the README's table)"
      )
    }
  }

  private func readInput() throws -> String {
    let data: Data
    let source: String
    if let text {
      return text
    } else if let file {
      data = try FileAccess.read(file)
      source = file
    } else {
      guard isatty(STDIN_FILENO) == 0 else {
        throw ValidationErrorMessage("give a text, --file, --scripts, or pipe the text on standard input")
      }
      data = FileHandle.standardInput.readDataToEndOfFile()
      source = "standard input"
    }
    guard var string = String(validating: data, as: UTF8.self) else {
      throw ValidationErrorMessage("\(source) is not valid UTF-8")
    }
    if string.hasPrefix("\u{FEFF}") { string.removeFirst() }  // a byte-order mark
    guard !string.allSatisfy(\.isWhitespace) else {
      throw ValidationErrorMessage("\(source) is empty or only spaces: there is nothing to check")
    }
    return string
  }

  /// `text` in runs of whole lines, each well within ``TextLimits/default``; a line too long for
  /// one part is cut between characters (which changes no character's font).
  static func parts(of text: String, maximumLines: Int = 500, maximumBytes: Int = 128 << 10) -> [String] {
    var parts: [String] = []
    var part = ""
    var lines = 0
    var bytes = 0
    func add(_ line: Substring) {
      if lines > 0 && (lines == maximumLines || bytes + line.utf8.count >= maximumBytes) {
        parts.append(part)
        (part, lines, bytes) = ("", 0, 0)
      }
      part += (lines > 0 ? "\n" : "") + line
      lines += 1
      bytes += line.utf8.count + 1
    }
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      var rest = line
      while rest.utf8.count >= maximumBytes {
        var end = rest.startIndex
        var length = 0
        while length < maximumBytes / 2, end < rest.endIndex {
          length += rest[end].utf8.count
          end = rest.index(after: end)
        }
        add(rest[..<end])
        rest = rest[end...]
      }
      add(rest)
    }
    if !part.allSatisfy(\.isWhitespace) { parts.append(part) }
    return parts
  }

  /// One line per sample: its fonts, and what has none.
  private func checkSamples() throws {
    var incomplete: [String] = []
    let rows = try ScriptSample.all.map { sample -> [String] in
      var style = TextStyle(font: font)
      style.language = sample.language
      let coverage = try FontCoverage(.plain(sample.text), style: style)
      // Spaces and punctuation (script Common) take the neighbouring font: leave them out.
      let families = OrderedSet(coverage.fonts.filter { $0.script.code != "Zyyy" }.map(\.fontFamily))
      if !coverage.isComplete { incomplete.append(sample.script) }
      let missing = coverage.isComplete ? "ok" : "\(coverage.missingCharacterCount) without a font"
      return [sample.script, sample.language, families.joined(separator: ", "), missing]
    }
    print(Self.table([["script", "language", "font", "coverage"]] + rows), terminator: "")
    if !incomplete.isEmpty {
      throw ValidationErrorMessage(
        "no font for part of \(incomplete.joined(separator: ", ")); `make deps` installs the fonts (see the README)")
    }
  }

  /// The report for one text: the fonts per script, then the characters without a font.
  static func describe(_ coverage: FontCoverage, family: String, files: Bool) -> String {
    var out = "\(family) resolves to \(coverage.primaryFontFamily).\n"
    if !coverage.fonts.isEmpty {
      var rows = [["script", "characters", "font"] + (files ? ["file"] : [])]
      for entry in coverage.fonts {
        let font = entry.fontFamily + (entry.isFallback ? " (fallback)" : "")
        let row = ["\(entry.script.name) (\(entry.script.code))", "\(entry.characterCount)", font]
        rows.append(row + (files ? [entry.fontFile ?? "-"] : []))
      }
      out += table(rows, rightAligned: [1])
    }
    if coverage.isComplete {
      out += "Every character has a font.\n"
    } else {
      let count = coverage.missingCharacterCount
      out += "No font for \(count == 1 ? "1 character" : "\(count) characters") (\(coverage.missing.count) distinct):\n"
      var rows: [[String]] = []
      for character in coverage.missing {
        rows.append(["  " + character.codePoint, shown(character.scalar), character.script.name, "×\(character.count)"])
      }
      out += table(rows)
    }
    return out
  }

  /// "Thai 5, Unknown 1": the scripts of the missing characters with their counts.
  static func scriptsWithout(_ coverage: FontCoverage) -> String {
    var counts: [(String, Int)] = []
    for character in coverage.missing {
      if let index = counts.firstIndex(where: { $0.0 == character.script.name }) {
        counts[index].1 += character.count
      } else {
        counts.append((character.script.name, character.count))
      }
    }
    return counts.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
  }

  /// The character as a person can see it: marks on a dotted circle, invisible ones as "-".
  private static func shown(_ scalar: Unicode.Scalar) -> String {
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .spacingMark: return "◌" + String(scalar)
    case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator,
      .spaceSeparator:
      return "-"
    default: return String(scalar)
    }
  }

  /// Columns padded to their widest cell (counted in characters, which is what a terminal with a
  /// monospaced Latin font shows; other scripts may not line up exactly).
  static func table(_ rows: [[String]], rightAligned: Set<Int> = []) -> String {
    let columns = rows.map(\.count).max() ?? 0
    let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
    return rows.map { row in
      row.enumerated().map { column, cell in
        let pad = String(repeating: " ", count: widths[column] - cell.count)
        if column == row.count - 1 && !rightAligned.contains(column) { return cell }
        return rightAligned.contains(column) ? pad + cell : cell + pad
      }.joined(separator: "  ") + "\n"
    }.joined()
  }
}
