import ArgumentParser

/// How many failed lines stop a run (`--max-failures`): a run of runaway input (random bytes, the
/// wrong file) ends after a bounded number of records instead of writing one per line for ever.
enum FailureLimit: Sendable, Equatable, ExpressibleByArgument, CustomStringConvertible {
  /// 1,000 failures that are also at least 10% of the records so far: a large input with a few
  /// bad lines here and there runs to its end, an input that is mostly bad stops early.
  case automatic
  /// Stop at this many failures (1: `--fail-fast`).
  case count(Int)
  /// Never stop for failures.
  case none

  static let automaticCount = 1_000
  static let automaticShare = 0.1

  init?(argument: String) {
    switch argument {
    case "auto": self = .automatic
    case "none": self = .none
    default:
      guard let count = Int(argument), count >= 1 else { return nil }
      self = .count(count)
    }
  }

  static var defaultCompletionKind: CompletionKind { .list(["auto", "none"]) }

  var description: String {
    switch self {
    case .automatic: "auto"
    case .count(let count): "\(count)"
    case .none: "none"
    }
  }

  /// Whether `failures` among `records` committed lines stop the run.
  func isReached(failures: Int, records: Int) -> Bool {
    switch self {
    case .automatic:
      failures >= Self.automaticCount && Double(failures) >= Self.automaticShare * Double(records)
    case .count(let count): failures >= count
    case .none: false
    }
  }
}
