import Foundation

/// A chart's value axis: round tick values (1, 2 or 5 times a power of ten apart) that cover the
/// data and zero.
struct ChartScale: Hashable {
  /// The lowest and highest value of the axis: the first and last tick.
  let lower: Double
  let upper: Double
  /// The distance between ticks.
  let step: Double

  /// A scale with about `targetTicks` intervals covering `range` and 0: of the round steps near
  /// `range / targetTicks`, the one whose interval count is closest to it (the larger on a tie).
  init(covering range: ClosedRange<Double>?, targetTicks: Int = 5) {
    let low = min(0, range?.lowerBound ?? 0)
    var high = max(0, range?.upperBound ?? 1)
    if high - low <= 0 { high = low + 1 }
    let target = Double(max(1, targetTicks))
    let magnitude = pow(10, floor(log10((high - low) / target)))
    var best = (step: 10 * magnitude, distance: Double.infinity)
    for factor in [10.0, 5, 2.5, 2, 1] {
      let step = factor * magnitude
      let intervals = (high / step).rounded(.up) - (low / step).rounded(.down)
      if abs(intervals - target) < best.distance { best = (step, abs(intervals - target)) }
    }
    step = best.step
    lower = (low / step).rounded(.down) * step
    upper = max(lower + step, (high / step).rounded(.up) * step)
  }

  /// The tick values from ``lower`` to ``upper``.
  var ticks: [Double] {
    let count = Int(((upper - lower) / step).rounded())
    return (0...max(0, min(count, 100))).map { lower + Double($0) * step }
  }

  /// Where `value` falls between 0 (``lower``) and 1 (``upper``).
  func fraction(_ value: Double) -> Double { (value - lower) / (upper - lower) }

  /// A tick value as text, with as many decimals as the step needs (2.5 → one, 0.25 → two).
  func label(_ value: Double) -> String {
    var decimals = max(0, Int(-floor(log10(step))))
    while decimals < 6 {
      let scaled = step * pow(10, Double(decimals))
      if abs(scaled - scaled.rounded()) < 1e-6 { break }
      decimals += 1
    }
    // No "-0" for a zero that arrived as -1e-17.
    let shown = abs(value) < step / 1e6 ? 0 : value
    return String(format: "%.\(decimals)f", shown)
  }
}
