import ArgumentParser
import AsyncLayer
import Foundation

/// `layerbench samples`: the built-in sample set `make run` renders.
struct SamplesCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "samples",
    abstract: "Render the built-in sample tiles (English, Chinese, Arabic, emoji, markup, a long paragraph).",
    discussion: "With --scripts, one tile per supported script instead (the README's script table shows them)."
  )

  @Option(help: "Output directory.")
  var outDir = "out"

  @Flag(help: "Render the sample sentence of every supported script (<name>.png) instead.")
  var scripts = false

  struct Sample {
    let name: String
    let content: TextContent
    var style = TextStyle(font: "Sans 14")
    var height: Double?
  }

  static let samples: [Sample] = [
    Sample(
      name: "english",
      content: .plain(
        "The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread.")),
    Sample(
      name: "chinese", content: .plain("异步绘制让列表在快速滚动时保持流畅：文字在后台线程排版并栅格化，主线程只负责提交结果。"),
      style: TextStyle(fontFamily: "Sans", fontSize: 14, language: "zh-CN")),
    Sample(
      name: "arabic", content: .plain("يرسم النص في الخلفية حتى تبقى القائمة سلسة أثناء التمرير السريع."),
      // The default alignment, .natural, puts an Arabic paragraph at the right edge.
      style: TextStyle(fontFamily: "Sans", fontSize: 14, language: "ar")),
    Sample(name: "emoji", content: .plain("Colour emoji: 😀 🎉 🚀 🌍 👩🏽‍💻 🇯🇵 ❤️")),
    Sample(
      name: "markup",
      content: .markup(
        "<b>Bold</b>, <i>italic</i>, <span foreground=\"#c0392b\">red</span>, <tt>mono</tt> and <big>big</big> text.")),
    Sample(
      name: "paragraph-ellipsis",
      content: .plain(
        String(
          repeating:
            "A long paragraph keeps going well past the space it is given, so the tile cuts it after three lines with an ellipsis. ",
          count: 4)),
      style: TextStyle(fontFamily: "Serif", fontSize: 14, ellipsize: .end, maxLines: 3)),
  ]

  func validate() throws {
    try FileAccess.checkDirectoryUsable(outDir, option: "--out-dir")
  }

  func run() throws {
    try FileAccess.createDirectory(outDir)
    let samples =
      scripts
      ? ScriptSample.all.map { Sample(name: $0.name, content: .plain($0.text), style: $0.style) } : Self.samples
    var unknown = 0
    for sample in samples {
      let tile = TextTile(
        sample.content, style: sample.style, width: 375, height: sample.height, scale: 2,
        padding: EdgeInsets(all: 12), background: .white)
      let result = try tile.render()
      let path = (outDir as NSString).appendingPathComponent("\(sample.name).png")
      try FileAccess.write(result.image.pngData(), to: path)
      unknown += result.unknownGlyphCount
      print(
        "wrote \(path) (\(result.image.pixelWidth)×\(result.image.pixelHeight) px, \(result.lineCount) lines, "
          + "\(result.unknownGlyphCount) unknown glyphs)")
    }
    if unknown > 0 {
      Terminal.warn(
        "\(unknown) characters had no font; `layerbench fonts --scripts` shows which, `make deps` installs the fonts")
    }
  }
}
