public import AsyncLayer
public import Foundation

/// One tile as a request describes it: the CLI's tile options (`layerbench render`), by the names of
/// the batch line schema (`maxLines`, `lineSpacing`; the CLI's `max-lines`, `line-spacing` are
/// accepted in a query too), with the CLI's defaults and bounds.
///
/// ```swift
/// let request = try TileRequest(query: ["text": "Hello", "width": "200"], limits: ServerLimits())
/// let tile = request.tile   // TextTile, checked
/// ```
public struct TileRequest: Sendable {
  /// The largest tile side in points (as `layerbench render`).
  public static let maximumSide = 10_000.0
  /// Device pixels per point.
  public static let scaleRange = 0.1...16.0
  static let maximumPadding = 1_000.0
  static let maximumLineSpacing = 1_000.0
  static let maximumLines = 10_000
  /// The fields a request may give (query items or JSON keys) besides the text.
  static let styleFields: Set<String> = [
    "font", "width", "height", "scale", "padding", "align", "wrap", "ellipsize", "maxLines", "lineSpacing", "fg", "bg",
    "language",
  ]
  /// The CLI's spelling of two fields.
  static let aliases = ["max-lines": "maxLines", "line-spacing": "lineSpacing"]

  /// The text.
  public var content: TextContent = .plain("")
  public var font = "Sans 14"
  public var width = 375.0
  public var height: Double?
  public var scale = 2.0
  public var padding = 8.0
  public var align = TextAlignment.natural
  public var wrap = WrapMode.word
  public var ellipsize = EllipsizeMode.none
  public var maxLines = 0
  public var lineSpacing = 0.0
  public var fg = "black"
  public var bg = "white"
  public var language: String?
  /// The request's deadline in milliseconds (query item `timeout`), nil for the server default.
  public var timeoutMilliseconds: Int?
  /// The checked tile.
  public private(set) var tile: TextTile

  private init() { tile = TextTile(.plain(""), width: 1) }

  /// A tile from query items (`text` or `markup`, the style fields, `timeout`).
  public init(query: [(String, String)], limits: ServerLimits) throws(RequestError) {
    self.init()
    var seen = Set<String>()
    var text: String?
    var markup: String?
    for (rawKey, value) in query {
      let key = Self.aliases[rawKey] ?? rawKey
      guard seen.insert(key).inserted else { throw .bad(key, "given more than once") }
      let v = Substring(value)
      switch key {
      case "text": text = value
      case "markup": markup = value
      case "timeout": timeoutMilliseconds = try Self.timeout(v, limits: limits)
      case "font": font = value
      case "width": width = try StrictNumber.double(v, field: key)
      case "height": height = value == "fit" ? nil : try StrictNumber.double(v, field: key)
      case "scale": scale = try StrictNumber.double(v, field: key)
      case "padding": padding = try StrictNumber.double(v, field: key)
      case "align": align = try Self.choice(value, key)
      case "wrap": wrap = try Self.choice(value, key)
      case "ellipsize": ellipsize = try Self.choice(value, key)
      case "maxLines": maxLines = try StrictNumber.integer(v, field: key, 0...Self.maximumLines)
      case "lineSpacing": lineSpacing = try StrictNumber.double(v, field: key)
      case "fg": fg = value
      case "bg": bg = value
      case "language": language = value
      case "font-file", "fontFile":
        throw .bad(key, "fonts cannot be loaded by a request; the operator registers them when starting the server")
      default:
        throw .bad(
          key, "unknown query item (known: text, markup, timeout, \(Self.styleFields.sorted().joined(separator: ", ")))"
        )
      }
    }
    try setContent(text: text, markup: markup)
    try check(limits: limits)
  }

  /// A tile from a JSON object in the batch line schema (`id` optional and ignored, `text` or
  /// `markup`, the style fields; `height` null fits the text).
  public init(json: Data, limits: ServerLimits) throws(RequestError) {
    self.init()
    let object: [String: Any]
    do {
      guard let parsed = try JSONSerialization.jsonObject(with: json) as? [String: Any] else {
        throw RequestError.bad("body", "must be a JSON object")
      }
      object = parsed
    } catch let error as RequestError {
      throw error
    } catch {
      throw .bad(
        "body", "not valid JSON: \((error as NSError).userInfo["NSDebugDescription"].map { "\($0)" } ?? "\(error)")")
    }
    func string(_ key: String) throws(RequestError) -> String? {
      guard let value = object[key], !(value is NSNull) else { return nil }
      guard let string = value as? String else { throw .bad(key, "must be a string") }
      return string
    }
    func number(_ key: String) throws(RequestError) -> Double? {
      guard let value = object[key], !(value is NSNull) else { return nil }
      guard !Self.isBoolean(value), let number = value as? Double, number.isFinite else {
        throw .bad(key, "must be a finite number")
      }
      return number
    }
    for key in object.keys where key != "id" && key != "text" && key != "markup" && key != "timeout" {
      guard Self.styleFields.contains(key) else {
        throw .bad(
          key, "unknown field (known: id, text, markup, timeout, \(Self.styleFields.sorted().joined(separator: ", ")))")
      }
    }
    if let value = object["id"], !(value is String), Self.isBoolean(value) || !(value is Int) {
      throw .bad("id", "must be a string or an integer")
    }
    if let timeout = try number("timeout") {
      timeoutMilliseconds = try Self.timeout(Substring("\(timeout)"), limits: limits)
    }
    if let value = try string("font") { font = value }
    if let value = try number("width") { width = value }
    if let value = try number("height") { height = value }
    if let value = try number("scale") { scale = value }
    if let value = try number("padding") { padding = value }
    if let value = try string("align") { align = try Self.choice(value, "align") }
    if let value = try string("wrap") { wrap = try Self.choice(value, "wrap") }
    if let value = try string("ellipsize") { ellipsize = try Self.choice(value, "ellipsize") }
    if let value = try number("maxLines") {
      guard value == value.rounded(), value >= 0, value <= Double(Self.maximumLines) else {
        throw .bad("maxLines", "must be a whole number from 0 to \(Self.maximumLines)")
      }
      maxLines = Int(value)
    }
    if let value = try number("lineSpacing") { lineSpacing = value }
    if let value = try string("fg") { fg = value }
    if let value = try string("bg") { bg = value }
    if let value = try string("language") { language = value }
    try setContent(text: try string("text"), markup: try string("markup"))
    try check(limits: limits)
  }

  private mutating func setContent(text: String?, markup: String?) throws(RequestError) {
    switch (text, markup) {
    case (let text?, nil): content = .plain(text)
    case (nil, let markup?): content = .markup(markup)
    case (nil, nil): throw .bad("text", "give 'text' or 'markup'")
    case (.some, .some): throw .bad("markup", "give one of 'text' or 'markup', not both")
    }
  }

  /// The CLI's checks (`TextOptions.validate`), then the server's pixel and text caps; the
  /// library checks the rest (markup, font size) when it lays the tile out.
  private mutating func check(limits: ServerLimits) throws(RequestError) {
    let source: String
    switch content {
    case .plain(let text), .markup(let text): source = text
    case .attributed(let text): source = text.string
    }
    guard source.utf8.count <= limits.maximumTextBytes else {
      throw .bad(
        content.isMarkup ? "markup" : "text",
        "\(source.utf8.count) bytes exceeds the server's limit of \(limits.maximumTextBytes) bytes per tile")
    }
    if source.allSatisfy(\.isWhitespace) {
      throw .bad(content.isMarkup ? "markup" : "text", "is empty or only spaces: there is nothing to render")
    }
    try Self.range(width, "width", above: 0, atMost: Self.maximumSide)
    if let height { try Self.range(height, "height", above: 0, atMost: Self.maximumSide) }
    guard Self.scaleRange.contains(scale) else {
      throw .bad(
        "scale",
        "must be from \(Self.scaleRange.lowerBound) to \(Self.scaleRange.upperBound) pixels per point (got \(scale))")
    }
    guard padding >= 0, padding <= Self.maximumPadding else {
      throw .bad("padding", "must be from 0 to \(Self.maximumPadding) points (got \(padding))")
    }
    for (name, side) in [("width", width), ("height", height)] {
      guard let side else { continue }
      guard 2 * padding < side else {
        throw .bad("padding", "\(padding) leaves no room for text in \(name) \(side): it must be less than half of it")
      }
      let pixels = (side * scale).rounded(.up)
      guard pixels <= Double(ImageRenderer.maximumPixelsPerSide) else {
        throw .bad(
          name,
          "\(side) at scale \(scale) is \(Int(pixels)) pixels; a side must be at most \(ImageRenderer.maximumPixelsPerSide)"
        )
      }
    }
    let pixels = (width * scale).rounded(.up) * ((height ?? 1) * scale).rounded(.up)
    guard pixels <= Double(limits.maximumPixels) else {
      throw .bad(
        height == nil ? "width" : "height",
        "the tile would be \(Int(pixels)) pixels (width × height × scale²), over the server's limit of \(limits.maximumPixels)"
      )
    }
    let fontSize = TextStyle(font: font).fontSize
    guard fontSize.isFinite, fontSize > 0, fontSize * scale <= TextLayout.maximumFontPixelSize else {
      throw .bad(
        "font",
        "'\(font.prefix(80))': the size must be above 0 and at most \(Int(TextLayout.maximumFontPixelSize)) pixels at scale \(scale) (got \(fontSize) points)"
      )
    }
    guard lineSpacing >= -fontSize / 2, lineSpacing <= Self.maximumLineSpacing else {
      throw .bad(
        "lineSpacing",
        "must be from \(-fontSize / 2) (minus half the font size) to \(Self.maximumLineSpacing) points (got \(lineSpacing))"
      )
    }
    let foreground: Color
    let background: Color
    do { foreground = try Self.color(fg) } catch { throw .bad("fg", "\(error)") }
    do { background = try Self.color(bg) } catch { throw .bad("bg", "\(error)") }
    var style = TextStyle(font: font)
    style.alignment = align
    style.wrap = wrap
    style.ellipsize = ellipsize
    style.maxLines = maxLines
    style.lineSpacing = lineSpacing
    style.color = foreground
    style.language = language
    var tile = TextTile(
      content, style: style, width: width, height: height, scale: scale, padding: EdgeInsets(all: padding),
      background: background.alpha > 0 ? background : nil)
    // The library refuses more before allocating: a fitted height over the pixel cap, long text.
    tile.memoryCap = limits.memoryCap
    tile.limits = TextLimits(
      maximumBytes: limits.maximumTextBytes, maximumParagraphs: TextLimits.default.maximumParagraphs)
    self.tile = tile
  }

  /// The defaults, parsed once: `Color(parsing:)` trims and lowercases with Foundation, 1.5% of the
  /// server's CPU under `wrk -c64` when every request parsed "black" and "white" (perf, 2026-11-26).
  private static let defaultColors: [String: Color] = {
    var colors: [String: Color] = [:]
    for name in ["black", "white"] { colors[name] = try? Color(parsing: name) }
    return colors
  }()

  static func color(_ text: String) throws -> Color {
    if let known = defaultColors[text] { return known }
    return try Color(parsing: text)
  }

  private static func range(_ value: Double, _ field: String, above low: Double, atMost high: Double)
    throws(RequestError)
  {
    guard value > low, value <= high else {
      throw .bad(field, "must be above \(low) and at most \(high) points (got \(value))")
    }
  }

  private static func choice<T: RawRepresentable<String> & CaseIterable>(_ raw: String, _ field: String)
    throws(RequestError) -> T
  {
    guard let value = T(rawValue: raw) else {
      throw .bad(
        field, "must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(raw.prefix(40))')")
    }
    return value
  }

  static func timeout(_ text: Substring, limits: ServerLimits) throws(RequestError) -> Int {
    try StrictNumber.integer(text, field: "timeout", 1...limits.maximumTimeoutMilliseconds)
  }

  /// JSON `true` and `false` arrive as NSNumbers too: tell them apart by class.
  private static let booleanType = ObjectIdentifier(type(of: NSNumber(value: true) as Any))
  static func isBoolean(_ value: Any) -> Bool { ObjectIdentifier(type(of: value)) == booleanType }
}

extension TextContent {
  var isMarkup: Bool {
    if case .markup = self { return true }
    return false
  }
}
