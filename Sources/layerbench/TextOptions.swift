public import ArgumentParser
@_spi(Benchmarks) import AsyncLayer

/// Tile and style options shared by the commands that render text (in the spirit of pango-view).
///
/// Numeric options take negative values in the space form too (`--line-spacing -2`), and every one
/// is range-checked in `validate()`.
struct TextOptions: ParsableArguments {
  /// The largest tile side, in points: 10 000 pt is 20 000 px at scale 2, within cairo's 32 767.
  static let maximumSide = 10_000.0
  /// Device pixels per point: 0.1 (a thumbnail) to 16 (the report command's limit).
  static let scaleRange = 0.1...16.0
  static let maximumPadding = 1_000.0
  static let maximumLineSpacing = 1_000.0
  /// Pango takes the count as a negative 32-bit height (99 999 999 999 trapped in the conversion);
  /// 10 000 lines fill a 10 000 pt tile at 1 pt per line.
  static let maximumLines = 10_000

  @Option(help: "Pango font description, e.g. \"Sans 14\" or \"DejaVu Serif Bold 12\".")
  var font = "Sans 14"

  @Option(parsing: .unconditional, help: "Tile width in points, padding included (at most 10000).")
  var width: Double = 375

  @Option(
    parsing: .unconditional, help: "Tile height in points, padding included (default: fit the text; at most 10000).")
  var height: Double?

  @Option(parsing: .unconditional, help: "Device pixels per point, 0.1–16.")
  var scale: Double = 2

  @Option(parsing: .unconditional, help: "Padding around the text, in points (less than half the width).")
  var padding: Double = 8

  @Option(
    help: """
      Alignment: natural (default: the start of each paragraph's direction), leading, trailing (its end), \
      left, right (absolute edges, whatever the direction), center, justify.
      """)
  var align: TextAlignment = .natural

  @Option(help: "Wrapping: word, char, word-char.")
  var wrap: WrapMode = .word

  @Option(help: "Ellipsize: none, start, middle, end.")
  var ellipsize: EllipsizeMode = .none

  @Option(
    name: .customLong("max-lines"), parsing: .unconditional,
    help: "Show at most this many lines (0: no limit; at most 10000).")
  var maxLines = 0

  @Option(
    parsing: .unconditional,
    help: "Extra space between lines, in points: from minus half the font size (tighter) to 1000.")
  var lineSpacing: Double = 0

  @Option(help: "Text colour: #rgb, #rrggbb, #rrggbbaa or a name.")
  var fg = "black"

  @Option(help: "Background colour; 'transparent' for none.")
  var bg = "white"

  @Option(help: "BCP 47 language tag, e.g. zh-CN or ar.")
  var language: String?

  @Option(
    name: .customLong("font-file"),
    help: "A font file (.ttf, .otf, .ttc) or a folder of them to use by family name in --font; repeatable.")
  var fontFiles: [String] = []

  func validate() throws {
    // Registered here, before --font is checked, so that its family is known (again for each
    // batch line, which returns at once: the files are registered).
    for file in fontFiles {
      do {
        try FontFiles.register(file)
      } catch {
        throw ValidationErrorMessage("--font-file: \(error)")
      }
    }
    try Bounds.check(width, "--width", above: 0, atMost: Self.maximumSide, "points")
    if let height { try Bounds.check(height, "--height", above: 0, atMost: Self.maximumSide, "points") }
    try Bounds.check(scale, "--scale", Self.scaleRange, "pixels per point")
    try Bounds.check(padding, "--padding", 0...Self.maximumPadding, "points")
    let f = Bounds.format
    for (name, side) in [("--width", width), ("--height", height)] {
      guard let side else { continue }
      guard 2 * padding < side else {
        throw ValidationErrorMessage(
          "--padding \(f(padding)) leaves no room for text in \(name) \(f(side)): it must be less than half of it")
      }
      let pixels = side * scale
      let limit = ImageRenderer.maximumPixelsPerSide
      guard pixels >= 1, pixels <= Double(limit) else {
        throw ValidationErrorMessage(
          "\(name) \(f(side)) at --scale \(f(scale)) is \(f(pixels.rounded())) pixels; a tile side must be 1 to \(limit) pixels"
        )
      }
    }
    let fontSize = TextStyle(font: font).fontSize
    guard fontSize.isFinite, fontSize > 0, fontSize * scale <= TextLayout.maximumFontPixelSize else {
      let limit = f(TextLayout.maximumFontPixelSize)
      throw ValidationErrorMessage(
        "--font '\(font)': the size must be above 0 and at most \(limit) pixels at --scale \(f(scale)) "
          + "(got \(f(fontSize)) points, \(f((fontSize * scale).rounded())) pixels)")
    }
    // Lines may be pulled together by up to half the font size: they still advance, and the tile
    // keeps a height.
    let tightest = -fontSize / 2
    guard lineSpacing.isFinite, lineSpacing >= tightest, lineSpacing <= Self.maximumLineSpacing else {
      throw ValidationErrorMessage(
        "--line-spacing must be a number from \(f(tightest)) (minus half the font size) to "
          + "\(f(Self.maximumLineSpacing)) points (got \(f(lineSpacing)))")
    }
    try Bounds.check(maxLines, "--max-lines", 0...Self.maximumLines)
    for (name, value) in [("--fg", fg), ("--bg", bg)] {
      do {
        _ = try Color(parsing: value)
      } catch {
        throw ValidationErrorMessage("\(name): \(error)")
      }
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
extension TextOrientation: ExpressibleByArgument {}
