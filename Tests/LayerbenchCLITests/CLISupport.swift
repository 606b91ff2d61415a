import Dispatch
import Foundation
import Synchronization
import Testing

/// Runs the built `layerbench` binary (SwiftPM builds it next to the test bundle, in
/// `.build/<triple>/debug/`; `LAYERBENCH_BIN` overrides) as a user runs it, in a directory of the test's.
enum CLI {
  /// What one run printed and how it ended.
  struct Outcome: CustomStringConvertible {
    /// The exit status, or the signal number when `signalled`.
    var status: Int32
    var signalled: Bool
    var timedOut: Bool
    var stdout: String
    var stderr: String

    /// Standard error's non-empty lines.
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }

    /// A plain failure: exited by itself with a status from 1 to 127 (not a signal, not a timeout).
    var failedCleanly: Bool { !signalled && !timedOut && (1..<128).contains(status) }

    var description: String {
      let end = timedOut ? "timed out" : signalled ? "signal \(status)" : "exit \(status)"
      return "\(end)\nstdout: \(stdout.prefix(2000))\nstderr: \(stderr.prefix(2000))"
    }
  }

  /// The built executable, or nil when it is missing.
  static let executable: URL? = {
    if let path = ProcessInfo.processInfo.environment["LAYERBENCH_BIN"] { return URL(fileURLWithPath: path) }
    let testBinary =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var candidates = [URL(fileURLWithPath: testBinary).deletingLastPathComponent()]
    if let bundle = Bundle.main.executableURL { candidates.append(bundle.deletingLastPathComponent()) }
    return candidates.map { $0.appendingPathComponent("layerbench") }
      .first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }()

  /// Runs `layerbench arguments` in `directory` and waits for it, killing it after `timeout` seconds
  /// (a hang fails the test instead of blocking the suite). The Swift runtime's backtracer is off, so
  /// a trap ends the process at once with its signal; shard variables of the test's own environment
  /// (a CI job on Slurm) are cleared, `environment` is added; `input`, when given, is its standard
  /// input (otherwise /dev/null).
  @discardableResult
  static func run(
    _ arguments: [String], environment: [String: String] = [:], input: Data? = nil, in directory: URL,
    timeout: Double = 120
  ) throws -> Outcome {
    guard let executable else { throw CLIError("layerbench is not built") }
    let logs = makeTemporaryDirectory(named: "layerbench-cli-logs")
    defer { try? FileManager.default.removeItem(at: logs) }
    let outURL = logs.appendingPathComponent("stdout"), errURL = logs.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
    defer {
      try? out.close()
      try? err.close()
    }

    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = directory
    var env = ProcessInfo.processInfo.environment
    for key in ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "JOB_COMPLETION_INDEX"] {
      env[key] = nil
    }
    env["SWIFT_BACKTRACE"] = "enable=no"
    env.merge(environment) { $1 }
    process.environment = env
    process.standardInput = FileHandle.nullDevice
    // Output to files, not pipes: nothing to drain while the child runs.
    if let input {
      let inURL = logs.appendingPathComponent("stdin")
      try input.write(to: inURL)
      process.standardInput = try FileHandle(forReadingFrom: inURL)
    }
    process.standardOutput = out
    process.standardError = err
    try process.run()

    let pid = process.processIdentifier
    let killed = Atomic<Bool>(false)
    let watchdog = DispatchWorkItem {
      killed.store(true, ordering: .relaxed)
      kill(pid, SIGKILL)
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    process.waitUntilExit()
    watchdog.cancel()

    return Outcome(
      status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
      timedOut: killed.load(ordering: .relaxed),
      stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
  }

  /// Runs `body` with a fresh, empty directory in the temporary directory, then removes the
  /// directory and everything in it on every path out of `body` (as swift-nio's tests'
  /// `withTemporaryDirectory` does): a test run leaves nothing in the temporary directory.
  static func withTemporaryDirectory<R>(_ body: (URL) throws -> R) rethrows -> R {
    let directory = makeTemporaryDirectory(named: "layerbench-cli")
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
  }

  /// A new directory `<prefix>-<uuid>` in the temporary directory, which the caller removes. Not
  /// being able to make one is a broken machine, not a failed test: it stops the run (which keeps
  /// ``withTemporaryDirectory(_:)`` `rethrows`).
  private static func makeTemporaryDirectory(named prefix: String) -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "\(prefix)-\(UUID().uuidString)", isDirectory: true)
    do {
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    } catch {
      preconditionFailure("cannot make a temporary directory at \(url.path): \(error)")
    }
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

struct CLIError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
