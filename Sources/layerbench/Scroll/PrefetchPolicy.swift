/// Texture-style working ranges around a list's viewport: a *preload* range whose rows get cells
/// (and their images loaded) and a smaller *display* range whose rows get drawn, both reaching
/// further ahead in the direction of scrolling than behind it, and further still the faster the
/// list moves. Pure arithmetic, so it is unit-tested without a clock.
///
/// ```swift
/// let policy = PrefetchPolicy.adaptive()
/// var direction = PrefetchPolicy.Direction.down
/// let ranges = policy.ranges(top: 1000, height: 600, velocity: 8000, direction: &direction)
/// ranges.display  // 1000..<3200: nothing behind, 0.2 s of travel (1 600 pt) ahead
/// // At rest both sides get the leading reach (the next fling may go either way).
/// ```
struct PrefetchPolicy: Sendable, Equatable, CustomStringConvertible {
  /// Where the list is heading; it keeps the last direction while the list rests.
  enum Direction: Sendable, Equatable {
    case up
    case down
  }

  /// One range's reach beyond the viewport.
  struct Reach: Sendable, Equatable {
    /// Screens ahead of the viewport in the direction of scrolling.
    var leadingScreens: Double
    /// Screens behind the viewport.
    var trailingScreens: Double
    /// Seconds of travel at the current speed the range reaches ahead, when that is further
    /// than `leadingScreens`: the range grows with the fling.
    var lookaheadSeconds: Double
  }

  /// The two ranges for one frame, in content points.
  struct Ranges: Sendable, Equatable {
    var display: Range<Double>
    var preload: Range<Double>
  }

  /// Rows in this range get drawn.
  var display: Reach
  /// Rows in this range get cells and images (it always contains the display range).
  var preload: Reach
  /// Below this speed (points per second) the list counts as resting and keeps its direction.
  var restingSpeed = 60.0

  /// Only the viewport: no cell before its row is visible (the list without prefetch).
  static let none = PrefetchPolicy.fixed(points: 0)

  /// The default (`displayAhead` 1, `lookahead` 0.2): while moving, draw nothing behind the
  /// viewport (a row the viewport passed before its draw started would only delay the rows ahead)
  /// and at least one screen (or 0.2 s of travel) ahead; bind cells and load images half a screen
  /// behind and twice as far ahead. At rest, the leading reach on both sides.
  static func adaptive(displayAhead: Double = 1, lookahead: Double = 0.2) -> PrefetchPolicy {
    PrefetchPolicy(
      display: Reach(leadingScreens: displayAhead, trailingScreens: 0, lookaheadSeconds: lookahead),
      preload: Reach(leadingScreens: 2 * displayAhead, trailingScreens: 0.5, lookaheadSeconds: 2 * lookahead))
  }

  /// The same distance above and below, whatever the motion (the benchmark's old `--prefetch`).
  static func fixed(points: Double) -> PrefetchPolicy {
    let reach = Reach(leadingScreens: 0, trailingScreens: 0, lookaheadSeconds: 0)
    var policy = PrefetchPolicy(display: reach, preload: reach)
    policy.fixedPoints = points
    return policy
  }

  /// Set by ``fixed(points:)``: a symmetric reach in points that replaces the screens.
  private(set) var fixedPoints: Double?

  var description: String {
    if let fixedPoints { return "fixed \(Int(fixedPoints)) pt" }
    func text(_ reach: Reach) -> String {
      "\(format(reach.leadingScreens)) ahead (or \(format(reach.lookaheadSeconds)) s of travel), "
        + "\(format(reach.trailingScreens)) behind"
    }
    return "display \(text(display)) screens; preload \(text(preload)) screens"
  }

  private func format(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(value)
  }

  /// The ranges for a viewport at `top` of `height` points moving at `velocity` points per second
  /// (positive: down the content). Updates `direction` when the list moves fast enough to tell.
  func ranges(top: Double, height: Double, velocity: Double, direction: inout Direction) -> Ranges {
    let viewport = top..<(top + max(height, 0))
    if let fixedPoints {
      let range = (viewport.lowerBound - fixedPoints)..<(viewport.upperBound + fixedPoints)
      return Ranges(display: range, preload: range)
    }
    let isMoving = velocity.isFinite && abs(velocity) >= restingSpeed
    if isMoving { direction = velocity > 0 ? .down : .up }
    let speed = isMoving ? abs(velocity) : 0
    // At rest the next fling may go either way, and its first frame can jump further than the
    // trailing reach: both sides get the leading reach.
    let direction: Direction? = isMoving ? direction : nil
    let displayRange = extend(viewport, by: display, speed: speed, height: height, direction: direction)
    let preloadRange = extend(viewport, by: preload, speed: speed, height: height, direction: direction)
    return Ranges(
      display: displayRange,
      preload: min(
        preloadRange.lowerBound, displayRange.lowerBound)..<max(
          preloadRange.upperBound, displayRange.upperBound))
  }

  private func extend(
    _ viewport: Range<Double>, by reach: Reach, speed: Double, height: Double, direction: Direction?
  ) -> Range<Double> {
    let leading = max(reach.leadingScreens * height, speed * reach.lookaheadSeconds)
    let trailing = reach.trailingScreens * height
    switch direction {
    case .down: return (viewport.lowerBound - trailing)..<(viewport.upperBound + leading)
    case .up: return (viewport.lowerBound - leading)..<(viewport.upperBound + trailing)
    case nil: return (viewport.lowerBound - leading)..<(viewport.upperBound + leading)
    }
  }

  /// How urgent a row's draw is: 0 inside the viewport, else its gap to the viewport in points,
  /// doubled behind the viewport (a row behind is leaving; one ahead is coming). Lower draws first.
  static func drawPriority(rowTop: Double, rowBottom: Double, viewport: Range<Double>, direction: Direction)
    -> Double
  {
    let above = viewport.lowerBound - rowBottom
    let below = rowTop - viewport.upperBound
    if above < 0 && below < 0 { return 0 }  // the row overlaps the viewport
    let gap = max(above, below)
    let isAhead = (below >= 0) == (direction == .down)
    return isAhead ? gap : 2 * gap
  }
}
