import ArgumentParser
import AsyncLayer
import Foundation

/// `batch`'s layout options (docs/datasets.md#vertical-stroked-and-transformed-text): the defaults
/// of the line fields `orientation`, `stroke`, `strokeColor`, `strokeFill`, `rotate`, `skew`,
/// `scaleX` and `scaleY`.
struct LayoutOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "horizontal; vertical (columns top to bottom, right to left: CJK upright, other scripts turned a quarter "
        + "turn; --width is then the column length, the image's height); vertical-upright (every script upright).",
      valueName: "horizontal|vertical|vertical-upright"))
  var orientation: TextOrientation = .horizontal

  @Option(
    name: .customLong("stroke-width"), parsing: .unconditional,
    help: ArgumentHelp(
      "Outline of the glyphs, in points, 0…100 (0: none); the tile grows by half of it on each side.",
      valueName: "POINTS"))
  var strokeWidth: Double = 0

  @Option(name: .customLong("stroke-color"), help: ArgumentHelp("Outline colour.", valueName: "COLOR"))
  var strokeColor = "black"

  @Flag(name: .customLong("stroke-only"), help: "Draw the outline only, the glyphs hollow (with --stroke-width).")
  var strokeOnly = false

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Rotation in degrees, counter-clockwise, -360…360; the image grows to hold the turned tile.", valueName: "DEG"))
  var rotate: Double = 0

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Horizontal skew in degrees, -60…60 (positive leans right).", valueName: "DEG"))
  var skew: Double = 0

  @Option(
    name: .customLong("scale-x"), parsing: .unconditional,
    help: ArgumentHelp("Horizontal scale of the drawing, 0.1…10.", valueName: "FACTOR"))
  var scaleX: Double = 1

  @Option(
    name: .customLong("scale-y"), parsing: .unconditional,
    help: ArgumentHelp("Vertical scale of the drawing, 0.1…10.", valueName: "FACTOR"))
  var scaleY: Double = 1

  func validate() throws { _ = try settings() }

  /// The options as a tile's layout, checked (a bad value fails before the run starts).
  func settings() throws -> TileLayout {
    let layout = TileLayout(
      orientation: orientation, strokeWidth: strokeWidth, strokeColor: strokeColor, strokeFills: !strokeOnly,
      rotation: rotate, skew: skew, scaleX: scaleX, scaleY: scaleY)
    if let problem = layout.problem() {
      throw ValidationError(
        problem.replacingOccurrences(of: "'stroke'", with: "--stroke-width")
          .replacingOccurrences(of: "'strokeColor'", with: "--stroke-color")
          .replacingOccurrences(of: "'scaleX'", with: "--scale-x").replacingOccurrences(
            of: "'scaleY'", with: "--scale-y"
          )
          .replacingOccurrences(of: "'rotate'", with: "--rotate").replacingOccurrences(of: "'skew'", with: "--skew"))
    }
    if strokeOnly, strokeWidth == 0 { throw ValidationError("--stroke-only needs a --stroke-width above 0") }
    return layout
  }
}

/// A tile's orientation, stroke and transform, as the command line and a line's fields give them.
struct TileLayout: Sendable, Equatable {
  var orientation = TextOrientation.horizontal
  /// 0: no stroke.
  var strokeWidth = 0.0
  var strokeColor = "black"
  var strokeFills = true
  var rotation = 0.0
  var skew = 0.0
  var scaleX = 1.0
  var scaleY = 1.0

  /// The line fields that set it.
  static let fields: Set<String> = [
    "orientation", "stroke", "strokeColor", "strokeFill", "rotate", "skew", "scaleX", "scaleY",
  ]

  var isDefault: Bool { self == TileLayout() }

  /// What is wrong with the values, in the line fields' names, or nil.
  func problem() -> String? {
    guard strokeWidth.isFinite, (0...TextStroke.maximumWidth).contains(strokeWidth) else {
      return
        "'stroke' must be a width in points from 0 (none) to \(Int(TextStroke.maximumWidth)) (got \(Bounds.format(strokeWidth)))"
    }
    do {
      _ = try Color(parsing: strokeColor)
    } catch {
      return "'strokeColor': \(error)"
    }
    let checks: [(String, Double, ClosedRange<Double>)] = [
      ("rotate", rotation, -TileTransform.maximumRotation...TileTransform.maximumRotation),
      ("skew", skew, -TileTransform.maximumSkew...TileTransform.maximumSkew),
      ("scaleX", scaleX, TileTransform.scaleRange), ("scaleY", scaleY, TileTransform.scaleRange),
    ]
    for (name, value, range) in checks where !(value.isFinite && range.contains(value)) {
      return "'\(name)' must be a number from \(Bounds.format(range.lowerBound)) to \(Bounds.format(range.upperBound)) "
        + "(got \(Bounds.format(value)))"
    }
    return nil
  }

  /// Sets the tile's orientation, stroke and transform (values already checked).
  func apply(to tile: inout TextTile) {
    tile.style.orientation = orientation
    tile.stroke =
      strokeWidth > 0
      ? TextStroke(width: strokeWidth, color: (try? Color(parsing: strokeColor)) ?? .black, fills: strokeFills) : nil
    tile.transform = TileTransform(rotation: rotation, skewX: skew, scaleX: scaleX, scaleY: scaleY)
  }

  /// Part of the parser's fingerprint (only when not the default, so that older runs resume).
  var fingerprint: String {
    [
      orientation.rawValue, "\(strokeWidth)", strokeColor, "\(strokeFills)", "\(rotation)", "\(skew)", "\(scaleX)",
      "\(scaleY)",
    ].joined(separator: ",")
  }

  /// Reads the layout fields of a line over these values; `fail` makes the line's error.
  mutating func read(_ object: [String: LineValue], fail: (String) -> TileSpecError) throws(TileSpecError) {
    func number(_ key: String) throws(TileSpecError) -> Double? {
      switch object[key] {
      case nil: return nil
      case .number(let value): return value
      default: throw fail("field '\(key)' must be a number")
      }
    }
    switch object["orientation"] {
    case nil: break
    case .string(let raw):
      guard let value = TextOrientation(rawValue: raw) else {
        throw fail(
          "field 'orientation' must be one of \(TextOrientation.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(raw)')"
        )
      }
      orientation = value
    default: throw fail("field 'orientation' must be a string")
    }
    if let value = try number("stroke") { strokeWidth = value }
    switch object["strokeColor"] {
    case nil: break
    case .string(let value): strokeColor = value
    default: throw fail("field 'strokeColor' must be a string")
    }
    switch object["strokeFill"] {
    case nil: break
    case .bool(let value): strokeFills = value
    default: throw fail("field 'strokeFill' must be true or false")
    }
    if let value = try number("rotate") { rotation = value }
    if let value = try number("skew") { skew = value }
    if let value = try number("scaleX") { scaleX = value }
    if let value = try number("scaleY") { scaleY = value }
    if let problem = problem() { throw fail("field \(problem)") }
  }
}

/// What a tile was drawn with besides its style: the manifest record's `layout`, present when the
/// tile is vertical, stroked or transformed (after sampling: the values used).
struct LayoutRecord: Codable, Sendable, Equatable {
  var orientation: String
  var stroke: Double
  var strokeColor: String?
  var strokeFill: Bool?
  var rotate: Double
  var skew: Double
  var scaleX: Double
  var scaleY: Double

  /// The tile's layout, or nil for a horizontal, unstroked, untransformed tile.
  init?(_ tile: TextTile) {
    guard tile.style.orientation.isVertical || tile.stroke != nil || !tile.transform.isIdentity else { return nil }
    orientation = tile.style.orientation.rawValue
    stroke = tile.stroke?.width ?? 0
    strokeColor = tile.stroke.map { $0.color.isOpaque ? String($0.color.description.prefix(7)) : $0.color.description }
    strokeFill = tile.stroke?.fills
    rotate = tile.transform.rotation
    skew = tile.transform.skewX
    scaleX = tile.transform.scaleX
    scaleY = tile.transform.scaleY
  }

  /// The object as JSON, keys sorted.
  func appendJSON(to out: inout [UInt8]) {
    out.append(contentsOf: "{\"orientation\":".utf8)
    ManifestRecord.appendQuoted(orientation, to: &out)
    out.append(contentsOf: ",\"rotate\":\(rotate),\"scaleX\":\(scaleX),\"scaleY\":\(scaleY),\"skew\":\(skew)".utf8)
    out.append(contentsOf: ",\"stroke\":\(stroke)".utf8)
    if let strokeColor {
      out.append(contentsOf: ",\"strokeColor\":".utf8)
      ManifestRecord.appendQuoted(strokeColor, to: &out)
    }
    if let strokeFill { out.append(contentsOf: ",\"strokeFill\":\(strokeFill)".utf8) }
    out.append(UInt8(ascii: "}"))
  }
}
