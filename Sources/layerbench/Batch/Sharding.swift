import Foundation

/// A deterministic, disjoint part of the input: line `n` (1-based, counting every line) belongs to
/// shard `(n - 1) % count`.
struct Shard: Sendable, Equatable, CustomStringConvertible {
  var index: Int
  var count: Int

  func contains(line: Int) -> Bool { (line - 1) % count == index }

  var description: String { "\(index)/\(count)" }

  /// This shard's manifest part.
  var manifestName: String { "manifest.\(index)-of-\(count).jsonl" }
  /// Written when the shard's run finished every line: what `batch merge` checks coverage with.
  var completionName: String { "manifest.\(index)-of-\(count).done.json" }

  init(index: Int, count: Int) throws {
    guard count >= 1, count <= 1_000_000 else { throw BatchError("shard count must be 1…1000000 (got \(count))") }
    guard index >= 0, index < count else {
      throw BatchError("shard index must be 0…\(count - 1) for \(count) shards (got \(index))")
    }
    self.index = index
    self.count = count
  }

  /// `INDEX/COUNT`, INDEX 0-based.
  init(parsing text: String) throws {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
      throw BatchError("--shard must be INDEX/COUNT, e.g. 0/4 (got '\(text)')")
    }
    try self.init(index: index, count: count)
  }

  /// The shard from `--shard`, else from a Slurm job array (`SLURM_ARRAY_TASK_ID` minus
  /// `SLURM_ARRAY_TASK_MIN`, of `SLURM_ARRAY_TASK_COUNT`), else from a Kubernetes Indexed Job
  /// (`JOB_COMPLETION_INDEX` of `--shard-count`); nil for an unsharded run.
  static func resolve(option: String?, shardCount: Int?, environment: [String: String]) throws -> Shard? {
    if let option {
      guard shardCount == nil else { throw BatchError("give --shard or --shard-count, not both") }
      return try Shard(parsing: option)
    }
    if let task = environment["SLURM_ARRAY_TASK_ID"], shardCount == nil {
      guard let id = Int(task), let count = environment["SLURM_ARRAY_TASK_COUNT"].flatMap({ Int($0) }) else {
        throw BatchError("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT are not integers")
      }
      let minimum = environment["SLURM_ARRAY_TASK_MIN"].flatMap { Int($0) } ?? 0
      if let step = environment["SLURM_ARRAY_TASK_STEP"].flatMap({ Int($0) }), step != 1 {
        throw BatchError("the Slurm array must be contiguous (--array=0-N, step 1; got step \(step))")
      }
      return try Shard(index: id - minimum, count: count)
    }
    if let shardCount {
      guard let raw = environment["JOB_COMPLETION_INDEX"], let index = Int(raw) else {
        throw BatchError("--shard-count needs JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) in the environment")
      }
      return try Shard(index: index, count: shardCount)
    }
    return nil
  }
}

/// What a finished shard records next to its manifest part.
struct ShardCompletion: Codable, Equatable {
  var shard: String
  /// Every line of the input, blank ones included.
  var inputLines: Int
  /// Blank lines of this shard (no record).
  var blankLines: Int
  var records: Int
  var failures: Int
  /// The labels file's name (`--labels`), which `batch merge` writes for the joined run; nil without.
  var labels: String? = nil
}
