import Foundation

/// A geometric transform of a ``TextTile``'s drawing: scale, then skew, then rotation, drawn by
/// cairo so that the glyphs stay vector-sharp (nothing is resampled).
///
/// The tile grows to hold the transformed drawing: its image is the axis-aligned bound of the
/// untransformed tile's rectangle (padding and background included) once transformed, rounded up
/// to whole pixels, and the text sits where the transform puts it in that bound. Every box of
/// ``RenderedText/boxes`` goes through the same transform (``TextBox/quad`` holds its four
/// corners, ``TextBox/frame`` their bound).
///
/// ```swift
/// var tile = TextTile(.plain("Tilted"), style: TextStyle(font: "Sans 20"), width: 200, background: .white)
/// tile.transform = TileTransform(rotation: 5, skewX: 10)   // 5° counter-clockwise, leaning right
/// let result = try tile.render()
/// ```
public struct TileTransform: Sendable, Hashable {
  /// The largest rotation accepted either way, in degrees.
  public static let maximumRotation = 360.0
  /// The largest skew accepted either way, in degrees (tan 60° ≈ 1.73: the tile at most ~2.7 times wider).
  public static let maximumSkew = 60.0
  /// The scale factors accepted on each axis.
  public static let scaleRange = 0.1...10.0

  /// Rotation in degrees, counter-clockwise as seen in the image (as PIL's `Image.rotate`).
  public var rotation: Double
  /// Horizontal skew in degrees: positive leans the glyphs' tops to the right, as an oblique font.
  public var skewX: Double
  /// Horizontal scale factor (1: unchanged).
  public var scaleX: Double
  /// Vertical scale factor (1: unchanged).
  public var scaleY: Double

  /// No transform.
  public static let identity = TileTransform()

  /// A transform: `scaleX` and `scaleY` first, then `skewX`, then `rotation` (degrees).
  public init(rotation: Double = 0, skewX: Double = 0, scaleX: Double = 1, scaleY: Double = 1) {
    self.rotation = rotation
    self.skewX = skewX
    self.scaleX = scaleX
    self.scaleY = scaleY
  }

  /// True when the transform changes nothing.
  public var isIdentity: Bool { rotation == 0 && skewX == 0 && scaleX == 1 && scaleY == 1 }

  /// Throws ``RenderError/invalidValue(name:value:expected:)`` naming the first number out of its
  /// range (NaN and infinities included), before anything is laid out or allocated.
  public func validate() throws(RenderError) {
    guard rotation.isFinite, abs(rotation) <= Self.maximumRotation else {
      throw .invalidValue(
        name: "rotation", value: "\(rotation)",
        expected: "degrees from -\(Int(Self.maximumRotation)) to \(Int(Self.maximumRotation))")
    }
    guard skewX.isFinite, abs(skewX) <= Self.maximumSkew else {
      throw .invalidValue(
        name: "skew", value: "\(skewX)", expected: "degrees from -\(Int(Self.maximumSkew)) to \(Int(Self.maximumSkew))")
    }
    for (name, value) in [("scale x", scaleX), ("scale y", scaleY)] {
      guard value.isFinite, Self.scaleRange.contains(value) else {
        throw .invalidValue(
          name: name, value: "\(value)",
          expected: "a factor from \(Self.scaleRange.lowerBound) to \(Self.scaleRange.upperBound)")
      }
    }
  }

  /// The linear part as an affine map (no translation): scale, then skew, then rotation, in
  /// y-down image coordinates.
  var map: AffineMap {
    let angle = -rotation * Double.pi / 180  // counter-clockwise on screen is negative with y down
    let (c, s) = (cos(angle), sin(angle))
    let shear = -tan(skewX * Double.pi / 180)  // tops (smaller y) move right
    // R · K · S, with K = [1 shear; 0 1], S = diag(scaleX, scaleY).
    return AffineMap(
      a: c * scaleX, b: s * scaleX, c: (c * shear - s) * scaleY, d: (s * shear + c) * scaleY, tx: 0, ty: 0)
  }
}

/// An affine map of the plane, in cairo's order: `x' = a·x + c·y + tx`, `y' = b·x + d·y + ty`.
struct AffineMap: Sendable, Hashable {
  var a: Double
  var b: Double
  var c: Double
  var d: Double
  var tx: Double
  var ty: Double

  static let identity = AffineMap(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

  func apply(_ point: Point) -> Point {
    Point(x: a * point.x + c * point.y + tx, y: b * point.x + d * point.y + ty)
  }

  /// `self` after `first`: the map of `apply(first.apply(p))`.
  func concatenating(_ first: AffineMap) -> AffineMap {
    AffineMap(
      a: a * first.a + c * first.b, b: b * first.a + d * first.b, c: a * first.c + c * first.d,
      d: b * first.c + d * first.d, tx: a * first.tx + c * first.ty + tx, ty: b * first.tx + d * first.ty + ty)
  }

  /// The map moved by (`x`, `y`) after it.
  func translated(x: Double, y: Double) -> AffineMap {
    AffineMap(a: a, b: b, c: c, d: d, tx: tx + x, ty: ty + y)
  }

  /// The four corners of `rect` mapped, in the order top-left, top-right, bottom-right,
  /// bottom-left of the rectangle.
  func corners(of rect: Rect) -> [Point] {
    [
      apply(Point(x: rect.minX, y: rect.minY)), apply(Point(x: rect.maxX, y: rect.minY)),
      apply(Point(x: rect.maxX, y: rect.maxY)), apply(Point(x: rect.minX, y: rect.maxY)),
    ]
  }

  /// The axis-aligned bound of points.
  static func bound(of points: [Point]) -> Rect {
    let xs = points.map(\.x)
    let ys = points.map(\.y)
    let minX = xs.min() ?? 0
    let minY = ys.min() ?? 0
    return Rect(x: minX, y: minY, width: (xs.max() ?? 0) - minX, height: (ys.max() ?? 0) - minY)
  }
}
