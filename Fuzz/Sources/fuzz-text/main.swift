@_spi(Benchmarks) import AsyncLayer
import Foundation
import FuzzerDriver

/// Reads the style from the input's first bytes; the rest is the text.
private struct Input {
  var bytes: UnsafeRawBufferPointer
  var position = 0

  /// The next byte, or 0 once the input is exhausted.
  mutating func byte() -> Int {
    guard position < bytes.count else { return 0 }
    defer { position += 1 }
    return Int(bytes[position])
  }

  /// The bytes not yet read, as UTF-8 (invalid sequences become U+FFFD).
  var rest: String { String(decoding: bytes.dropFirst(position), as: UTF8.self) }
}

private let families = ["Sans", "Serif", "Monospace", "Noto Sans CJK SC", "Noto Color Emoji", "Lohit Devanagari"]
private let scales: [Double] = [1, 1.5, 2, 3]
/// Line spacings the style byte's lowest values select: what a careless caller might pass.
private let edgeLineSpacings: [Double] = [.nan, .infinity, -.infinity, 1e300, -1e300, -100]

/// Pango markup (or plain text) with a style derived from the first 7 or 8 bytes, laid out and
/// drawn by `TextTile.render` through either glyph path. Sizes are kept small (width ≤ 400 pt,
/// scale ≤ 3, font ≤ 48 pt) so that each input renders in milliseconds; line spacing and the line
/// limit also take edge values (NaN, ±infinity, ±1e300, -100; 99 999 999 999 lines).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  var input = Input(bytes: UnsafeRawBufferPointer(start: start, count: count))
  var style = TextStyle()
  style.fontSize = 4 + Double(input.byte()) * 44 / 255
  let weightAndItalic = input.byte()
  style.weight = FontWeight.allCases[weightAndItalic % FontWeight.allCases.count]
  style.isItalic = weightAndItalic & 0x80 != 0
  let spacing = Int(Int8(truncatingIfNeeded: input.byte()))
  style.lineSpacing =
    spacing - Int(Int8.min) < edgeLineSpacings.count
    ? edgeLineSpacings[spacing - Int(Int8.min)] : Double(spacing) / 4
  let width = 10 + Double(input.byte()) * 390 / 255
  let modes = input.byte()
  let scale = scales[modes & 3]
  // Relative and absolute alignments (.right uses Pango's neutral-direction context).
  style.alignment = [TextAlignment.natural, .center, .right, .justify][(modes >> 2) & 3]
  style.ellipsize = EllipsizeMode.allCases[(modes >> 4) & 3]
  style.wrap = WrapMode.allCases[(modes >> 6) % WrapMode.allCases.count]
  let lines = input.byte()
  style.maxLines = lines & 7 == 7 ? 99_999_999_999 : lines & 7
  style.fontFamily = families[(lines >> 3) % families.count]
  let flags = input.byte()
  let height: Double? = flags & 2 != 0 ? 10 + Double(input.byte()) : nil
  let padding = EdgeInsets(all: Double((flags >> 2) & 7))
  if flags & 0x20 != 0 { style.language = ["zh-CN", "ar", "hi", "th", "ja"][(flags >> 6) % 5] }
  let text = input.rest
  let content: TextContent = flags & 1 != 0 ? .markup(text) : .plain(text)
  var tile = TextTile(content, style: style, width: width, height: height, scale: scale, padding: padding)
  tile.background = .white
  tile.glyphCompositing = flags & 0x10 != 0 ? .cairo : .threadCache
  _ = try? tile.render()
  return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, count in data.map { fuzz($0, count) } ?? 0 })
