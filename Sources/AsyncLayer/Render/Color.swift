import Foundation

/// A colour with straight (not premultiplied) red, green, blue and alpha in 0…1.
///
/// Channels outside 0…1 are clamped when the colour is drawn or printed, and a NaN channel counts
/// as 0 (a NaN alpha is transparent): no colour value stops a draw.
///
/// ```swift
/// let accent = try Color(parsing: "#3366ccff")
/// let ink = Color.black.withAlpha(0.8)
/// ```
public struct Color: Sendable, Hashable, CustomStringConvertible {
  /// The red channel, 0…1.
  public var red: Double
  /// The green channel, 0…1.
  public var green: Double
  /// The blue channel, 0…1.
  public var blue: Double
  /// Opacity, 0 (transparent) … 1 (opaque).
  public var alpha: Double

  /// A colour from channels in 0…1, opaque unless `alpha` says otherwise.
  public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
    self.red = red
    self.green = green
    self.blue = blue
    self.alpha = alpha
  }

  /// A colour from 8-bit channels.
  public init(red8: UInt8, green8: UInt8, blue8: UInt8, alpha8: UInt8 = 255) {
    self.init(
      red: Double(red8) / 255, green: Double(green8) / 255, blue: Double(blue8) / 255, alpha: Double(alpha8) / 255)
  }

  /// Opaque black.
  public static let black = Color(red: 0, green: 0, blue: 0)
  /// Opaque white.
  public static let white = Color(red: 1, green: 1, blue: 1)
  /// Fully transparent.
  public static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)
  /// Opaque pure red (#ff0000).
  public static let red = Color(red: 1, green: 0, blue: 0)
  /// Opaque green (#008000, CSS `green`).
  public static let green = Color(red: 0, green: 0.5, blue: 0)
  /// Opaque pure blue (#0000ff).
  public static let blue = Color(red: 0, green: 0, blue: 1)
  /// Opaque mid grey (#808080).
  public static let gray = Color(red: 0.5, green: 0.5, blue: 0.5)
  /// Opaque light grey (#d4d4d4).
  public static let lightGray = Color(red: 0.83, green: 0.83, blue: 0.83)

  /// The same colour with another alpha.
  public func withAlpha(_ alpha: Double) -> Color {
    Color(red: red, green: green, blue: blue, alpha: alpha)
  }

  /// True when the colour covers what is below it completely.
  public var isOpaque: Bool { alpha >= 1 }

  /// Every channel clamped to 0…1, NaN as 0: what cairo, pixman and the pixel conversions get.
  var clamped: Color {
    func clamp(_ value: Double) -> Double { value.isNaN ? 0 : min(max(value, 0), 1) }
    return Color(red: clamp(red), green: clamp(green), blue: clamp(blue), alpha: clamp(alpha))
  }

  /// `#rrggbbaa`.
  public var description: String {
    func hex(_ v: Double) -> String {
      let byte = Int((v * 255).rounded())
      let digits = String(byte, radix: 16)
      return digits.count == 1 ? "0" + digits : digits
    }
    let color = clamped
    return "#" + hex(color.red) + hex(color.green) + hex(color.blue) + hex(color.alpha)
  }
}

extension Color {
  /// Errors of ``Color/init(parsing:)``.
  public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text that did not parse.
    public let input: String
    /// Says what was not a colour and which forms are.
    public var description: String {
      "'\(input)' is not a colour: use #rgb, #rrggbb, #rrggbbaa or a name such as white, black, red, transparent"
    }
  }

  private static let named: [String: Color] = [
    "black": .black, "white": .white, "red": .red, "green": .green, "blue": .blue, "gray": .gray,
    "grey": .gray, "lightgray": .lightGray, "transparent": .clear, "clear": .clear,
    "yellow": Color(red: 1, green: 1, blue: 0), "orange": Color(red: 1, green: 0.65, blue: 0),
    "navy": Color(red: 0, green: 0, blue: 0.5), "teal": Color(red: 0, green: 0.5, blue: 0.5),
  ]

  /// Parses `#rgb`, `#rrggbb`, `#rrggbbaa` (the `#` is optional) or a colour name.
  public init(parsing text: String) throws {
    let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
    if let named = Color.named[trimmed] {
      self = named
      return
    }
    var hex = Substring(trimmed)
    if hex.hasPrefix("#") { hex = hex.dropFirst() }
    guard hex.allSatisfy(\.isHexDigit), [3, 6, 8].contains(hex.count) else { throw ParseError(input: text) }
    var digits = Array(hex)
    if digits.count == 3 { digits = digits.flatMap { [$0, $0] } }
    if digits.count == 6 { digits += ["f", "f"] }
    let bytes = stride(from: 0, to: 8, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    self.init(red8: bytes[0], green8: bytes[1], blue8: bytes[2], alpha8: bytes[3])
  }
}
