import Foundation
import Testing

@testable import layerbench

/// The writer thread woken in hand-off batches (`BatchEngine.writerWakeBatch(window:)`): the
/// workers never wait for a window slot that only a sleeping writer's queued tiles could free.
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
