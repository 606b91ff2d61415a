import AsyncLayer
import Foundation
import Testing

/// What a hostile user tried on the CLI (issue 32's table), each run as a process with a time and
/// a memory bound so that none of it comes back: a run that hangs is killed at its bound and fails
/// the test, and the peak is the child's own resident memory. After every run, each manifest
/// record that names a PNG names one whose size and SHA-256 are the record's.
@Suite("Hostile input to the CLI: bounded time, bounded memory, true manifests")
struct HostileInputTests {
  /// Peak memory any of these runs may take (a batch's fixed part is about 40 MB). Under Thread
  /// Sanitizer (`make test-tsan` builds layerbench with it too) every process carries shadow memory
  /// several times its own size, so the bound is wider there.
  static let memoryBound = dlsym(nil, "__tsan_acquire") != nil ? 600.0 : 200.0

  private func write(_ text: String, _ name: String, in dir: URL) throws {
    try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
  }

  /// Writes a script through a close-on-exec descriptor. Other tests spawn programs from other
  /// threads at the same time; a plain write's descriptor can be inherited by such a child, and while
  /// any process holds the script open for writing, running it fails with "text file busy" (ETXTBSY).
  private func writeExecutable(_ text: String, _ name: String, in dir: URL) throws {
    let path = dir.appendingPathComponent(name).path
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
    guard fd >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    guard written == bytes.count else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
  }

  private func expectBounded(
    _ run: CLI.Measured, seconds: Double, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(!run.outcome.timedOut, "\(run)", sourceLocation: sourceLocation)
    #expect(run.seconds < seconds, "\(run)", sourceLocation: sourceLocation)
    #expect(run.peakMegabytes < Self.memoryBound, "\(run)", sourceLocation: sourceLocation)
  }

  @Test("a second batch on a folder in use is refused at once, naming the first; shards share a folder")
  func oneWriterPerFolder() throws {
    try CLI.withTemporaryDirectory { dir in
      try write(CLI.jsonl(40), "in.jsonl", in: dir)
      // The first run takes the lock, then opens its input, a FIFO: it waits there, holding the
      // lock, until this test opens the FIFO's other end (no sleeping: the open is the gate).
      let fifo = dir.appendingPathComponent("in.fifo")
      #expect(mkfifo(fifo.path, 0o600) == 0)
      let first = try CLI.start(["batch", "--input", "in.fifo", "--out-dir", "out", "--workers", "1"], in: dir)
      let writer = open(fifo.path, O_WRONLY)
      #expect(writer >= 0)

      let second = try CLI.measure(["batch", "--input", "in.jsonl", "--out-dir", "out"], in: dir, timeout: 30)
      expectBounded(second, seconds: 10)
      #expect(second.status == 2, "\(second)")
      #expect(second.stderr.contains("out is in use by another run (pid \(first.pid): "), "\(second)")
      #expect(second.stderr.contains("batch --input in.fifo"), "\(second)")
      let render = try CLI.measure(["render", "--file", "in.jsonl", "--out-dir", "out"], in: dir, timeout: 30)
      #expect(render.outcome.failedCleanly && render.stderr.contains("pid \(first.pid)"), "\(render)")
      let merge = try CLI.measure(["batch", "merge", "out"], in: dir, timeout: 30)
      #expect(merge.status == 2 && merge.stderr.contains("pid \(first.pid)"), "\(merge)")

      let lines = Data(CLI.jsonl(40, prefix: "f").utf8)
      _ = lines.withUnsafeBytes { Glibc.write(writer, $0.baseAddress, $0.count) }
      close(writer)
      let finished = try first.wait(timeout: 60)
      expectBounded(finished, seconds: 60)
      #expect(finished.status == 0, "\(finished)")
      let out = dir.appendingPathComponent("out/manifest.jsonl")
      #expect(try CLI.manifest(out).count == 40)
      #expect(try CLI.expectRecordsTrue(out) == 40)

      // Shards of one run write side by side; the same shard twice is refused.
      let shardFIFO = dir.appendingPathComponent("shard.fifo")
      #expect(mkfifo(shardFIFO.path, 0o600) == 0)
      let shard0 = try CLI.start(
        ["batch", "--input", "shard.fifo", "--out-dir", "sharded", "--shard", "0/2", "--workers", "1"], in: dir)
      let shardWriter = open(shardFIFO.path, O_WRONLY)
      let shard1 = try CLI.measure(
        ["batch", "--input", "in.jsonl", "--out-dir", "sharded", "--shard", "1/2"], in: dir, timeout: 60)
      #expect(shard1.status == 0, "\(shard1)")
      let again = try CLI.measure(
        ["batch", "--input", "in.jsonl", "--out-dir", "sharded", "--shard", "0/2"], in: dir, timeout: 30)
      expectBounded(again, seconds: 10)
      #expect(
        again.status == 2 && again.stderr.contains("shard 0/2 of sharded is already being written (pid \(shard0.pid)"),
        "\(again)")
      let whole = try CLI.measure(["batch", "--input", "in.jsonl", "--out-dir", "sharded"], in: dir, timeout: 30)
      #expect(whole.status == 2 && whole.stderr.contains("pid \(shard0.pid)"), "\(whole)")
      let text = Data(CLI.jsonl(40).utf8)
      _ = text.withUnsafeBytes { Glibc.write(shardWriter, $0.baseAddress, $0.count) }
      close(shardWriter)
      #expect(try shard0.wait(timeout: 60).status == 0)
      let merged = try CLI.measure(["batch", "merge", "sharded"], in: dir, timeout: 60)
      #expect(merged.status == 0, "\(merged)")
      #expect(try CLI.expectRecordsTrue(dir.appendingPathComponent("sharded/manifest.jsonl")) == 40)

      // The holder gone (the lock dies with it), the folder is free again.
      let resumed = try CLI.measure(["batch", "--input", "in.jsonl", "--out-dir", "out"], in: dir, timeout: 60)
      #expect(resumed.status == 0, "\(resumed)")
      #expect(try CLI.expectRecordsTrue(out) == 40)
    }
  }

  @Test("a repeated id fails its line, naming the first; duplicate keys are refused; resume and shards agree")
  func duplicateIDs() throws {
    try CLI.withTemporaryDirectory { dir in
      let input = """
        {"id": "a", "text": "first a"}
        {"id": "b", "text": "b"}
        {"id": "a", "text": "second a, must not overwrite the first"}
        {"id": "c", "text": "c", "text": "twice"}
        {"id": "\\u0061", "text": "a again, escaped"}
        {"id": 7, "text": "seven"}
        {"id": 7.0, "text": "seven again"}

        """
      try write(input, "in.jsonl", in: dir)
      let out = dir.appendingPathComponent("out/manifest.jsonl")
      for attempt in 0..<2 {  // a fresh run, then a resume of it
        let run = try CLI.measure(["batch", "--input", "in.jsonl", "--out-dir", "out"], in: dir, timeout: 60)
        expectBounded(run, seconds: 30)
        #expect(run.status == 1, "attempt \(attempt): \(run)")
        let records = try CLI.manifest(out)
        let errors = records.map { $0["error"] as? String }
        #expect(errors[2] == "duplicate id, first at line 1", "\(records)")
        #expect(errors[3] == "duplicate key 'text' (each field once per line)", "\(records)")
        #expect(errors[4] == "duplicate id, first at line 1", "\(records)")
        #expect(errors[6] == "duplicate id, first at line 6", "\(records)")
        #expect(errors[0] == nil && errors[1] == nil && errors[5] == nil)
        #expect(try CLI.expectRecordsTrue(out) == 3)
      }
      // Across shards: line 3 is shard 0's, line 1 shard 0's too, line 2 and 4 shard 1's; every
      // shard reads every id, so line 5 (shard 0) knows line 1's "a" and line 7 knows line 6's 7.
      for index in 0..<2 {
        let run = try CLI.measure(
          ["batch", "--input", "in.jsonl", "--out-dir", "sharded", "--shard", "\(index)/2"], in: dir, timeout: 60)
        #expect(run.status == 1, "\(run)")
      }
      let merge = try CLI.measure(["batch", "merge", "sharded"], in: dir, timeout: 60)
      #expect(merge.status == 1, "\(merge)")
      #expect(try CLI.expectRecordsTrue(dir.appendingPathComponent("sharded/manifest.jsonl")) == 3)
    }
  }

  @Test("/dev/urandom and /dev/zero as input end in seconds with a clear error, in bounded memory")
  func endlessInputs() throws {
    try CLI.withTemporaryDirectory { dir in
      let random = try CLI.measure(["batch", "--input", "/dev/urandom", "--out-dir", "r"], in: dir, timeout: 60)
      expectBounded(random, seconds: 30)
      #expect(random.status == 1, "\(random)")
      #expect(random.stderr.contains("stopped: 1000 or more failures"), "\(random)")
      let records = try CLI.manifest(dir.appendingPathComponent("r/manifest.jsonl"))
      #expect((1000..<1200).contains(records.count), "\(records.count) records")
      try CLI.expectRecordsTrue(dir.appendingPathComponent("r/manifest.jsonl"))

      for arguments in [
        ["batch", "--input", "/dev/zero", "--out-dir", "z"], ["batch", "--file", "/dev/zero", "--out-dir", "z"],
        ["render", "--file", "/dev/zero", "--out-dir", "z"],
      ] {
        let zero = try CLI.measure(arguments, in: dir, timeout: 60)
        expectBounded(zero, seconds: 20)
        #expect(zero.outcome.failedCleanly, "\(arguments): \(zero)")
        #expect(zero.stderr.contains("/dev/zero: line 1 has no end after"), "\(arguments): \(zero)")
        #expect(zero.stderr.contains("this is not a file of text lines"), "\(arguments): \(zero)")
        try CLI.expectRecordsTrue(dir.appendingPathComponent("z/manifest.jsonl"))
      }
      let plainRandom = try CLI.measure(["batch", "--file", "/dev/urandom", "--out-dir", "p"], in: dir, timeout: 60)
      expectBounded(plainRandom, seconds: 30)
      #expect(plainRandom.status == 1 && plainRandom.stderr.contains("stopped"), "\(plainRandom)")
    }
  }

  @Test("--max-failures stops a run with a non-zero exit; the records it wrote stay true")
  func maxFailures() throws {
    try CLI.withTemporaryDirectory { dir in
      var lines: [String] = []
      for index in 0..<60 {
        lines.append(index % 2 == 0 ? #"{"id": "g\#(index)", "text": "good"}"# : "not json \(index)")
      }
      try write(lines.joined(separator: "\n") + "\n", "in.jsonl", in: dir)
      let run = try CLI.measure(
        ["batch", "--input", "in.jsonl", "--out-dir", "out", "--max-failures", "5", "--workers", "1"], in: dir,
        timeout: 60)
      expectBounded(run, seconds: 30)
      #expect(run.status == 1, "\(run)")
      #expect(run.stderr.contains("stopped at 5 failures (--max-failures)"), "\(run)")
      let out = dir.appendingPathComponent("out/manifest.jsonl")
      let records = try CLI.manifest(out)
      #expect(records.filter { $0["error"] != nil }.count >= 5 && records.count < 60, "\(records.count)")
      try CLI.expectRecordsTrue(out)
      let refused = try CLI.measure(["batch", "--input", "in.jsonl", "--max-failures", "0"], in: dir, timeout: 30)
      #expect(refused.outcome.failedCleanly && refused.stderr.contains("--max-failures"), "\(refused)")
    }
  }

  @Test("a sweep past an hour prints its run count and estimate and wants --yes")
  func longSweep() throws {
    try CLI.withTemporaryDirectory { dir in
      let prefetch = (0..<50).map { "\($0 * 10)" }.joined(separator: ",")
      let run = try CLI.measure(
        ["scroll", "--sweep", "--modes", "async", "--sweep-prefetch", prefetch, "--repeats", "20"], in: dir, timeout: 60
      )
      expectBounded(run, seconds: 20)
      #expect(run.outcome.failedCleanly, "\(run)")
      #expect(run.stderr.contains("scroll sweep: 24,000 runs, estimated"), "\(run)")
      #expect(run.stderr.contains("past an hour: add --yes"), "\(run)")
      let throughput = try CLI.measure(
        ["throughput", "--sweep", "--tiles", "100000", "--max-workers", "8", "--repeat", "100"], in: dir, timeout: 60)
      expectBounded(throughput, seconds: 20)
      #expect(
        throughput.outcome.failedCleanly && throughput.stderr.contains("past an hour: add --yes"), "\(throughput)")
    }
  }

  @Test("a reference program that hangs is killed at --c-reference-timeout; binary output is escaped")
  func hangingReference() throws {
    try CLI.withTemporaryDirectory { dir in
      // The shell waits for a child of its own: the timeout must kill the whole group.
      try writeExecutable("#!/bin/sh\nprintf 'started\\n'\nsleep 60\n", "hang.sh", in: dir)
      try writeExecutable("#!/bin/sh\nprintf '\\000\\001\\033[2Jgarbage\\377' >&2\nexit 3\n", "binary.sh", in: dir)
      let sweep = ["throughput", "--sweep", "--tiles", "1", "--max-workers", "1", "--repeat", "1"]
      let hang = try CLI.measure(
        sweep + ["--c-reference", "./hang.sh", "--c-reference-timeout", "0.5"], in: dir, timeout: 60)
      expectBounded(hang, seconds: 30)
      #expect(hang.outcome.failedCleanly, "\(hang)")
      #expect(hang.stderr.contains("did not finish in 0.5 s (--c-reference-timeout)"), "\(hang)")
      #expect(hang.stderr.contains(#""started\n""#), "\(hang)")
      let binary = try CLI.measure(sweep + ["--c-reference", "./binary.sh"], in: dir, timeout: 60)
      expectBounded(binary, seconds: 30)
      #expect(binary.outcome.failedCleanly, "\(binary)")
      #expect(binary.stderr.contains(#"exited with status 3; its output: "\x00\x01\x1b[2Jgarbage\xff""#), "\(binary)")
      #expect(!binary.stderr.utf8.contains(0x1b) && !binary.stderr.utf8.contains(0), "raw bytes echoed: \(binary)")
    }
  }

  @Test("batch merge on a missing folder or a file says so")
  func mergeMessages() throws {
    try CLI.withTemporaryDirectory { dir in
      let missing = try CLI.measure(["batch", "merge", "nope"], in: dir, timeout: 30)
      #expect(missing.status == 2 && missing.stderr == "error: nope: cannot merge: no such folder\n", "\(missing)")
      try write("x", "file", in: dir)
      let file = try CLI.measure(["batch", "merge", "file"], in: dir, timeout: 30)
      #expect(file.status == 2 && file.stderr == "error: file: cannot merge: not a folder\n", "\(file)")
    }
  }
}
