import Foundation
import Testing

/// `layerbench` as a user runs it: the built executable in a temporary directory, its exit status
/// and what it prints on standard error.
@Suite(
  "layerbench command line", .serialized,
  .enabled(if: CLIRunner.executable != nil, "layerbench is not built next to the test bundle; run `swift build`"))
struct CLITests {
  /// Runs `arguments` in a fresh temporary directory.
  func run(_ arguments: [String], timeout: Double = 120, setUp: (URL) throws -> Void = { _ in }) throws
    -> CLIRunner.Outcome
  {
    try CLIRunner.withTemporaryDirectory { directory in
      try setUp(directory)
      return try CLIRunner.run(arguments, in: directory, timeout: timeout)
    }
  }

  /// Bad input: exit status 1–127 by itself (no trap, no hang), one line on standard error without
  /// the usage text or Foundation's jargon, containing every fragment.
  func expectRefusal(
    _ outcome: CLIRunner.Outcome, _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(outcome.failedCleanly, "\(outcome)", sourceLocation: sourceLocation)
    #expect(outcome.stderrLines.count == 1, "\(outcome)", sourceLocation: sourceLocation)
    for fragment in fragments {
      #expect(outcome.stderr.contains(fragment), "missing '\(fragment)' in: \(outcome)", sourceLocation: sourceLocation)
    }
    for jargon in ["Usage:", "NSCocoaErrorDomain", "Error Domain", "could not be completed", "The file doesn"] {
      #expect(!outcome.stderr.contains(jargon), "\(outcome)", sourceLocation: sourceLocation)
    }
  }

  @Test("a tile renders to a PNG file and the command exits 0")
  func renderSucceeds() throws {
    try CLIRunner.withTemporaryDirectory { directory in
      let outcome = try CLIRunner.run(["render", "--text", "hi", "-o", "tile.png"], in: directory)
      #expect(outcome.status == 0 && !outcome.signalled, "\(outcome)")
      let data = try Data(contentsOf: directory.appendingPathComponent("tile.png"))
      #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }
  }

  // MARK: Output formats and paths

  @Test("-o writes the format its extension names", arguments: ["t.png", "t.jpg", "t.JPEG"])
  func outputFormatFollowsExtension(name: String) throws {
    try CLIRunner.withTemporaryDirectory { directory in
      let outcome = try CLIRunner.run(["render", "--text", "hi", "-o", name], in: directory)
      #expect(outcome.status == 0 && !outcome.signalled, "\(outcome)")
      let data = try Data(contentsOf: directory.appendingPathComponent(name))
      let magic: [UInt8] = name.lowercased().hasSuffix(".png") ? [0x89, 0x50, 0x4E, 0x47] : [0xFF, 0xD8, 0xFF]
      #expect(data.starts(with: magic), "\(name) starts with \(Array(data.prefix(4)))")
    }
  }

  @Test(
    "an unsupported output extension is refused with the supported ones",
    arguments: [
      (["render", "--text", "hi", "-o", "t.gif"], ".gif"), (["render", "--text", "hi", "-o", "tile"], "'tile'"),
      (["throughput", "--chart", "c.webp"], ".webp"), (["techniques", "--chart", "c.svg"], ".svg"),
      (["scroll", "--chart", "c.pdf"], ".pdf"),
    ])
  func unsupportedExtension(arguments: [String], named: String) throws {
    let outcome = try run(arguments)
    expectRefusal(outcome, [named, ".png, .jpg or .jpeg"])
    #expect(outcome.stdout.isEmpty)
  }

  @Test("report output must be .pdf, .svg or .png")
  func reportExtension() throws {
    let spec = #"{"title": "t", "content": [{"paragraph": "x"}]}"#
    let outcome = try run(["report", "--spec", "spec.json", "-o", "r.jpg"]) { directory in
      try Data(spec.utf8).write(to: directory.appendingPathComponent("spec.json"))
    }
    expectRefusal(outcome, ["'r.jpg'", ".pdf, .svg or .png"])
  }

  @Test("a JPEG needs an opaque background")
  func jpegNeedsOpaqueBackground() throws {
    for background in ["transparent", "#ffffff80"] {
      let outcome = try run(["render", "--text", "hi", "--bg", background, "-o", "t.jpg"])
      expectRefusal(outcome, ["JPEG has no transparency", background])
    }
  }

  @Test(
    "an unwritable output path fails before the run, not after it",
    arguments: [
      // Runs that would take minutes if they started.
      (["throughput", "--sweep", "--repeat", "100", "--tiles", "100000", "--json", "missing/t.json"], "--json"),
      (["throughput", "--sweep", "--repeat", "100", "--tiles", "100000", "--chart", "missing/t.png"], "--chart"),
      (["techniques", "--tiles", "500", "--json", "missing/t.json"], "--json"),
      (["scroll", "--rows", "10000", "--chart", "missing/s.png"], "--chart"),
      (["render", "--text", "hi", "-o", "missing/t.png"], "-o"),
      (["report", "--spec", "none.json", "-o", "missing/r.pdf"], "-o"),
    ])
  func unwritableBeforeRun(arguments: [String], option: String) throws {
    let outcome = try run(arguments, timeout: 60)
    expectRefusal(outcome, ["\(option): cannot write missing/", "no such directory missing"])
    #expect(outcome.stdout.isEmpty)
  }

  @Test("an output path under a file, or naming a directory, is refused")
  func outputUnderFile() throws {
    let file: (URL) throws -> Void = { try Data().write(to: $0.appendingPathComponent("afile")) }
    expectRefusal(
      try run(["render", "--text", "hi", "-o", "afile/t.png"], setUp: file), ["afile is not a directory"])
    expectRefusal(try run(["samples", "--out-dir", "afile"], setUp: file), ["afile is not a directory"])
    expectRefusal(
      try run(["render", "--file", "afile", "--out-dir", "afile/tiles"], setUp: file), ["afile is not a directory"])
    let directory: (URL) throws -> Void = {
      try FileManager.default.createDirectory(at: $0.appendingPathComponent("d.png"), withIntermediateDirectories: true)
    }
    expectRefusal(try run(["render", "--text", "hi", "-o", "d.png"], setUp: directory), ["d.png: it is a directory"])
  }

  @Test("a directory without write permission: a plain 'permission denied'")
  func permissionDenied() throws {
    // Root writes through permission bits, so as root the test uses /sys, where even root cannot
    // create files (nothing is written there: the attempt fails).
    let root = geteuid() == 0
    let target = root ? "/sys/layerbench-test.png" : "locked/t.png"
    let outcome = try run(["render", "--text", "hi", "-o", target]) { directory in
      guard !root else { return }
      let locked = directory.appendingPathComponent("locked")
      try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
      try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
    }
    expectRefusal(outcome, ["-o: cannot write \(target): "])
    #expect(
      outcome.stderr.contains("permission denied") || outcome.stderr.contains("read-only file system"), "\(outcome)")
  }

  @Test("unreadable inputs: plain messages, exit 1")
  func unreadableInputs() throws {
    let makeDirectory: (URL) throws -> Void = {
      try FileManager.default.createDirectory(at: $0.appendingPathComponent("dir"), withIntermediateDirectories: true)
    }
    expectRefusal(try run(["render", "--file", "none.txt"]), ["cannot read none.txt: no such file"])
    expectRefusal(try run(["render", "--file", "dir"], setUp: makeDirectory), ["cannot read dir: it is a directory"])
    expectRefusal(
      try run(["report", "--spec", "none.json", "-o", "r.pdf"]), ["error: cannot read none.json: no such file"])
    expectRefusal(
      try run(["report", "--spec", "dir", "-o", "r.pdf"], setUp: makeDirectory), ["cannot read dir: it is a directory"])
  }
}
