import AsyncLayer
import Foundation
import Synchronization
import Testing

extension CLI {
  /// A run of the built CLI with what it cost: wall time and layerbench's own peak resident memory,
  /// as `/usr/bin/time` reports it. Not `ru_maxrss` of a child of the test process: Linux charges a
  /// child's `ru_maxrss` with the peak of the process it was spawned from (the test process, which
  /// other tests grow to hundreds of MB), while `time` is a small process to fork layerbench from.
  struct Measured: CustomStringConvertible {
    var outcome: Outcome
    var seconds: Double
    var peakMegabytes: Double

    var status: Int32 { outcome.status }
    var stderr: String { outcome.stderr }
    var stdout: String { outcome.stdout }

    var description: String {
      String(format: "%.2f s, peak %.1f MB; ", seconds, peakMegabytes) + outcome.description
    }
  }

  /// A process started by ``start(_:in:)``, to be waited for with ``Started/wait(timeout:)``.
  final class Started: @unchecked Sendable {  // one test thread uses it; `pid` is read-only after start
    /// The process group's leader: `/usr/bin/time`, whose one child is layerbench.
    let group: pid_t
    let logs: URL
    let start: UInt64

    fileprivate init(group: pid_t, logs: URL, start: UInt64) {
      self.group = group
      self.logs = logs
      self.start = start
    }

    /// layerbench's pid (the child of `time`), once it has started: call it after something shows
    /// that layerbench runs (a FIFO it opened, say).
    var pid: pid_t {
      let children = (try? String(contentsOfFile: "/proc/\(group)/task/\(group)/children", encoding: .utf8)) ?? ""
      return children.split(separator: " ").first.flatMap { pid_t($0) } ?? -1
    }

    /// Waits for the process, killing its process group after `timeout` seconds; removes the logs.
    func wait(timeout: Double) throws -> Measured {
      defer { try? FileManager.default.removeItem(at: logs) }
      let killed = Atomic<Bool>(false)
      let pid = group
      let watchdog = DispatchWorkItem {
        killed.store(true, ordering: .relaxed)
        kill(-pid, SIGKILL)
      }
      DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0, errno == EINTR {}
      watchdog.cancel()
      let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
      // `time` writes "Command terminated by signal N" (or "… exited with non-zero status N") and
      // then the peak in KB; it exits with 128 + N for a signal.
      let usageLines = ((try? String(contentsOf: logs.appendingPathComponent("usage"), encoding: .utf8)) ?? "")
        .split(separator: "\n")
      let kilobytes = usageLines.last.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? -1
      let commandSignal = usageLines.first { $0.hasPrefix("Command terminated by signal ") }
        .flatMap { Int32($0.dropFirst("Command terminated by signal ".count)) }
      let timeSignalled = (status & 0x7f) != 0
      let signalled = timeSignalled || commandSignal != nil
      let outcome = Outcome(
        status: timeSignalled ? status & 0x7f : commandSignal ?? (status >> 8) & 0xff, signalled: signalled,
        timedOut: killed.load(ordering: .relaxed),
        stdout: String(decoding: try Data(contentsOf: logs.appendingPathComponent("stdout")), as: UTF8.self),
        stderr: String(decoding: try Data(contentsOf: logs.appendingPathComponent("stderr")), as: UTF8.self))
      return Measured(outcome: outcome, seconds: seconds, peakMegabytes: kilobytes / 1024)
    }
  }

  /// Starts `layerbench arguments` in `directory`, in a process group of its own, standard input
  /// /dev/null and its output to files; returns without waiting.
  static func start(_ arguments: [String], in directory: URL) throws -> Started {
    guard let executable else { throw CLIError("layerbench is not built") }
    let logs = FileManager.default.temporaryDirectory.appendingPathComponent("layerbench-measured-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: false)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(
      &actions, 1, logs.appendingPathComponent("stdout").path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(
      &actions, 2, logs.appendingPathComponent("stderr").path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
    posix_spawnattr_setpgroup(&attributes, 0)
    var environment = ProcessInfo.processInfo.environment
    for key in ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "JOB_COMPLETION_INDEX"] {
      environment[key] = nil
    }
    environment["SWIFT_BACKTRACE"] = "enable=no"
    // `env -C` starts it in `directory` (Glibc's posix_spawn_file_actions_addchdir_np is not imported
    // into Swift); env replaces itself with `time`, which forks layerbench and writes its peak RSS.
    let usage = logs.appendingPathComponent("usage").path
    let command = ["/usr/bin/env", "-C", directory.path, "/usr/bin/time", "-f", "%M", "-o", usage, executable.path]
    let argv = (command + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    let start = DispatchTime.now().uptimeNanoseconds
    let code = posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, argv, envp)
    guard code == 0 else { throw CLIError("cannot start layerbench: \(String(cString: strerror(code)))") }
    return Started(group: pid, logs: logs, start: start)
  }

  /// Runs `layerbench arguments` and measures it; see ``Measured``.
  static func measure(_ arguments: [String], in directory: URL, timeout: Double) throws -> Measured {
    try start(arguments, in: directory).wait(timeout: timeout)
  }

  /// Every record of the manifest at `url` that names a file names one whose size and SHA-256 are
  /// the record's; returns the records checked.
  @discardableResult
  static func expectRecordsTrue(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
    guard FileManager.default.fileExists(atPath: url.path) else { return 0 }
    let directory = url.deletingLastPathComponent()
    var checked = 0
    for record in try manifest(url) {
      guard let file = record["file"] as? String, let sha = record["sha256"] as? String else { continue }
      let data = try Data(contentsOf: directory.appendingPathComponent(file))
      #expect(data.count == record["bytes"] as? Int, "\(file): size", sourceLocation: sourceLocation)
      #expect(SHA256.hex(data) == sha, "\(file): the record's sha256 is not the file's", sourceLocation: sourceLocation)
      checked += 1
    }
    return checked
  }
}
