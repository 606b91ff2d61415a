package import AsyncLayer

extension Color {
  /// Channel-wise equality within `tolerance`.
  package func isClose(to other: Color, tolerance: Double = 0.02) -> Bool {
    abs(red - other.red) <= tolerance && abs(green - other.green) <= tolerance
      && abs(blue - other.blue) <= tolerance && abs(alpha - other.alpha) <= tolerance
  }
}
