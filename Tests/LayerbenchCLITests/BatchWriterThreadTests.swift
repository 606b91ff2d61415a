import Foundation
import Testing

@testable import layerbench

/// The writer thread woken in hand-off batches (`BatchEngine.writerWakeBatch(window:)`): the
/// workers never wait for a window slot that only a sleeping writer's queued tiles could free. It
/// prepares lines ahead of the workers (`BatchEngine.prepareLines`), so that they only draw, and no
/// window, worker count or line mix makes a run hang or differ from one without it.
@Suite("batch writer thread")
struct BatchWriterThreadTests {
  @Test(
    "a tile queued below a hand-off batch, then failed lines filling the window: the writer is woken, the run ends like one without a writer thread"
  )
  func queuedTileBehindFailures() throws {
    try CLI.withTemporaryDirectory { dir in
      // --window 8 wakes the writer every 2 tiles. Line 1 is queued alone (the writer sleeps); lines
      // 2-10 fail on the worker and wait for line 1's commit, so their slots fill the window: the
      // worker must wake the writer for the one queued tile before it waits for a slot.
      let lines = CLI.jsonl(1, prefix: "a") + String(repeating: "not json\n", count: 9) + CLI.jsonl(10, prefix: "b")
      try lines.write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let common = ["batch", "--input", "in.jsonl", "--workers", "1", "--window", "8"]
      let off = try CLI.run(common + ["--out-dir", "off", "--write-thread", "off"], in: dir, timeout: 60)
      let on = try CLI.run(common + ["--out-dir", "on", "--write-thread", "on"], in: dir, timeout: 60)
      #expect(off.status == 1 && on.status == 1, "\(off)\n\(on)")
      #expect(on.stderr.contains("(11 rendered"), "\(on)")
      let expected = try CLI.manifest(dir.appendingPathComponent("off/manifest.jsonl"))
      let written = try CLI.manifest(dir.appendingPathComponent("on/manifest.jsonl"))
      #expect(expected.count == 20)
      #expect(CLI.essentials(written) == CLI.essentials(expected))
    }
  }

  @Test(
    "the writer thread prepares the lines and writes the tiles, the worker only draws; the manifest is the one without a writer thread"
  )
  func writerPreparesAhead() throws {
    try CLI.withTemporaryDirectory { dir in
      // Good lines, lines that fail while prepared (bad JSON, a repeated id) and blank lines, which
      // are no line of the run.
      var lines = CLI.jsonl(240)
      lines += "not json\n\n" + #"{"id": "t7", "text": "again"}"# + "\n   \n" + CLI.jsonl(60, prefix: "u")
      try lines.write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let common = ["batch", "--input", "in.jsonl", "--workers", "1", "--hand-off-counts", "--progress-interval", "0"]
      let off = try CLI.run(common + ["--out-dir", "off", "--write-thread", "off"], in: dir, timeout: 120)
      let on = try CLI.run(common + ["--out-dir", "on", "--write-thread", "on"], in: dir, timeout: 120)
      #expect(off.status == 1 && on.status == 1, "\(off)\n\(on)")
      let expected = try CLI.manifest(dir.appendingPathComponent("off/manifest.jsonl"))
      #expect(expected.count == 302)
      #expect(
        CLI.essentials(try CLI.manifest(dir.appendingPathComponent("on/manifest.jsonl"))) == CLI.essentials(expected))

      let withoutWriter = try #require(Self.handOffs(off.stderr), "\(off)")
      #expect(withoutWriter == [0, 0, 302, 300])
      // [prepared and written by the writer, prepared and written by the workers]. The writer
      // starts before the worker and prepares while the worker's first tile loads its fonts.
      let withWriter = try #require(Self.handOffs(on.stderr), "\(on)")
      #expect(withWriter[0] + withWriter[2] == 302 && withWriter[1] + withWriter[3] == 300, "\(on)")
      #expect(withWriter[0] > 0 && withWriter[1] > 0, "\(on)")
    }
  }

  @Test(
    "windows of 1-3 slots, 1 and 3 workers, with the writer thread preparing lines: every run ends, with the same manifest"
  )
  func smallWindows() throws {
    try CLI.withTemporaryDirectory { dir in
      let lines = CLI.jsonl(30) + "not json\n" + CLI.jsonl(20, prefix: "b") + #"{"id": "b3", "text": "again"}"# + "\n"
      try lines.write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let common = ["batch", "--input", "in.jsonl", "--hand-off-counts", "--progress-interval", "0"]
      let off = try CLI.run(
        common + ["--out-dir", "off", "--workers", "1", "--write-thread", "off"], in: dir, timeout: 60)
      #expect(off.status == 1, "\(off)")
      let expected = CLI.essentials(try CLI.manifest(dir.appendingPathComponent("off/manifest.jsonl")))
      #expect(expected.count == 52)
      for (workers, window) in [(1, 1), (1, 2), (1, 3), (3, 1), (3, 3)] {
        let out = "w\(workers)-\(window)"
        // A hang here (a worker waiting for a slot that a prepared line holds) is killed by the timeout.
        let run = try CLI.run(
          common + ["--out-dir", out, "--workers", "\(workers)", "--window", "\(window)", "--write-thread", "on"],
          in: dir, timeout: 60)
        #expect(run.status == 1 && !run.signalled, "\(workers) workers, window \(window): \(run)")
        #expect(CLI.essentials(try CLI.manifest(dir.appendingPathComponent("\(out)/manifest.jsonl"))) == expected)
        let counts = try #require(Self.handOffs(run.stderr), "\(run)")
        #expect(
          counts[0] + counts[2] == 52 && counts[1] + counts[3] == 50, "\(workers) workers, window \(window): \(run)")
      }
    }
  }

  @Test(
    "lines kept ready: two wake batches, at most half the window, at least 1; the workers wake the writer at half that")
  func readyTarget() {
    #expect(BatchEngine.readyTarget(window: 1) == 1)
    #expect(BatchEngine.readyTarget(window: 2) == 1)
    #expect(BatchEngine.readyTarget(window: 8) == 4)
    #expect(BatchEngine.readyTarget(window: 32) == 16)
    #expect(BatchEngine.readyTarget(window: 65536) == 16)
    #expect(BatchEngine.readyLowWater(window: 1) == 0)
    #expect(BatchEngine.readyLowWater(window: 32) == 8)
  }

  /// The four figures of the `--hand-off-counts` line, in its order: lines prepared and tiles written
  /// by the writer thread, then by the workers.
  private static func handOffs(_ stderr: String) -> [Int]? {
    guard let line = stderr.split(separator: "\n").first(where: { $0.hasPrefix("hand-offs:") }) else { return nil }
    let figures = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
    return figures.count == 4 ? figures : nil
  }

  @Test(
    "the default window: 4 a worker, at least 32; the wake batch is a quarter of it, 1-8; the backlog three quarters")
  func defaultWindowAndWakeBatch() {
    #expect(BatchConfiguration.defaultWindow(workers: 1) == 32)
    #expect(BatchConfiguration.defaultWindow(workers: 8) == 32)
    #expect(BatchConfiguration.defaultWindow(workers: 16) == 64)
    #expect(BatchEngine.writerWakeBatch(window: 1) == 1)
    #expect(BatchEngine.writerWakeBatch(window: 8) == 2)
    #expect(BatchEngine.writerWakeBatch(window: 32) == 8)
    #expect(BatchEngine.writerWakeBatch(window: 65536) == 8)
    // A worker writes its own tile once the writer is three quarters of the window behind.
    #expect(BatchEngine.writerBacklog(window: 1) == 2)
    #expect(BatchEngine.writerBacklog(window: 8) == 6)
    #expect(BatchEngine.writerBacklog(window: 32) == 24)
  }
}
