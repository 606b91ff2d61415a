import AsyncLayer
import AsyncLayerTestSupport
import Foundation
import Testing

/// The text features of `layerbench` as a user reaches them: alignment words, font files.
extension CLITests {
  @Test("the built-in Arabic sample hugs the right edge, every line")
  func arabicSampleEndsAtTheRight() throws {
    try CLI.withTemporaryDirectory { directory in
      let outcome = try CLI.run(["samples", "--out-dir", "out"], in: directory)
      #expect(outcome.status == 0 && !outcome.signalled, "\(outcome)")
      let image = try RenderedImage(contentsOfPNGFile: directory.appendingPathComponent("out/arabic.png").path)
      let ink = try #require(image.inkBounds(background: .white))
      // 375 points at scale 2 with 12 points of padding: the text's right edge is pixel 726.
      #expect(ink.maxX > 726 - 8, "ink ends at \(ink.maxX)")
      // The last line (the bottom 14 pixels of ink) is short: it starts at the right, far from the left.
      let last = try #require(image.inkColumns(rows: (ink.maxY - 14)..<(ink.maxY + 1), background: .white))
      #expect(last.maxX > 726 - 8 && last.minX > 300, "last line's ink: \(last.minX)–\(last.maxX)")
    }
  }

  @Test("--align takes the relative and the absolute words", arguments: ["natural", "trailing", "left", "right"])
  func alignWords(word: String) throws {
    try CLI.withTemporaryDirectory { directory in
      let outcome = try CLI.run(
        ["render", "--text", "مرحبا", "--align", word, "--width", "300", "--scale", "1", "-o", "t.png"], in: directory)
      #expect(outcome.status == 0 && !outcome.signalled, "\(outcome)")
      let image = try RenderedImage(contentsOfPNGFile: directory.appendingPathComponent("t.png").path)
      let ink = try #require(image.inkBounds(background: .white))
      let atRight = ink.maxX > 300 - 8 - 6
      #expect(atRight == (word == "natural" || word == "right"), "\(word): ink \(ink.minX)–\(ink.maxX)")
    }
  }

  @Test("an unknown --align word is refused with the list")
  func unknownAlignWord() throws {
    let outcome = try run(["render", "--text", "hi", "--align", "start", "-o", "t.png"])
    #expect(outcome.failedCleanly, "\(outcome)")
    #expect(outcome.stderr.contains("natural") && outcome.stderr.contains("trailing"), "\(outcome)")
  }
}

extension CLITests {
  static let testFonts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("AsyncLayerTests/Fonts")

  @Test("--font-file makes a font file's family usable in --font")
  func fontFileOption() throws {
    try CLI.withTemporaryDirectory { directory in
      let outcome = try CLI.run(
        [
          "render", "--text", "AAAAA", "--font-file", Self.testFonts.appendingPathComponent("blocks.ttf").path,
          "--font", "AsyncLayer Test Blocks 20", "--scale", "1", "-o", "t.png",
        ], in: directory)
      #expect(outcome.status == 0 && !outcome.signalled, "\(outcome)")
      #expect(!outcome.stderr.contains("not installed"), "\(outcome)")
      let image = try RenderedImage(contentsOfPNGFile: directory.appendingPathComponent("t.png").path)
      let ink = try #require(image.inkBounds(background: .white))
      // Five 0.6-em boxes at 20 points, each 0.5 em of ink: from 1 point in to 59 points.
      #expect(abs((ink.maxX - ink.minX + 1) - 58) <= 2, "ink \(ink)")
    }
  }

  @Test("--font-file with a missing or invalid file: one line naming it")
  func badFontFile() throws {
    expectRefusal(
      try run(["render", "--text", "hi", "--font-file", "missing.ttf", "-o", "t.png"]),
      ["--font-file: missing.ttf: no such file or folder"])
    expectRefusal(
      try run(
        ["render", "--text", "hi", "--font-file", "bad.otf", "-o", "t.png"],
        setUp: { try Data("nope".utf8).write(to: $0.appendingPathComponent("bad.otf")) }),
      ["--font-file: bad.otf: not a font file"])
  }
}
