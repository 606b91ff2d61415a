import Foundation
import Testing

/// Runs the built `layerbench` binary (next to the test bundle in .build/<triple>/debug).
enum CLI {
  struct Run {
    var status: Int32
    var reason: Process.TerminationReason
    var stdout: String
    var stderr: String
  }

  static let binary: URL = {
    if let path = ProcessInfo.processInfo.environment["LAYERBENCH_BIN"] { return URL(fileURLWithPath: path) }
    var candidates: [URL] = []
    if let bundle = Bundle.main.executableURL { candidates.append(bundle.deletingLastPathComponent()) }
    candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    for directory in candidates {
      let binary = directory.appendingPathComponent("layerbench")
      if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
    }
    // The package's own .build, from this file's path.
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    return root.appendingPathComponent(".build/debug/layerbench")
  }()

  @discardableResult
  /// Runs the binary in `directory`; `input`, when given, is its standard input.
  static func run(
    _ arguments: [String], environment: [String: String] = [:], input: Data? = nil, in directory: URL
  ) throws -> Run {
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    process.currentDirectoryURL = directory
    var env = ProcessInfo.processInfo.environment
    for key in ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "JOB_COMPLETION_INDEX"] {
      env[key] = nil
    }
    env.merge(environment) { $1 }
    process.environment = env
    // Output to files, not pipes: nothing to drain while the child runs.
    let outURL = directory.appendingPathComponent(".stdout-\(UUID().uuidString)")
    let errURL = directory.appendingPathComponent(".stderr-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    defer {
      try? FileManager.default.removeItem(at: outURL)
      try? FileManager.default.removeItem(at: errURL)
    }
    if let input {
      let inURL = directory.appendingPathComponent(".stdin-\(UUID().uuidString)")
      try input.write(to: inURL)
      defer { try? FileManager.default.removeItem(at: inURL) }
      process.standardInput = try FileHandle(forReadingFrom: inURL)
    }
    process.standardOutput = try FileHandle(forWritingTo: outURL)
    process.standardError = try FileHandle(forWritingTo: errURL)
    try process.run()
    process.waitUntilExit()
    let outData = try Data(contentsOf: outURL)
    let errData = try Data(contentsOf: errURL)
    return Run(
      status: process.terminationStatus, reason: process.terminationReason,
      stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
  }

  /// A fresh temporary directory.
  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("layerbench-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// The manifest's records, one dictionary per line.
  static func manifest(_ url: URL) throws -> [[String: Any]] {
    let text = try String(contentsOf: url, encoding: .utf8)
    return try text.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
  }

  /// What must be equal between two runs of the same input: line, id, pixel size, PNG checksum, error.
  static func essentials(_ records: [[String: Any]]) -> [String] {
    records.map { record in
      ["line", "id", "width", "height", "lines", "bytes", "sha256", "error"].map { "\(record[$0] ?? "-")" }
        .joined(separator: " ")
    }
  }

  static func sha256(of url: URL) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [url.path]
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(String(decoding: data, as: UTF8.self).prefix(64))
  }

  static func jsonl(_ count: Int, prefix: String = "t") -> String {
    (0..<count).map { #"{"id": "\#(prefix)\#($0)", "text": "Tile \#($0): the quick brown fox"}"# }
      .joined(separator: "\n") + "\n"
  }
}
