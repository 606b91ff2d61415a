import ArgumentParser
import AsyncLayer

/// Tile and style options shared by the commands that render text (in the spirit of pango-view).
struct TextOptions: ParsableArguments {
  @Option(help: "Pango font description, e.g. \"Sans 14\" or \"DejaVu Serif Bold 12\".")
  var font = "Sans 14"

  @Option(help: "Tile width in points, padding included.")
  var width: Double = 375

  @Option(help: "Tile height in points, padding included (default: fit the text).")
  var height: Double?

  @Option(help: "Device pixels per point.")
  var scale: Double = 2

  @Option(help: "Padding around the text, in points.")
  var padding: Double = 8

  @Option(help: "Alignment: left, center, right, justify.")
  var align: TextAlignment = .left

  @Option(help: "Wrapping: word, char, word-char.")
  var wrap: WrapMode = .word

  @Option(help: "Ellipsize: none, start, middle, end.")
  var ellipsize: EllipsizeMode = .none

  @Option(name: .customLong("max-lines"), help: "Show at most this many lines (0: no limit).")
  var maxLines = 0

  @Option(help: "Extra space between lines, in points.")
  var lineSpacing: Double = 0

  @Option(help: "Text colour: #rgb, #rrggbb, #rrggbbaa or a name.")
  var fg = "black"

  @Option(help: "Background colour; 'transparent' for none.")
  var bg = "white"

  @Option(help: "BCP 47 language tag, e.g. zh-CN or ar.")
  var language: String?

  func validate() throws {
    for (name, value) in [("--width", width), ("--scale", scale)] where !(value.isFinite && value > 0) {
      throw ValidationError("\(name) must be a positive, finite number (got \(value))")
    }
    if let height, !(height.isFinite && height > 0) {
      throw ValidationError("--height must be a positive, finite number (got \(height))")
    }
    guard padding.isFinite, padding >= 0 else { throw ValidationError("--padding must be ≥ 0 (got \(padding))") }
    guard maxLines >= 0 else { throw ValidationError("--max-lines must be ≥ 0 (got \(maxLines))") }
    do {
      _ = try Color(parsing: fg)
      _ = try Color(parsing: bg)
    } catch {
      throw ValidationError("\(error)")
    }
  }

  var style: TextStyle {
    var style = TextStyle(font: font)
    style.alignment = align
    style.wrap = wrap
    style.ellipsize = ellipsize
    style.maxLines = maxLines
    style.lineSpacing = lineSpacing
    style.color = (try? Color(parsing: fg)) ?? .black
    style.language = language
    return style
  }

  func tile(_ content: TextContent) -> TextTile {
    let background = (try? Color(parsing: bg)) ?? .white
    return TextTile(
      content, style: style, width: width, height: height, scale: scale, padding: EdgeInsets(all: padding),
      background: background.alpha > 0 ? background : nil)
  }
}

extension TextAlignment: ExpressibleByArgument {}
extension WrapMode: ExpressibleByArgument {}
extension EllipsizeMode: ExpressibleByArgument {}
extension GlyphCompositing: ExpressibleByArgument {}
