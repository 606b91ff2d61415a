import Foundation

/// What a sweep is about to cost, said before it starts: its run count and estimated time on
/// standard error, and a refusal without `--yes` when that time is past an hour (a grid of 300,000
/// runs used to start without a word and run for weeks).
enum SweepEstimate {
  /// Sweeps estimated longer than this need `--yes`.
  static let confirmationSeconds = 3600.0

  /// Prints `label`'s run count and estimated time; throws when it is past an hour and `confirmed` is false.
  static func announce(_ label: String, runs: Int, seconds: Double, basis: String, confirmed: Bool) throws {
    let estimate = "\(label): \(runs.formatted()) runs, estimated \(duration(seconds)) (\(basis))"
    FileHandle.standardError.write(Data((estimate + "\n").utf8))
    guard seconds <= confirmationSeconds || confirmed else {
      throw ValidationErrorMessage(
        "\(label) would take about \(duration(seconds)), past an hour: add --yes to run it, or make the grid smaller")
    }
  }

  /// "45 s", "12 min", "3 h 20 min", "17 days 4 h".
  static func duration(_ seconds: Double) -> String {
    guard seconds.isFinite else { return "for ever" }
    if seconds < 90 { return "\(Int(seconds.rounded())) s" }
    let minutes = Int((seconds / 60).rounded())
    if minutes < 90 { return "\(minutes) min" }
    let hours = minutes / 60
    if hours < 48 { return "\(hours) h \(minutes % 60) min" }
    return "\(hours / 24) days \(hours % 24) h"
  }
}
