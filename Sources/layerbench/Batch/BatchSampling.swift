import ArgumentParser
import AsyncLayer
import Foundation

/// `batch`'s seeded sampling options: per line, a font from a pool (only one that covers the
/// line), a size, colours and a letter spacing drawn from ranges by the line's own random stream
/// (`SeededRandom`: `--seed` and the line's id), so that the same seed and input give the same
/// tiles on any number of workers and any shard split.
struct SamplingOptions: ParsableArguments {
  @Option(help: "Seed of the sampling options' random choices, 0…18446744073709551615 (default 0).")
  var seed: UInt64?

  @Option(
    name: .customLong("sample-font"),
    help: ArgumentHelp(
      "A font pool member: a font file, a folder of fonts, or an installed family; repeatable. Each line gets one "
        + "family at random among those whose fonts have a glyph for each of its characters.",
      valueName: "file|folder|family"))
  var fonts: [String] = []

  @Option(
    name: .customLong("sample-size"), help: ArgumentHelp("Font size range in points, 1…1000.", valueName: "MIN..MAX"))
  var size: String?

  @Option(
    name: .customLong("sample-fg"),
    help: ArgumentHelp("Text colour range, each channel drawn between the two colours.", valueName: "COLOR..COLOR"))
  var fg: String?

  @Option(
    name: .customLong("sample-bg"),
    help: ArgumentHelp("Background colour range, each channel drawn between the two.", valueName: "COLOR..COLOR"))
  var bg: String?

  @Option(
    name: .customLong("sample-letter-spacing"), parsing: .unconditional,
    help: ArgumentHelp("Letter spacing range in points, -100…1000.", valueName: "MIN..MAX"))
  var letterSpacing: String?

  @Option(
    name: .customLong("sample-rotate"), parsing: .unconditional,
    help: ArgumentHelp("Rotation range in degrees (counter-clockwise), -360…360.", valueName: "MIN..MAX"))
  var rotate: String?

  @Option(
    name: .customLong("sample-skew"), parsing: .unconditional,
    help: ArgumentHelp("Horizontal skew range in degrees, -60…60.", valueName: "MIN..MAX"))
  var skew: String?

  @Option(
    name: .customLong("sample-stroke-width"), parsing: .unconditional,
    help: ArgumentHelp(
      "Outline width range in points, 0…100 (0: none), in --stroke-color (or the line's strokeColor).",
      valueName: "MIN..MAX"))
  var strokeWidth: String?

  var isUsed: Bool {
    !fonts.isEmpty || size != nil || fg != nil || bg != nil || letterSpacing != nil || rotate != nil || skew != nil
      || strokeWidth != nil
  }

  /// The sampler these options describe (nil without sampling options), checked and with the font
  /// pool registered: every problem is found here, before the run starts.
  func sampler() throws -> Sampler? {
    guard isUsed else {
      if seed != nil { throw ValidationError("--seed needs a sampling option (--sample-font, --sample-size, …)") }
      return nil
    }
    var sampler = Sampler(seed: seed ?? 0)
    var families = Set<String>()
    for member in fonts {
      if FileManager.default.fileExists(atPath: member) {
        do {
          families.formUnion(try FontFiles.register(member))
        } catch {
          throw ValidationError("--sample-font: \(error)")
        }
      } else if FontCatalog.installedFamilies.contains(member.lowercased()) {
        families.insert(member)
      } else {
        throw ValidationError(
          "--sample-font '\(member)' is neither a font file, a folder of fonts nor an installed family "
            + "(`layerbench fonts` lists the families)")
      }
    }
    // Sorted: the pool's order decides which family an index draws, whatever order the folder lists.
    sampler.families = families.sorted()
    if let size { sampler.size = try Self.range(size, "--sample-size", within: 1...1000) }
    if let letterSpacing {
      sampler.letterSpacing = try Self.range(letterSpacing, "--sample-letter-spacing", within: -100...1000)
    }
    if let fg { sampler.fg = try Self.colors(fg, "--sample-fg") }
    if let bg { sampler.bg = try Self.colors(bg, "--sample-bg") }
    let maxRotation = TileTransform.maximumRotation
    if let rotate { sampler.rotation = try Self.range(rotate, "--sample-rotate", within: -maxRotation...maxRotation) }
    let maxSkew = TileTransform.maximumSkew
    if let skew { sampler.skew = try Self.range(skew, "--sample-skew", within: -maxSkew...maxSkew) }
    if let strokeWidth {
      sampler.strokeWidth = try Self.range(strokeWidth, "--sample-stroke-width", within: 0...TextStroke.maximumWidth)
    }
    return sampler
  }

  /// `MIN..MAX` (or one number) as a range within `limits`, refusing NaN, infinities and MIN > MAX.
  static func range(_ text: String, _ option: String, within limits: ClosedRange<Double>) throws -> ClosedRange<Double>
  {
    let parts = text.components(separatedBy: "..")
    guard (1...2).contains(parts.count), let low = Double(parts[0].trimmingCharacters(in: .whitespaces)),
      let high = Double(parts[parts.count - 1].trimmingCharacters(in: .whitespaces))
    else { throw ValidationError("\(option) takes MIN..MAX or one number (got '\(text)')") }
    guard low.isFinite, high.isFinite, limits.contains(low), limits.contains(high) else {
      throw ValidationError(
        "\(option): both ends must be numbers from \(Bounds.format(limits.lowerBound)) to "
          + "\(Bounds.format(limits.upperBound)) (got '\(text)')")
    }
    guard low <= high else { throw ValidationError("\(option): MIN is above MAX (got '\(text)')") }
    return low...high
  }

  /// `COLOR..COLOR` (or one colour) as the pair of ends.
  static func colors(_ text: String, _ option: String) throws -> Sampler.ColorRange {
    let parts = text.components(separatedBy: "..")
    guard (1...2).contains(parts.count) else { throw ValidationError("\(option) takes COLOR..COLOR (got '\(text)')") }
    do {
      return Sampler.ColorRange(from: try Color(parsing: parts[0]), to: try Color(parsing: parts[parts.count - 1]))
    } catch {
      throw ValidationError("\(option): \(error)")
    }
  }
}

/// What sampling chose for one tile: the manifest record's `sample`.
struct SampleRecord: Codable, Sendable, Equatable {
  var font: String?
  var size: Double?
  var fg: String?
  var bg: String?
  var letterSpacing: Double?
  var rotate: Double?
  var skew: Double?
  var stroke: Double?

  /// The object as JSON, keys sorted, numbers as Swift prints them (hundredths).
  func appendJSON(to out: inout [UInt8]) {
    var first = true
    out.append(UInt8(ascii: "{"))
    func key(_ name: String) {
      if !first { out.append(UInt8(ascii: ",")) }
      first = false
      out.append(contentsOf: "\"\(name)\":".utf8)
    }
    if let bg {
      key("bg")
      ManifestRecord.appendQuoted(bg, to: &out)
    }
    if let fg {
      key("fg")
      ManifestRecord.appendQuoted(fg, to: &out)
    }
    if let font {
      key("font")
      ManifestRecord.appendQuoted(font, to: &out)
    }
    if let letterSpacing {
      key("letterSpacing")
      out.append(contentsOf: "\(letterSpacing)".utf8)
    }
    if let rotate {
      key("rotate")
      out.append(contentsOf: "\(rotate)".utf8)
    }
    if let size {
      key("size")
      out.append(contentsOf: "\(size)".utf8)
    }
    if let skew {
      key("skew")
      out.append(contentsOf: "\(skew)".utf8)
    }
    if let stroke {
      key("stroke")
      out.append(contentsOf: "\(stroke)".utf8)
    }
    out.append(UInt8(ascii: "}"))
  }
}

/// Draws a line's style from the sampling options, by the line's own random stream.
struct Sampler: Sendable {
  /// Two colours; each channel of a drawn colour lies between theirs (8-bit steps).
  struct ColorRange: Sendable {
    var from: Color
    var to: Color
  }

  var seed: UInt64
  var families: [String] = []
  var size: ClosedRange<Double>?
  var fg: ColorRange?
  var bg: ColorRange?
  var letterSpacing: ClosedRange<Double>?
  var rotation: ClosedRange<Double>?
  var skew: ClosedRange<Double>?
  /// Drawn in the line's stroke colour when it has a stroke, else in `strokeColor`.
  var strokeWidth: ClosedRange<Double>?
  var strokeColor = Color.black

  /// Everything that decides the choices: part of each record's `input` hash, so that resume
  /// renders again after an option changed.
  var fingerprint: String {
    func describe(_ range: ColorRange?) -> String { range.map { "\($0.from)..\($0.to)" } ?? "" }
    return [
      "seed \(seed)", families.joined(separator: ","), size.map { "\($0)" } ?? "", describe(fg), describe(bg),
      letterSpacing.map { "\($0)" } ?? "",
    ].joined(separator: "\u{1f}") + layoutFingerprint
  }

  /// The layout ranges' part of the fingerprint: empty without them, so that older runs resume.
  private var layoutFingerprint: String {
    guard rotation != nil || skew != nil || strokeWidth != nil else { return "" }
    return [rotation, skew, strokeWidth].map { $0.map { "\($0)" } ?? "" }.joined(separator: "\u{1f}")
      + "\u{1f}\(strokeColor)"
  }

  /// Draws the tile's style for the line `id` whose text is `text`; throws a line's error when no
  /// font of the pool covers it. Draws come in a fixed order (font, size, fg, bg, letter spacing,
  /// rotation, skew, stroke width),
  /// each only when its option is given.
  func apply(to tile: inout TextTile, id: String, text: String) throws(TileSpecError) -> SampleRecord {
    var random = SeededRandom(seed: seed, id: id)
    var record = SampleRecord()
    if !families.isEmpty {
      let covering = families.filter { FontCoverage.family($0, covers: text) }
      guard !covering.isEmpty else {
        throw TileSpecError(
          id: id, description: "no --sample-font family covers this line (\(families.count) in the pool)")
      }
      let family = covering[random.below(covering.count)]
      tile.style.fontFamily = family
      record.font = family
    }
    if let size {
      let points = random.hundredths(in: size)
      tile.style.fontSize = points
      record.size = points
    }
    if let fg {
      let color = Self.draw(fg, &random)
      tile.style.color = color
      record.fg = Self.hex(color)
    }
    if let bg {
      let color = Self.draw(bg, &random)
      tile.background = color.alpha > 0 ? color : nil
      record.bg = Self.hex(color)
    }
    if let letterSpacing {
      let points = random.hundredths(in: letterSpacing)
      tile.style.letterSpacing = points
      record.letterSpacing = points
    }
    // After the style's draws: a stream without these options draws what it always drew.
    if let rotation {
      let degrees = random.hundredths(in: rotation)
      tile.transform.rotation = degrees
      record.rotate = degrees
    }
    if let skew {
      let degrees = random.hundredths(in: skew)
      tile.transform.skewX = degrees
      record.skew = degrees
    }
    if let strokeWidth {
      let points = random.hundredths(in: strokeWidth)
      tile.stroke =
        points > 0
        ? TextStroke(width: points, color: tile.stroke?.color ?? strokeColor, fills: tile.stroke?.fills ?? true) : nil
      record.stroke = points
    }
    return record
  }

  /// A colour with each channel an 8-bit step between the range's ends.
  private static func draw(_ range: ColorRange, _ random: inout SeededRandom) -> Color {
    func channel(_ a: Double, _ b: Double) -> UInt8 {
      let x = Int((min(a, b) * 255).rounded())
      let y = Int((max(a, b) * 255).rounded())
      return UInt8(clamping: x + random.below(y - x + 1))
    }
    let (f, t) = (range.from, range.to)
    return Color(
      red8: channel(f.red, t.red), green8: channel(f.green, t.green), blue8: channel(f.blue, t.blue),
      alpha8: channel(f.alpha, t.alpha))
  }

  /// `#rrggbb`, or `#rrggbbaa` when not opaque.
  private static func hex(_ color: Color) -> String {
    let full = color.description
    return color.isOpaque ? String(full.prefix(7)) : full
  }
}
