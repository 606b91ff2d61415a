/// A width and a height in points.
///
/// ```swift
/// let tile = Size(width: 375, height: 120)
/// ```
public struct Size: Sendable, Hashable, CustomStringConvertible {
  /// The horizontal extent, in points.
  public var width: Double
  /// The vertical extent, in points.
  public var height: Double

  /// A size of `width` × `height` points.
  public init(width: Double, height: Double) {
    self.width = width
    self.height = height
  }

  /// The empty size.
  public static let zero = Size(width: 0, height: 0)

  /// True when either side is zero or negative: nothing can be drawn into it.
  public var isEmpty: Bool { !(width > 0 && height > 0) }

  /// `width×height`, e.g. `375.0×120.0`.
  public var description: String { "\(width)×\(height)" }
}

/// A position in points.
///
/// ```swift
/// let origin = Point(x: 8, y: 8)   // 8 pt right of and below the top-left corner
/// ```
public struct Point: Sendable, Hashable {
  /// The horizontal position, in points, growing to the right.
  public var x: Double
  /// The vertical position, in points, growing downwards.
  public var y: Double

  /// The point at (`x`, `y`).
  public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }

  /// The origin.
  public static let zero = Point(x: 0, y: 0)
}

/// A rectangle in points: an origin and a size.
///
/// ```swift
/// let frame = Rect(x: 10, y: 10, width: 100, height: 40)
/// frame.insetBy(dx: 4, dy: 4)  // 18…106 × 14…46
/// ```
public struct Rect: Sendable, Hashable {
  /// The top-left corner.
  public var origin: Point
  /// The width and height.
  public var size: Size

  /// A rectangle at `origin` of `size`.
  public init(origin: Point, size: Size) {
    self.origin = origin
    self.size = size
  }

  /// A rectangle whose top-left corner is (`x`, `y`).
  public init(x: Double, y: Double, width: Double, height: Double) {
    self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
  }

  /// The left edge.
  public var minX: Double { origin.x }
  /// The top edge.
  public var minY: Double { origin.y }
  /// The right edge.
  public var maxX: Double { origin.x + size.width }
  /// The bottom edge.
  public var maxY: Double { origin.y + size.height }
  /// The horizontal centre.
  public var midX: Double { origin.x + size.width / 2 }
  /// The vertical centre.
  public var midY: Double { origin.y + size.height / 2 }
  /// The width, `size.width`.
  public var width: Double { size.width }
  /// The height, `size.height`.
  public var height: Double { size.height }

  /// The rectangle shrunk by `dx` on the left and right and `dy` on the top and bottom.
  public func insetBy(dx: Double, dy: Double) -> Rect {
    Rect(x: minX + dx, y: minY + dy, width: max(0, width - 2 * dx), height: max(0, height - 2 * dy))
  }

  /// True when the two rectangles overlap with a non-empty area.
  public func intersects(_ other: Rect) -> Bool {
    minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
  }
}

/// Space to keep clear on each side, in points.
///
/// ```swift
/// let padding = EdgeInsets(top: 8, left: 12, bottom: 8, right: 12)
/// let tile = TextTile(.plain("Hi"), width: 200, padding: EdgeInsets(all: 8))
/// ```
public struct EdgeInsets: Sendable, Hashable {
  /// Space above, in points.
  public var top: Double
  /// Space on the left, in points.
  public var left: Double
  /// Space below, in points.
  public var bottom: Double
  /// Space on the right, in points.
  public var right: Double

  /// Insets with their own value on each side.
  public init(top: Double, left: Double, bottom: Double, right: Double) {
    self.top = top
    self.left = left
    self.bottom = bottom
    self.right = right
  }

  /// The same inset on all four sides.
  public init(all value: Double) {
    self.init(top: value, left: value, bottom: value, right: value)
  }

  /// No inset.
  public static let zero = EdgeInsets(all: 0)
}
