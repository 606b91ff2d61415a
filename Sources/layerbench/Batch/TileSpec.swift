import ArgumentParser
import AsyncLayer
import Foundation

/// How the lines of a batch input are read.
enum BatchInputFormat: String, Sendable, ExpressibleByArgument, CaseIterable {
  /// One JSON object per line: `id`, `text` or `markup`, optional style fields.
  case jsonl
  /// One plain-text tile per non-blank line; the id is the line number.
  case plain
  /// One Pango-markup tile per non-blank line; the id is the line number.
  case markup
}

/// A tile to render, parsed from one input line.
struct TileSpec: Sendable {
  var id: String
  var tile: TextTile
}

/// A line that cannot become a tile; the id is known when the line got that far.
struct TileSpecError: Error, Sendable, CustomStringConvertible {
  var id: String?
  var description: String
}

/// Turns input lines into tiles over the command line's style defaults.
struct TileParser: Sendable {
  var format: BatchInputFormat
  var defaults: TextOptions
  /// For plain and markup lines: `idPrefix` + the line number, zero-padded to `idDigits`.
  var idPrefix = ""
  var idDigits = 1
  /// Orientation, stroke and transform defaults (`LayoutOptions`), under the lines' layout fields.
  let layout: TileLayout
  /// The tile of the defaults: lines without style fields only swap its content (no colour parsing per line).
  private let baseTile: TextTile

  init(format: BatchInputFormat, defaults: TextOptions, layout: TileLayout = TileLayout()) {
    self.format = format
    self.defaults = defaults
    self.layout = layout
    var base = defaults.tile(.plain(""))
    layout.apply(to: &base)
    baseTile = base
  }

  private func tile(_ content: TextContent) -> TextTile {
    var tile = baseTile
    tile.content = content
    return tile
  }

  /// The longest id, in UTF-8 bytes: with ".png" and the temporary file's affixes it stays under
  /// the 255-byte file name limit of Linux file systems.
  static let maxIDBytes = 200

  static let styleFields: Set<String> = Set([
    "font", "width", "height", "scale", "padding", "align", "wrap", "ellipsize", "maxLines", "lineSpacing", "fg", "bg",
    "language",
  ]).union(TileLayout.fields)

  /// A fingerprint of everything besides the line that decides a tile's pixels: part of each
  /// manifest record's `input` hash, so that a resumed run with other defaults renders again.
  var fingerprint: String {
    let o = defaults
    return [
      format.rawValue, idPrefix, String(idDigits), o.font, "\(o.width)", "\(o.height.map { "\($0)" } ?? "fit")",
      "\(o.scale)", "\(o.padding)", o.align.rawValue, o.wrap.rawValue, o.ellipsize.rawValue, "\(o.maxLines)",
      "\(o.lineSpacing)", o.fg, o.bg, o.language ?? "",
    ].joined(separator: "\u{1f}") + (layout.isDefault ? "" : "\u{1f}" + layout.fingerprint)
  }

  /// Whether a line holds a tile at all: blank lines (nothing but Unicode white space) are skipped in
  /// every format. ASCII decides at the first byte that is not a space; only a line of spaces with
  /// non-ASCII bytes in it is decoded.
  static func isBlank(_ line: Data) -> Bool {
    for byte in line {
      switch byte {
      case 0x09...0x0d, 0x20: continue
      case 0x80...: return String(data: line, encoding: .utf8)?.allSatisfy(\.isWhitespace) ?? false
      default: return false
      }
    }
    return true
  }

  func parse(_ line: Data, lineNumber: Int) throws(TileSpecError) -> TileSpec {
    if format == .jsonl { return try tileSpec(LineValue.object(line)) }
    guard var text = String(data: line, encoding: .utf8) else {
      throw TileSpecError(id: nil, description: "line is not valid UTF-8")
    }
    if text.hasSuffix("\r") { text.removeLast() }
    let number = String(lineNumber)
    let id = idPrefix + String(repeating: "0", count: max(0, idDigits - number.count)) + number
    return TileSpec(id: id, tile: tile(format == .plain ? .plain(text) : .markup(text)))
  }

  /// The tile of a line's JSON object: its id, content and style fields, each checked.
  private func tileSpec(_ object: [String: LineValue]) throws(TileSpecError) -> TileSpec {
    let id: String
    switch object["id"] {
    case .string(let string): id = string
    case .number(let number) where number == number.rounded() && abs(number) < 1e18: id = String(Int(number))
    case nil: throw TileSpecError(id: nil, description: "missing field 'id'")
    default: throw TileSpecError(id: nil, description: "field 'id' must be a string or an integer")
    }
    if let problem = Self.problem(withID: id) { throw TileSpecError(id: nil, description: problem) }
    func fail(_ message: String) -> TileSpecError { TileSpecError(id: id, description: message) }

    // Counted, not built as sets: most lines have only id and text, and this runs for every line.
    var styled = false
    var unknown: String?
    for key in object.keys {
      // The content keys first (no style field is one of them): a line's usual keys are only
      // these, compared in place instead of hashed for the set.
      if key == "id" || key == "text" || key == "markup" { continue }
      if Self.styleFields.contains(key) {
        styled = true
      } else if unknown.map({ key < $0 }) ?? true {
        unknown = key
      }
    }
    if let unknown { throw fail("unknown field '\(unknown)'") }
    let content: TextContent
    switch (object["text"], object["markup"]) {
    case (.string(let text), nil): content = .plain(text)
    case (nil, .string(let markup)): content = .markup(markup)
    case (nil, nil): throw fail("give 'text' or 'markup'")
    case (.some, .some): throw fail("give one of 'text' or 'markup', not both")
    default: throw fail("'text' and 'markup' must be strings")
    }

    if !styled { return TileSpec(id: id, tile: tile(content)) }
    var options = defaults
    func string(_ key: String) throws(TileSpecError) -> String? {
      switch object[key] {
      case nil: return nil
      case .string(let string): return string
      default: throw fail("field '\(key)' must be a string")
      }
    }
    func number(_ key: String) throws(TileSpecError) -> Double? {
      switch object[key] {
      case nil: return nil
      case .number(let number): return number
      default: throw fail("field '\(key)' must be a number")
      }
    }
    func choice<T: RawRepresentable<String> & CaseIterable>(_ key: String, _: T.Type) throws(TileSpecError) -> T? {
      guard let raw = try string(key) else { return nil }
      guard let value = T(rawValue: raw) else {
        throw fail("field '\(key)' must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(raw)')")
      }
      return value
    }
    if let font = try string("font") { options.font = font }
    if let width = try number("width") { options.width = width }
    if object["height"] == .null {
      options.height = nil
    } else if let height = try number("height") {
      options.height = height
    }
    if let scale = try number("scale") { options.scale = scale }
    if let padding = try number("padding") { options.padding = padding }
    if let align = try choice("align", TextAlignment.self) { options.align = align }
    if let wrap = try choice("wrap", WrapMode.self) { options.wrap = wrap }
    if let ellipsize = try choice("ellipsize", EllipsizeMode.self) { options.ellipsize = ellipsize }
    if let maxLines = try number("maxLines") {
      guard maxLines == maxLines.rounded(), abs(maxLines) < 1e9 else {
        throw fail("field 'maxLines' must be an integer")
      }
      options.maxLines = Int(maxLines)
    }
    if let lineSpacing = try number("lineSpacing") { options.lineSpacing = lineSpacing }
    if let fg = try string("fg") { options.fg = fg }
    if let bg = try string("bg") { options.bg = bg }
    if let language = try string("language") { options.language = language }
    do {
      try options.validate()
    } catch {
      // TextOptions speaks in command-line flags ("--width must be …"); the line speaks in fields.
      throw fail(
        "\(error)".replacingOccurrences(of: "--max-lines", with: "maxLines").replacingOccurrences(of: "--", with: ""))
    }
    var lineLayout = layout
    try lineLayout.read(object, fail: fail)
    var tile = options.tile(content)
    lineLayout.apply(to: &tile)
    return TileSpec(id: id, tile: tile)
  }

  /// Why `id` cannot name a file in the output directory, or nil when it can.
  static func problem(withID id: String) -> String? {
    if id.isEmpty { return "id is empty" }
    if id.utf8.count > maxIDBytes { return "id is longer than \(maxIDBytes) bytes" }
    if id.utf8.first == UInt8(ascii: ".") {
      return "id '\(id)' starts with '.' (hidden file names, '.' and '..' are refused)"
    }
    // One pass over the UTF-8 bytes (this runs for every line): separators, and the control
    // characters (general category Cc: U+0000–U+001F, U+007F, U+0080–U+009F, the last encoded C2 80–C2 9F).
    var separator = false
    var control = false
    var afterC2 = false
    for byte in id.utf8 {
      if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") { separator = true }
      if byte < 0x20 || byte == 0x7f || (afterC2 && byte < 0xa0) { control = true }
      afterC2 = byte == 0xc2
    }
    if separator { return "id '\(id)' contains a path separator" }
    if control { return "id contains a control character" }
    return nil
  }
}
