import Foundation
import Testing

@Suite("layerbench fonts, run as a process")
struct FontsCommandTests {
  /// Runs `layerbench fonts …` in a fresh directory, after `setUp` has prepared it.
  private func fonts(
    _ arguments: [String], input: Data? = nil, setUp: (URL) throws -> Void = { _ in }
  ) throws -> CLI.Outcome {
    try CLI.withTemporaryDirectory { dir in
      try setUp(dir)
      return try CLI.run(["fonts"] + arguments, input: input, in: dir)
    }
  }

  @Test("a covered text: the font per script, fallbacks marked, exit 0")
  func coveredText() throws {
    let run = try fonts(["Hello हिन्दी ภาษาไทย", "--files"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("Sans resolves to "))
    for script in ["Latin (Latn)", "Devanagari (Deva)", "Thai (Thai)"] {
      #expect(run.stdout.contains(script), "\(run.stdout)")
    }
    let devanagari = try #require(run.stdout.split(separator: "\n").first { $0.contains("Devanagari") })
    #expect(devanagari.contains("(fallback)") && devanagari.contains("/"), "\(devanagari)")
    #expect(run.stdout.contains("Every character has a font."))
    #expect(run.stderr.isEmpty)
  }

  @Test("characters without a font: code point, script and count, and exit 1 with one error line")
  func missingCharacters() throws {
    // U+0378 is unassigned: no font has it.
    let run = try fonts(["ab\u{378}c\u{378}"])
    #expect(run.status == 1)
    #expect(run.stdout.contains("No font for 2 characters (1 distinct):"), "\(run.stdout)")
    let row = try #require(run.stdout.split(separator: "\n").first { $0.contains("U+0378") })
    #expect(row.contains("Unknown") && row.contains("×2"), "\(row)")
    #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    #expect(run.stderr.contains("2 characters have no font (Unknown 2)"), "\(run.stderr)")
    #expect(run.stderr.contains("make deps"))
  }

  @Test("the text can come from --file or standard input (a byte-order mark is skipped)")
  func fileAndStandardInput() throws {
    let text = "\u{FEFF}Привет\nשלום\n"
    let fromFile = try fonts(["--file", "in.txt"]) { dir in
      try Data(text.utf8).write(to: dir.appendingPathComponent("in.txt"))
    }
    let fromInput = try fonts([], input: Data(text.utf8))
    for run in [fromFile, fromInput] {
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stdout.contains("Cyrillic (Cyrl)") && run.stdout.contains("Hebrew (Hebr)"), "\(run.stdout)")
    }
    #expect(fromFile.stdout == fromInput.stdout)
  }

  @Test("markup is checked as the text it shows")
  func markupText() throws {
    let run = try fonts(["--markup", "<b>ქართული</b> <i>Հայերեն</i>"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("Georgian (Geor)") && run.stdout.contains("Armenian (Armn)"))
    #expect(!run.stdout.contains("Latin"), "markup tags must not count as Latin text: \(run.stdout)")
  }

  @Test("--scripts: every supported script has a font after `make deps`")
  func everyScriptIsCovered() throws {
    let run = try fonts(["--scripts"])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    let rows = run.stdout.split(separator: "\n").dropFirst()
    #expect(rows.count >= 27)
    for row in rows { #expect(row.hasSuffix("ok"), "\(row)") }
    for script in ["Devanagari", "Thai", "Khmer", "Myanmar", "Ethiopic", "CJK (Korean)", "Colour emoji"] {
      #expect(rows.contains { $0.hasPrefix(script) }, "\(script) missing from --scripts")
    }
  }

  @Test(
    "bad input is refused with one clear line",
    arguments: [
      (["a", "--file", "x.txt"], "at most one of"),
      (["--file", "missing.txt"], "cannot read missing.txt"),
      (["--file", "blank.txt"], "blank.txt is empty or only spaces"),
      (["--file", "latin1.txt"], "latin1.txt is not valid UTF-8"),
      ([""], "the text is empty"),
      (["--markup", "<b>open"], "markup"),
    ])
  func badInput(arguments: [String], message: String) throws {
    let run = try fonts(arguments) { dir in
      try Data("  \n".utf8).write(to: dir.appendingPathComponent("blank.txt"))
      try Data([0x63, 0x61, 0x66, 0xE9]).write(to: dir.appendingPathComponent("latin1.txt"))
    }
    #expect(run.failedCleanly, "\(run.status) \(run.stderr)")
    #expect(run.stderr.contains(message), "\(run.stderr)")
    #expect(!run.stderr.contains("Usage:"), "\(run.stderr)")
  }

  @Test("a file longer than one layout takes is checked whole, in parts")
  func longFile() throws {
    // 3 000 lines: three times the paragraphs one layout accepts.
    let lines = (0..<3_000).map { $0 == 2_999 ? "last \u{378}" : "line \($0) ภาษาไทย" }
    let run = try fonts(["--file", "long.txt"]) { dir in
      try Data(lines.joined(separator: "\n").utf8).write(to: dir.appendingPathComponent("long.txt"))
    }
    #expect(run.status == 1, "\(run.stderr)")
    #expect(run.stderr.contains("1 character has no font (Unknown 1)"), "\(run.stderr)")
    let thai = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("Thai") })
    #expect(thai.contains(" 20993 "), "7 Thai characters × 2 999 lines: \(thai)")
  }

  @Test("a single line longer than one layout takes is checked too")
  func longLine() throws {
    let line = String(repeating: "ab", count: 200_000) + "\u{378}"
    let run = try fonts([], input: Data(line.utf8))
    #expect(run.status == 1, "\(run.stderr)")
    let latin = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("Latin (Latn)") })
    #expect(latin.contains(" 400000 "), "\(latin)")
    #expect(run.stderr.contains("1 character has no font (Unknown 1)"), "\(run.stderr)")
  }

  @Test("empty standard input is refused")
  func emptyStandardInput() throws {
    let run = try fonts([], input: Data())
    #expect(run.status == 1)
    #expect(run.stderr.contains("standard input is empty"), "\(run.stderr)")
  }

  @Test("render's unknown-glyph warning points to `layerbench fonts`")
  func renderWarningPointsHere() throws {
    try CLI.withTemporaryDirectory { dir in
      let run = try CLI.run(["render", "--text", "a\u{378}b", "-o", "t.png"], in: dir)
      #expect(run.status == 0)
      #expect(
        run.stderr.contains("1 character has no font") && run.stderr.contains("layerbench fonts"), "\(run.stderr)")
    }
  }
}
