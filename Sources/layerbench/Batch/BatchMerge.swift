import ArgumentParser
import AsyncLayer
import Foundation

/// `layerbench batch merge DIR`: checks the shards' manifest parts and joins them.
struct BatchMergeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "merge",
    abstract: "Check the manifest parts of a sharded run (manifest.I-of-N.jsonl) and join them into manifest.jsonl.",
    discussion: """
      Checks: every part 0…N-1 is present and finished (its .done.json), every input line is covered exactly once \
      (records plus blank lines add up to the input's line count, each line in its own shard), ids are unique, and \
      every PNG exists with the manifest's size and SHA-256 (--no-verify skips reading the PNGs). Writes nothing \
      when a check fails. Exits 1 when tiles failed (the manifest is still written).
      """
  )

  @Argument(help: "The output directory the shards wrote to.")
  var directory: String

  @Option(help: "Name of the joined manifest in the directory.")
  var output = "manifest.jsonl"

  @Flag(inversion: .prefixedNo, help: "Read every PNG and compare its SHA-256 with the manifest.")
  var verify = true

  @Option(
    help: ArgumentHelp(
      "Write the joined labels file (`<file>TAB<text>`) under this name (default: the name the shards were given "
        + "with --labels, if any).", valueName: "NAME"))
  var labels: String?

  func validate() throws {
    if let labels, let problem = BatchLabels.problem(withName: labels) { throw ValidationError(problem) }
  }

  func run() throws {
    do {
      let outcome = try BatchMerger(directory: directory, output: output, verify: verify, labels: labels).merge()
      FileHandle.standardError.write(
        Data(
          "merged \(outcome.parts) parts: \(outcome.records) records, \(outcome.failures) failed → \(outcome.path)\n"
            .utf8))
      if outcome.failures > 0 {
        FileHandle.standardError.write(Data("error: \(outcome.failures) tiles failed; see the manifest\n".utf8))
        throw ExitCode(1)
      }
    } catch let error as BatchError {
      FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      throw ExitCode(2)
    }
  }
}

struct BatchMerger {
  var directory: String
  var output: String
  var verify: Bool
  /// The labels file to write; nil: the one the shards recorded (`ShardCompletion.labels`), if any.
  var labels: String? = nil

  struct Outcome {
    var parts: Int
    var records: Int
    var failures: Int
    var path: String
  }

  func merge() throws -> Outcome {
    var info = stat()
    guard stat(directory, &info) == 0 else {
      let code = errno
      throw BatchError(
        code == ENOENT
          ? FileErrorDescription(path: directory, operation: "cannot merge", reason: "no such folder")
          : FileErrorDescription(path: directory, operation: "cannot merge", errno: code))
    }
    guard (info.st_mode & S_IFMT) == S_IFDIR else {
      throw BatchError(FileErrorDescription(path: directory, operation: "cannot merge", reason: "not a folder"))
    }
    // No shard may be writing while the parts are read and joined.
    let lock = try OutputLock.acquire(directory: directory, shard: nil)
    defer { withExtendedLifetime(lock) {} }
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: directory)
    } catch {
      throw BatchError(FileErrorDescription(path: directory, operation: "cannot list", error: error))
    }
    var parts: [Int: Int] = [:]  // index → count
    for name in names where name.hasPrefix("manifest.") && name.hasSuffix(".jsonl") {
      let middle = name.dropFirst("manifest.".count).dropLast(".jsonl".count)
      let pieces = middle.split(separator: "-of-", omittingEmptySubsequences: false)
      if pieces.count == 2, let index = Int(pieces[0]), let count = Int(pieces[1]) { parts[index] = count }
    }
    guard let count = parts.values.first else {
      throw BatchError("\(directory): no manifest parts (manifest.I-of-N.jsonl)")
    }
    guard parts.values.allSatisfy({ $0 == count }) else {
      throw BatchError("parts of different shard counts: \(Set(parts.values).sorted()); remove the stale ones")
    }
    let missing = (0..<count).filter { parts[$0] == nil }
    guard missing.isEmpty else {
      throw BatchError("missing parts of \(count): \(missing.prefix(20).map { "\($0)" }.joined(separator: ", "))")
    }
    let shards = try (0..<count).map { try Shard(index: $0, count: count) }
    var completions: [ShardCompletion] = []
    for shard in shards {
      let path = (directory as NSString).appendingPathComponent(shard.completionName)
      guard let data = FileManager.default.contents(atPath: path),
        let completion = try? JSONDecoder().decode(ShardCompletion.self, from: data)
      else { throw BatchError("shard \(shard) has not finished (no \(shard.completionName)); run it again") }
      completions.append(completion)
    }
    let inputLines = completions[0].inputLines
    let labelsName = labels ?? completions.lazy.compactMap(\.labels).first
    guard completions.allSatisfy({ $0.inputLines == inputLines }) else {
      throw BatchError("the shards read inputs of different lengths: \(Set(completions.map(\.inputLines)).sorted())")
    }

    let readers = try shards.map {
      try ManifestReader(path: (directory as NSString).appendingPathComponent($0.manifestName))
    }
    var heads = try readers.map { try $0.next() }
    var perPart = [Int](repeating: 0, count: count)
    var ids = Set<String>()
    var problems: [String] = []
    var failures = 0
    var records = 0
    var lastLine = 0
    let target = (directory as NSString).appendingPathComponent(output)
    let temporary = (directory as NSString).appendingPathComponent(".\(output).tmp")
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      throw BatchError(FileErrorDescription(path: temporary, operation: "cannot create", errno: errno))
    }
    defer { close(fd) }
    let labelsTarget = labelsName.map { (directory as NSString).appendingPathComponent($0) }
    let labelsTemporary = labelsName.map { (directory as NSString).appendingPathComponent(".\($0).tmp") }
    var labelsFD: Int32 = -1
    if let labelsTemporary {
      labelsFD = open(labelsTemporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      guard labelsFD >= 0 else {
        throw BatchError(FileErrorDescription(path: labelsTemporary, operation: "cannot create", errno: errno))
      }
    }
    defer { if labelsFD >= 0 { close(labelsFD) } }
    var labelBuffer = Data()
    func problem(_ message: String) { if problems.count < 20 { problems.append(message) } else { problems[19] = "…" } }

    while true {
      var best: Int?
      for (index, head) in heads.enumerated() {
        if let head, best == nil || head.line < heads[best!]!.line { best = index }
      }
      guard let part = best, let record = heads[part] else { break }
      heads[part] = try readers[part].next()
      perPart[part] += 1
      records += 1
      if record.line <= lastLine { problem("line \(record.line) has more than one record") }
      lastLine = max(lastLine, record.line)
      if record.line < 1 || record.line > inputLines { problem("line \(record.line) is outside the input") }
      if !shards[part].contains(line: record.line) {
        problem("line \(record.line) is in part \(part), not its shard's")
      }
      if let id = record.id, record.error == nil, !ids.insert(id).inserted { problem("id \(id) appears twice") }
      if record.error != nil {
        failures += 1
      } else if let tar = record.tar {
        // A WebDataset tile: its image member, and its boxes member, at their recorded offsets.
        let path = (directory as NSString).appendingPathComponent(tar)
        if verify {
          func member(_ offset: Int?, _ bytes: Int?, _ sha: String?, _ what: String) {
            guard let offset, let bytes, offset >= 0, bytes >= 0, offset <= Int.max - bytes,
              let data = Self.read(path, range: offset..<offset + bytes)
            else { return problem("\(what) (line \(record.line)) is missing from \(tar)") }
            if SHA256.hex(data) != sha {
              problem("\(what) (line \(record.line)) in \(tar) does not match its checksum")
            }
          }
          member(record.offset, record.bytes, record.sha256, record.file ?? "the image")
          if let boxes = record.boxes { member(record.boxesOffset, record.boxesBytes, record.boxesSha256, boxes) }
        } else if !BatchFiles.exists(path) {
          problem("\(tar) (line \(record.line)) is missing")
        }
      } else if let file = record.file, let sha = record.sha256 {
        let path = (directory as NSString).appendingPathComponent(file)
        if verify {
          guard let data = FileManager.default.contents(atPath: path) else {
            problem("\(file) (line \(record.line)) is missing")
            continue
          }
          if data.count != record.bytes || SHA256.hex(data) != sha {
            problem("\(file) (line \(record.line)) does not match its checksum")
          }
        } else if !BatchFiles.exists(path) {
          problem("\(file) (line \(record.line)) is missing")
        }
      } else {
        problem("line \(record.line): incomplete record")
      }
      if record.error == nil, record.tar == nil, let boxes = record.boxes {
        let path = (directory as NSString).appendingPathComponent(boxes)
        if verify {
          let data = FileManager.default.contents(atPath: path)
          if data == nil {
            problem("\(boxes) (line \(record.line)) is missing")
          } else if data?.count != record.boxesBytes || data.map(SHA256.hex) != record.boxesSha256 {
            problem("\(boxes) (line \(record.line)) does not match its checksum")
          }
        } else if !BatchFiles.exists(path) {
          problem("\(boxes) (line \(record.line)) is missing")
        }
      }
      if labelsFD >= 0, record.error == nil {
        if let line = BatchLabels.line(for: record) {
          labelBuffer.append(line)
        } else {
          problem(
            "line \(record.line) has no text for the labels (a record from before records had one): run its shard again"
          )
        }
      }
      if problems.isEmpty {
        try BatchFiles.writeAll(fd, record.jsonLine(), path: temporary)
        if labelsFD >= 0, labelBuffer.count >= 32 << 10, let labelsTemporary {
          try BatchFiles.writeAll(labelsFD, labelBuffer, path: labelsTemporary)
          labelBuffer.removeAll(keepingCapacity: true)
        }
      }
    }
    for (part, completion) in completions.enumerated() where completion.records != perPart[part] {
      problem("part \(part) has \(perPart[part]) records, its run wrote \(completion.records)")
    }
    let blank = completions.reduce(0) { $0 + $1.blankLines }
    if records + blank != inputLines {
      problem("\(records) records + \(blank) blank lines do not cover the input's \(inputLines) lines")
    }
    guard problems.isEmpty else {
      unlink(temporary)
      if let labelsTemporary { unlink(labelsTemporary) }
      throw BatchError("the parts do not add up; nothing written:\n  " + problems.joined(separator: "\n  "))
    }
    if let labelsTemporary, let labelsTarget {
      try BatchFiles.writeAll(labelsFD, labelBuffer, path: labelsTemporary)
      guard rename(labelsTemporary, labelsTarget) == 0 else {
        throw BatchError("\(labelsTarget): cannot rename into place")
      }
    }
    guard rename(temporary, target) == 0 else { throw BatchError("\(target): cannot rename into place") }
    return Outcome(parts: count, records: records, failures: failures, path: target)
  }

  /// `range` of the file at `path`, or nil when it is missing or shorter.
  static func read(_ path: String, range: Range<Int>) -> Data? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    guard (try? handle.seek(toOffset: UInt64(range.lowerBound))) != nil,
      let data = try? handle.read(upToCount: range.count), data.count == range.count
    else { return nil }
    return data
  }
}
