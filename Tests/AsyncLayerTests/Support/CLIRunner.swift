import Dispatch
import Foundation
import Synchronization

/// Runs the `layerbench` executable that SwiftPM builds next to the test bundle
/// (`.build/<triple>/debug/`; `swift build --build-tests` and `swift test` build every product).
enum CLIRunner {
  /// The built executable, or nil when it is missing.
  static let executable: URL? = {
    let testBinary =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let candidate = URL(fileURLWithPath: testBinary).deletingLastPathComponent().appendingPathComponent("layerbench")
    return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
  }()

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

  /// Runs `layerbench arguments` in `directory` and waits for it, killing it after `timeout`
  /// seconds (a hang fails the test instead of blocking the suite). The Swift runtime's backtracer is
  /// off, so a trap ends the process at once with its signal.
  static func run(_ arguments: [String], in directory: URL, timeout: Double = 120) throws -> Outcome {
    guard let executable else { throw CLIRunnerError("layerbench is not built") }
    let logs = FileManager.default.temporaryDirectory.appendingPathComponent("layerbench-cli-logs-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
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
    var environment = ProcessInfo.processInfo.environment
    environment["SWIFT_BACKTRACE"] = "enable=no"
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
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

  /// Runs `body` with a fresh temporary directory, removed afterwards.
  static func withTemporaryDirectory<R>(_ body: (URL) throws -> R) throws -> R {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("layerbench-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
  }
}

struct CLIRunnerError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
