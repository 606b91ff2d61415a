/// Percentiles of a sample, by nearest rank.
func percentile(_ values: [Double], _ p: Double) -> Double {
  guard !values.isEmpty else { return 0 }
  let sorted = values.sorted()
  let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
  return sorted[min(max(rank, 0), sorted.count - 1)]
}

/// The median of a sample.
func median(_ values: [Double]) -> Double { percentile(values, 50) }
