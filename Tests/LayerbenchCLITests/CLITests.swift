import Foundation
import Testing

/// `layerbench` as a user runs it: the built executable in a temporary directory, its exit status
/// and what it prints on standard error.
@Suite(
  "layerbench command line", .serialized,
  .enabled(if: CLI.executable != nil, "layerbench is not built next to the test bundle; run `swift build`"))
struct CLITests {
  /// Runs `arguments` in a fresh temporary directory.
  func run(_ arguments: [String], timeout: Double = 120, setUp: (URL) throws -> Void = { _ in }) throws
    -> CLI.Outcome
  {
    try CLI.withTemporaryDirectory { directory in
      try setUp(directory)
      return try CLI.run(arguments, in: directory, timeout: timeout)
    }
  }

  /// Runs `arguments` in a fresh temporary directory, expects a clean exit 0, and hands the directory
  /// (removed afterwards) and the outcome to `check`.
  func expectSuccess(
    _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation,
    check: (URL, CLI.Outcome) throws -> Void
  ) throws {
    try CLI.withTemporaryDirectory { directory in
      let outcome = try CLI.run(arguments, in: directory)
      #expect(outcome.status == 0 && !outcome.signalled, "\(outcome)", sourceLocation: sourceLocation)
      try check(directory, outcome)
    }
  }

  /// Bad input: exit status 1–127 by itself (no trap, no hang), one line on standard error without
  /// the usage text or Foundation's jargon, containing every fragment.
  func expectRefusal(
    _ outcome: CLI.Outcome, _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation
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
    try expectSuccess(["render", "--text", "hi", "-o", "tile.png"]) { directory, _ in
      let data = try Data(contentsOf: directory.appendingPathComponent("tile.png"))
      #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }
  }

  // MARK: Output formats and paths

  @Test("-o writes the format its extension names", arguments: ["t.png", "t.jpg", "t.JPEG"])
  func outputFormatFollowsExtension(name: String) throws {
    try expectSuccess(["render", "--text", "hi", "-o", name]) { directory, _ in
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

  // MARK: Bounds of numeric options

  @Test(
    "every numeric option out of range, NaN or infinite: one line naming it and its range",
    arguments: [
      (["throughput", "--workers", "100000", "--tiles", "1"], "--workers must be from 1 to 64 (got 100000)"),
      (["throughput", "--workers", "0"], "--workers must be from 1 to 64"),
      (["throughput", "--tiles", "0"], "--tiles must be from 1 to 100000 (got 0)"),
      (["throughput", "--tiles", "100001"], "--tiles must be from 1 to 100000"),
      (["throughput", "--sweep", "--max-workers", "65"], "--max-workers must be from 1 to 64 (got 65)"),
      (["throughput", "--sweep", "--repeat", "0"], "--repeat must be from 1 to 100 (got 0)"),
      (["throughput", "--sweep", "--repeat", "101"], "--repeat must be from 1 to 100"),
      (["throughput", "--workload", "mixed", "--mixed-tiles", "501"], "--mixed-tiles must be from 1 to 500"),
      (["throughput", "--text", " "], "--text is empty or only spaces"),
      (["techniques", "--tiles", "1"], "--tiles must be from 2 to 500 (got 1)"),
      (["techniques", "--tiles", "100000"], "--tiles must be from 2 to 500"),
      (["scroll", "--rows", "19"], "--rows must be from 20 to 10000 (got 19)"),
      (["scroll", "--rows", "1000000000"], "--rows must be from 20 to 10000"),
      (["scroll", "--images", "0"], "--images must be from 1 to 1000 (got 0)"),
      (["scroll", "--images", "5000"], "--images must be from 1 to 1000"),
      (["scroll", "--scale", "nan"], "--scale must be a number from 0.1 to 4 pixels per point (got nan)"),
      (["scroll", "--prefetch", "inf"], "--prefetch must be a number from 0 to 10000 points (got inf)"),
      (["scroll", "--background-load", "65"], "--background-load must be from 0 to 64 threads"),
      (["scroll", "--speed", "nan"], "--speed must be a number from 0.1 to 10 times (got nan)"),
      (["scroll", "--body-length", "1e300"], "--body-length must be a number from 0.1 to 10"),
      (["scroll", "--display-ahead", "inf"], "--display-ahead must be a number from 0 to 20 screens"),
      (["scroll", "--repeats", "5"], "--repeats applies to --sweep only (got 5 without it)"),
      (["scroll", "--sweep", "--sweep-speeds", "1,,2"], "--sweep-speeds: '' is not a number"),
      (["scroll", "--sweep", "--repeats", "0"], "--repeats must be from 1 to 100 (got 0)"),
      (["storm", "--layers", "0"], "--layers must be from 1 to 500 (got 0)"),
      (["storm", "--keys-per-second", "nan"], "--keys-per-second must be a number from 1 to 60"),
      (["storm", "--lengths", "2,inf"], "--lengths must be a number from 0.1 to 30 seconds (got inf)"),
      (["storm", "--lengths", "soon"], "--lengths: 'soon' is not a number of seconds"),
      (["storm", "--scenarios", "rain"], "--scenarios: unknown scenario 'rain'; choose from resize, typing"),
      (["storm", "--modes", "async-priority"], "--modes: unknown mode 'async-priority'; choose from sync"),
      (["report", "--spec", "s.json", "-o", "r.pdf", "--scale", "nan"], "--scale must be a number from 0.1 to 16"),
      (["report", "--spec", "s.json", "-o", "r.png", "--scale", "1e-9"], "--scale must be a number from 0.1 to 16"),
      (["render", "--text", "hi", "--line-spacing", "nan"], "--line-spacing must be a number from -7 (minus half"),
      (["render", "--text", "hi", "--line-spacing", "inf"], "--line-spacing must be a number from -7"),
      (["render", "--text", "a b c", "--width", "20", "--line-spacing=-100"], "--line-spacing must be a number"),
      (["render", "--text", "hi", "--line-spacing", "1e300"], "(got 1e+300)"),
      (
        ["render", "--text", "hi", "--max-lines", "99999999999", "--ellipsize", "end"],
        "--max-lines must be from 0 to 10000"
      ),
      (["render", "--text", "hi", "--max-lines", "-1"], "--max-lines must be from 0 to 10000 (got -1)"),
      (
        ["render", "--text", "hi", "--width", "nan"],
        "--width must be a number above 0 and at most 10000 points (got nan)"
      ),
      (["render", "--text", "hi", "--width", "-inf"], "--width must be a number above 0 and at most 10000 points"),
      (["render", "--text", "hi", "--width", "1e300"], "--width must be a number above 0"),
      (["render", "--text", "hi", "--height", "nan"], "--height must be a number above 0 and at most 10000 points"),
      (["render", "--text", "hi", "--height", "0"], "--height must be a number above 0"),
      (["render", "--text", "hi", "--scale", "1e-9"], "--scale must be a number from 0.1 to 16 pixels per point"),
      (["render", "--text", "hi", "--scale", "nan"], "--scale must be a number from 0.1 to 16"),
      (["render", "--text", "hi", "--width", "10000", "--scale", "16"], "a tile side must be 1 to 32767 pixels"),
      (["render", "--text", "hi", "--padding", "nan"], "--padding must be a number from 0 to 1000 points (got nan)"),
      (
        ["render", "--text", "hi", "--width", "20", "--padding", "10"],
        "--padding 10 leaves no room for text in --width 20"
      ),
      (["render", "--text", "hi", "--font", "Sans 0"], "--font 'Sans 0': the size must be above 0"),
      (["render", "--text", "hi", "--font", "Sans 5000"], "at most 4096 pixels at --scale 2"),
      (["render", "--text", "hi", "--fg", "nope"], "--fg: 'nope' is not a colour"),
      (["render", "--text", ""], "--text is empty or only spaces"),
      (["render", "--markup", ""], "--markup is empty or only spaces"),
      (["techniques", "--width", "nan"], "--width must be a number above 0"),
      (["throughput", "--line-spacing", "nan"], "--line-spacing must be a number"),
    ])
  func outOfRange(arguments: [String], message: String) throws {
    let outcome = try run(arguments, timeout: 60)
    expectRefusal(outcome, [message])
    #expect(outcome.status == 1, "\(outcome)")
    #expect(outcome.stdout.isEmpty, "\(outcome)")
  }

  @Test("the largest worker count runs, threads and all")
  func largestWorkerCount() throws {
    let outcome = try run(["throughput", "--workers", "64", "--tiles", "1"])
    #expect(outcome.status == 0 && !outcome.signalled, "\(outcome)")
    #expect(outcome.stdout.contains("64 tiles (single) on 64 worker(s)"), "\(outcome)")
  }

  // MARK: Negative numbers

  @Test(
    "a negative number parses in the space form and is then refused with the reason",
    arguments: [
      (
        ["render", "--text", "hi", "--width", "-5"],
        "--width must be a number above 0 and at most 10000 points (got -5)"
      ),
      (["render", "--text", "hi", "--height", "-5"], "--height must be a number above 0"),
      (
        ["render", "--text", "hi", "--scale", "-2"], "--scale must be a number from 0.1 to 16 pixels per point (got -2)"
      ),
      (["render", "--text", "hi", "--padding", "-1"], "--padding must be a number from 0 to 1000 points (got -1)"),
      (["throughput", "--tiles", "-3"], "--tiles must be from 1 to 100000 (got -3)"),
      (["scroll", "--prefetch", "-10"], "--prefetch must be a number from 0 to 10000 points (got -10)"),
    ])
  func negativeNumbers(arguments: [String], message: String) throws {
    expectRefusal(try run(arguments), [message])
  }

  @Test("a negative line spacing in range renders")
  func negativeLineSpacing() throws {
    try expectSuccess(["render", "--text", "a b c d e f", "--width", "40", "--line-spacing", "-2", "-o", "t.png"]) {
      directory, _ in
      #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("t.png").path))
    }
  }

  // MARK: render --file

  /// Writes `contents` to `name` in the directory.
  func file(_ name: String, _ contents: [UInt8]) -> (URL) throws -> Void {
    { try Data(contents).write(to: $0.appendingPathComponent(name)) }
  }

  @Test("render --file: a bad line names the file and its line number, counting blank lines; exit 1, no usage")
  func fileLineNumbers() throws {
    let text = Array("first\n\n<b>unclosed\n\r\nfifth\n".utf8)
    try CLI.withTemporaryDirectory { directory in
      try file("t.txt", text)(directory)
      let outcome = try CLI.run(
        ["render", "--file", "t.txt", "--file-is-markup", "--out-dir", "tiles"], in: directory)
      expectRefusal(outcome, ["error: t.txt:3: invalid markup"])
      #expect(outcome.status == 1)
      // Tiles are numbered by line: the good lines are 1 and 5.
      let written = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("tiles").path)
      #expect(written.sorted() == ["tile-0001.png", "tile-0005.png"])
    }
  }

  @Test("render --file: several bad lines, one line each and a count")
  func fileSeveralFailures() throws {
    let outcome = try run(
      ["render", "--file", "t.txt", "--file-is-markup", "--out-dir", "tiles"],
      setUp: file("t.txt", Array("<b>x\nok\n\n<i>y\n".utf8)))
    #expect(outcome.failedCleanly, "\(outcome)")
    let errors = outcome.stderrLines.filter { $0.hasPrefix("error:") }
    #expect(errors.count == 3, "\(outcome)")
    #expect(errors.first?.hasPrefix("error: t.txt:1: invalid markup") == true, "\(outcome)")
    #expect(errors.dropFirst().first?.hasPrefix("error: t.txt:4: invalid markup") == true, "\(outcome)")
    #expect(errors.last == "error: 2 of 3 tiles failed", "\(outcome)")
    #expect(!outcome.stderr.contains("Usage:"))
  }

  @Test("render --file: tiles in line order as they are written, named by line; no manifest or temporary files")
  func fileStreamsInOrder() throws {
    var lines: [String] = []
    for number in 1...40 { lines.append(number % 7 == 0 ? "  " : "line \(number) of the file") }
    // A byte-order mark before the first line and Windows line ends change nothing.
    let text = [0xEF, 0xBB, 0xBF] + Array(lines.joined(separator: "\r\n").utf8) + [0x0A]
    try CLI.withTemporaryDirectory { directory in
      try file("t.txt", text)(directory)
      let outcome = try CLI.run(["render", "--file", "t.txt", "--out-dir", "tiles"], in: directory)
      #expect(outcome.status == 0 && outcome.stderr.isEmpty, "\(outcome)")
      let expected = (1...40).filter { $0 % 7 != 0 }.map { String(format: "tile-%04d.png", $0) }
      let wrote = outcome.stdout.split(separator: "\n").map { line in
        line.split(separator: " ")[1].split(separator: "/").last.map(String.init) ?? ""
      }
      #expect(wrote == expected)
      #expect(outcome.stdout.hasPrefix("wrote tiles/tile-0001.png (750×"), "\(outcome)")
      let written = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("tiles").path)
      #expect(written.sorted() == expected)
    }
  }

  @Test(
    "render --file: an empty file, blank lines only or invalid UTF-8 is refused",
    arguments: [
      ([UInt8](), "t.txt is empty: there is nothing to render"),
      (Array("\n  \n\t\n".utf8), "t.txt has only blank lines (3): there is nothing to render"),
      (Array("ok\n".utf8) + [0xFF, 0xFE, 0x0A], "t.txt:2: not valid UTF-8"),
    ])
  func fileWithoutText(contents: [UInt8], message: String) throws {
    let outcome = try run(["render", "--file", "t.txt", "--out-dir", "tiles"], setUp: file("t.txt", contents))
    expectRefusal(outcome, [message])
    #expect(outcome.status == 1)
  }

  // MARK: scroll --modes

  @Test(
    "scroll --modes: empty, empty names, unknown or repeated modes are refused",
    arguments: [
      ("", "--modes is empty: give one or more of sync, async-nocancel, async, async-priority"),
      (" , ", "--modes is empty"),
      ("async,,sync", "has an empty name between commas"),
      ("async,", "has an empty name between commas"),
      ("fast", "unknown mode 'fast'; choose from sync, async-nocancel, async, async-priority"),
      ("async,async", "--modes names 'async' twice"),
    ])
  func scrollModes(modes: String, message: String) throws {
    let outcome = try run(["scroll", "--modes", modes])
    expectRefusal(outcome, [message])
    #expect(outcome.stdout.isEmpty)
  }

  // MARK: throughput outputs

  @Test("throughput without --sweep writes --json and --chart too")
  func throughputSingleRunOutputs() throws {
    try expectSuccess(["throughput", "--tiles", "1", "--workers", "2", "--json", "run.json", "--chart", "run.jpg"]) {
      directory, outcome in
      #expect(outcome.stdout.contains("wrote run.json") && outcome.stdout.contains("wrote run.jpg"), "\(outcome)")
      let json = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("run.json")))
      let object = try #require(json as? [String: Any])
      #expect(object["workers"] as? Int == 2)
      #expect(object["tilesPerWorker"] as? Int == 1)
      #expect((object["tilesPerSecond"] as? Double ?? 0) > 0)
      let chart = try Data(contentsOf: directory.appendingPathComponent("run.jpg"))
      #expect(chart.starts(with: [0xFF, 0xD8, 0xFF]))
    }
  }
}
