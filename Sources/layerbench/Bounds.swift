/// Range checks of numeric options. A value out of range stops the command in `validate()` with one
/// line naming the option, the allowed range and the value given (exit status 1), before anything
/// runs: no option reaches the library as NaN, infinity or a count that exhausts threads or memory.
enum Bounds {
  /// `value` must lie in `range`.
  static func check(_ value: Int, _ option: String, _ range: ClosedRange<Int>, _ unit: String = "") throws {
    guard range.contains(value) else {
      throw ValidationErrorMessage(
        "\(option) must be from \(range.lowerBound) to \(range.upperBound)\(unit.isEmpty ? "" : " \(unit)") (got \(value))"
      )
    }
  }

  /// `value` must be a finite number in `range`.
  static func check(_ value: Double, _ option: String, _ range: ClosedRange<Double>, _ unit: String) throws {
    guard value.isFinite, range.contains(value) else {
      throw ValidationErrorMessage(
        "\(option) must be a number from \(format(range.lowerBound)) to \(format(range.upperBound)) \(unit) "
          + "(got \(format(value)))")
    }
  }

  /// `value` must be a finite number above `lower` and at most `upper`.
  static func check(_ value: Double, _ option: String, above lower: Double, atMost upper: Double, _ unit: String)
    throws
  {
    guard value.isFinite, value > lower, value <= upper else {
      throw ValidationErrorMessage(
        "\(option) must be a number above \(format(lower)) and at most \(format(upper)) \(unit) (got \(format(value)))")
    }
  }

  /// A number as a person writes it: 5, -0.5, 1e-09, nan, inf.
  static func format(_ value: Double) -> String {
    if value.isNaN { return "nan" }
    if value.isInfinite { return value < 0 ? "-inf" : "inf" }
    if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
    return "\(value)"
  }
}
