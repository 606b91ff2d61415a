import AsyncLayer
import AsyncLayerTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

/// `layerbench report` on hostile specs, run as a user runs it, each with a bound on its peak memory
/// (layerbench's own `ru_maxrss`, as `/usr/bin/time` reports it) and its time: an endless spec file, the whole file
/// system as a font folder, and an 8000 × 8000 image.
@Suite("layerbench report: hostile input")
struct ReportHostileInputTests {
  /// How one measured run ended.
  struct Measured: CustomStringConvertible {
    var status: Int32
    var timedOut: Bool
    var stderr: String
    /// The child's peak resident set, in bytes.
    var peakBytes: Int
    var seconds: Double

    var failedCleanly: Bool { !timedOut && (1..<128).contains(status) && peakBytes > 0 }
    var description: String {
      "status \(status)\(timedOut ? " (timed out)" : ""), peak \(peakBytes >> 20) MiB, \(seconds) s, stderr: \(stderr)"
    }
  }

  /// Runs `layerbench arguments` (absolute paths only: it runs in the test's working directory)
  /// under `/usr/bin/time`, killing both after `timeout` seconds, and returns layerbench's own peak
  /// RSS. Not `getrusage(RUSAGE_CHILDREN)` nor `wait4` on a child of the test process: Linux
  /// charges a child's `ru_maxrss` with the peak of the process it was forked from (the test
  /// process, which made the 256 MB image), while `time` is a small process to fork from.
  static func runMeasured(_ arguments: [String], in directory: URL, timeout: Double = 60) throws -> Measured {
    guard let executable = CLI.executable else { throw CLIError("layerbench is not built") }
    let errPath = directory.appendingPathComponent("stderr.txt").path
    let usagePath = directory.appendingPathComponent("usage.txt").path
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    // A process group of its own, so that the watchdog ends layerbench too, not only `time`.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
    posix_spawnattr_setpgroup(&attributes, 0)
    var environment = ProcessInfo.processInfo.environment
    environment["SWIFT_BACKTRACE"] = "enable=no"
    let command = ["/usr/bin/time", "-f", "%M", "-o", usagePath, executable.path] + arguments
    let argv = command.map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid: pid_t = 0
    let start = ContinuousClock.now
    let spawned = posix_spawn(&pid, command[0], &actions, &attributes, argv, envp)
    guard spawned == 0 else { throw CLIError("cannot start /usr/bin/time: errno \(spawned)") }
    let killed = Atomic<Bool>(false)
    let watchdog = DispatchWorkItem { [pid] in
      killed.store(true, ordering: .relaxed)
      kill(-pid, SIGKILL)
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    watchdog.cancel()
    let elapsed = ContinuousClock.now - start
    // WIFEXITED / WEXITSTATUS, spelled out (the macros are not imported). `time` exits with its
    // command's status, or 128 + the signal that ended it.
    let exited = status & 0x7f == 0
    let usage = (try? String(contentsOfFile: usagePath, encoding: .utf8)) ?? ""
    // `time` adds "Command exited with non-zero status N" before the figure.
    let kilobytes = usage.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    return Measured(
      status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), timedOut: killed.load(ordering: .relaxed),
      stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "", peakBytes: (kilobytes ?? -1) * 1024,
      seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
  }

  @Test("report --spec /dev/zero ends at once with the size limit in the message, in little memory")
  func specFromDevZero() throws {
    try CLI.withTemporaryDirectory { directory in
      let outcome = try Self.runMeasured(
        ["report", "--spec", "/dev/zero", "-o", directory.appendingPathComponent("r.pdf").path], in: directory,
        timeout: 30)
      #expect(outcome.failedCleanly, "\(outcome)")
      #expect(
        outcome.stderr == "error: cannot read /dev/zero: more than 16 MiB, the limit for a report spec "
          + "(it is a character device)\n", "\(outcome)")
      // It reads 16 MiB + 1 byte: the process stays near its start-up size (about 50 MB).
      #expect(outcome.peakBytes < 128 << 20, "\(outcome)")
      #expect(outcome.seconds < 10, "\(outcome)")
    }
  }

  @Test("a spec naming / as a font folder is refused at a walk limit, not walked")
  func rootAsFontFolder() throws {
    try CLI.withTemporaryDirectory { directory in
      let spec = directory.appendingPathComponent("fonts.json")
      try Data(#"{"fonts": ["/"], "content": [{"paragraph": "x"}]}"#.utf8).write(to: spec)
      let outcome = try Self.runMeasured(
        ["report", "--spec", spec.path, "-o", directory.appendingPathComponent("r.pdf").path], in: directory,
        timeout: 30)
      #expect(outcome.failedCleanly, "\(outcome)")
      #expect(outcome.stderr.hasPrefix("error: \(spec.path): spec.fonts[0]: /: "), "\(outcome)")
      #expect(outcome.stderr.contains("the limit for a font folder"), "\(outcome)")
      #expect(outcome.seconds < 10, "\(outcome)")
    }
  }

  @Test("a spec with a key given twice is refused with the key and its path")
  func duplicateKey() throws {
    try CLI.withTemporaryDirectory { directory in
      let spec = directory.appendingPathComponent("dup.json")
      try Data(#"{"content": [{"paragraph": "a"}, {"heading": "b", "level": 2, "level": 3}]}"#.utf8).write(to: spec)
      let outcome = try CLI.run(["report", "--spec", "dup.json", "-o", "r.pdf"], in: directory)
      #expect(outcome.failedCleanly, "\(outcome)")
      #expect(
        outcome.stderr == #"error: dup.json: spec.content[1]: line 1, column 63: duplicate key "level" "#
          + "(first at line 1, column 51)\n", "\(outcome)")
    }
  }

  @Test("an 8000 × 8000 PNG in a report is held at the size it is drawn: the PDF is made in little memory")
  func hugeImage() throws {
    try CLI.withTemporaryDirectory { directory in
      // Flat quadrants with a black frame: 256 MB decoded, a few hundred KB as PNG.
      let side = 8000.0
      let image = try ImageRenderer(size: Size(width: side, height: side)).render { context in
        context.fill(Rect(x: 0, y: 0, width: side, height: side), color: .black)
        context.fill(Rect(x: 200, y: 200, width: side / 2 - 200, height: side / 2 - 200), color: .red)
        context.fill(Rect(x: side / 2, y: 200, width: side / 2 - 200, height: side / 2 - 200), color: .blue)
        context.fill(Rect(x: 200, y: side / 2, width: side / 2 - 200, height: side / 2 - 200), color: .white)
        context.fill(
          Rect(x: side / 2, y: side / 2, width: side / 2 - 200, height: side / 2 - 200),
          color: Color(red: 0, green: 1, blue: 0))
      }
      let png = directory.appendingPathComponent("big.png")
      try PNGEncoder(compressionLevel: 1, filter: .none).encode(image).write(to: png)
      let spec = directory.appendingPathComponent("big.json")
      try Data(#"{"content": [{"paragraph": "An 8000 × 8000 image:"}, {"image": "big.png"}]}"#.utf8).write(to: spec)
      let pdf = directory.appendingPathComponent("big.pdf")
      let outcome = try Self.runMeasured(["report", "--spec", spec.path, "-o", pdf.path], in: directory, timeout: 120)
      #expect(outcome.status == 0 && !outcome.timedOut, "\(outcome)")
      // Held whole it was 796 MB; drawn 483 points wide at 300 ppi it is 2014 × 2014 pixels (16 MB).
      #expect(outcome.peakBytes < 200 << 20, "\(outcome)")

      // The PDF's page shows the four quadrants where the image is drawn.
      let pagePNG = directory.appendingPathComponent("page")
      let pdftoppm = Process()
      pdftoppm.executableURL = URL(fileURLWithPath: "/usr/bin/pdftoppm")
      pdftoppm.arguments = ["-r", "36", "-png", "-singlefile", pdf.path, pagePNG.path]
      try pdftoppm.run()
      pdftoppm.waitUntilExit()
      let page = try RenderedImage(contentsOfPNGFile: pagePNG.path + ".png")
      // At 36 dpi (half a pixel per point) the image spans x 28…270 and starts below the paragraph.
      func color(_ x: Double, _ y: Double) -> Color { page.color(x: Int(x / 2), y: Int(y / 2)) }
      let left = 56 + 483.28 / 4, right = 56 + 483.28 * 3 / 4
      // The image's first row: the black frame, found down the middle of the page (clear of the
      // paragraph's text, which ends well before it).
      var imageTop = 56.0
      while imageTop < 300, color(56 + 483.28 / 2, imageTop).red > 0.5 { imageTop += 2 }
      #expect(imageTop < 300, "no image found on the page")
      let upper = imageTop + 483.28 / 4, lower = imageTop + 483.28 * 3 / 4
      #expect(color(left, upper).isClose(to: .red, tolerance: 0.1), "\(color(left, upper))")
      #expect(color(right, upper).isClose(to: .blue, tolerance: 0.1), "\(color(right, upper))")
      #expect(color(left, lower).isClose(to: .white, tolerance: 0.1), "\(color(left, lower))")
      #expect(
        color(right, lower).isClose(to: Color(red: 0, green: 1, blue: 0), tolerance: 0.1), "\(color(right, lower))")
    }
  }
}
