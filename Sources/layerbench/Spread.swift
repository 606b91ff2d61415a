import Foundation

/// Median, minimum and maximum of one metric over repeated runs.
///
/// ```swift
/// Spread([3, 1, 9]).text  // "3.0 (1.0–9.0)"
/// ```
struct Spread: Sendable, Codable, Equatable {
  var median: Double
  var min: Double
  var max: Double

  init(_ values: [Double]) {
    median = layerbench.median(values)
    min = values.min() ?? 0
    max = values.max() ?? 0
  }

  /// The median, with the range in parentheses when the runs differ.
  var text: String {
    func f(_ value: Double) -> String { String(format: value >= 100 ? "%.0f" : "%.1f", value) }
    return min == max ? f(median) : "\(f(median)) (\(f(min))–\(f(max)))"
  }
}
