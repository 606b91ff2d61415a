import Foundation
import Testing

@Suite("layerbench batch, run as a process")
struct BatchCommandTests {
  @Test("JSON Lines: a PNG and a record per tile; bad lines become records with their error and line number")
  func mixedInput() throws {
    try CLI.withTemporaryDirectory { dir in
      let input = """
        {"id": "a1", "text": "Hello"}
        {"id": "a2", "markup": "<b>bold</b>", "fg": "#c00", "width": 200, "align": "center"}

        not json
        {"id": "m", "markup": "<b>unclosed"}
        {"id": 7, "text": "an integer id", "maxLines": 1, "ellipsize": "end", "height": 40}
        {"id": "w", "text": "x", "width": -1}
        {"id": "u", "text": "x", "colour": "red"}
        {"id": "n", "text": 5}
        {"id": "both", "text": "x", "markup": "y"}

        """
      try input.write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let run = try CLI.run(["batch", "--input", "in.jsonl", "--out-dir", "out", "--workers", "2"], in: dir)
      #expect(run.status == 1)
      #expect(run.stderr.contains("6 of 9 tiles failed"))
      let records = try CLI.manifest(dir.appendingPathComponent("out/manifest.jsonl"))
      #expect(records.map { $0["line"] as? Int } == [1, 2, 4, 5, 6, 7, 8, 9, 10])
      let good = records.filter { $0["error"] == nil }
      #expect(good.map { $0["id"] as? String } == ["a1", "a2", "7"])
      for record in good {
        let file = dir.appendingPathComponent("out").appendingPathComponent(try #require(record["file"] as? String))
        #expect(try CLI.sha256(of: file) == record["sha256"] as? String)
        #expect((record["width"] as? Int ?? 0) > 0 && (record["lines"] as? Int) == 1)
      }
      #expect(records[1]["width"] as? Int == 400)
      #expect(records[4]["height"] as? Int == 80)
      let errors = records.compactMap { $0["error"] as? String }
      #expect(errors[0].hasPrefix("bad JSON"))
      #expect(errors[1].hasPrefix("invalid markup"))
      #expect(errors[2].hasPrefix("width must be"))
      #expect(errors[3] == "unknown field 'colour'")
      #expect(errors[4] == "'text' and 'markup' must be strings")
      #expect(errors[5].contains("not both"))
    }
  }

  @Test("JSON escapes, surrogate pairs, exponents and nested values read as JSONSerialization reads them")
  func jsonDetails() throws {
    try CLI.withTemporaryDirectory { dir in
      let input = #"""
        {"id": "e\u00e9\ud83d\ude00", "text": "tab\there \"q\" \\ \/ é"}
        {"id":"x","text":"a","width":2e2,"scale":1.0}
        {"id": "n", "text": {"nested": 1}}
        {"id": "s", "text": "a", "width": "200"}
        {"id": 7.5, "text": "a"}
        {"id": "b", "text": "a", "maxLines": true}
        {"id": "h", "text": "a", "height": null, "padding": 0}
        """#
      try (input + "\n").write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let run = try CLI.run(["batch", "--input", "in.jsonl", "--out-dir", "out"], in: dir)
      #expect(run.status == 1, "\(run)")
      let records = try CLI.manifest(dir.appendingPathComponent("out/manifest.jsonl"))
      #expect(records.map { $0["id"] as? String } == ["eé😀", "x", "n", "s", nil, "b", "h"])
      #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/eé😀.png").path))
      #expect(records[0]["error"] == nil && records[0]["lines"] as? Int == 1)
      #expect(records[1]["error"] == nil && records[1]["width"] as? Int == 200)
      #expect(records[2]["error"] as? String == "'text' and 'markup' must be strings")
      #expect(records[3]["error"] as? String == "field 'width' must be a number")
      #expect(records[4]["error"] as? String == "field 'id' must be a string or an integer")
      #expect(records[5]["error"] as? String == "field 'maxLines' must be a number")
      #expect(records[6]["error"] == nil)
    }
  }

  @Test(
    "ids that are not safe file names are refused",
    arguments: [
      "../x", "a/b", "a\\b", ".hidden", "..", "tab\tid", "del\u{7f}", "next-line\u{85}",
      String(repeating: "x", count: 201), "",
    ])
  func unsafeIDs(id: String) throws {
    try CLI.withTemporaryDirectory { dir in
      let line = String(decoding: try JSONSerialization.data(withJSONObject: ["id": id, "text": "x"]), as: UTF8.self)
      try (line + "\n").write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let run = try CLI.run(["batch", "--input", "in.jsonl", "--out-dir", "out"], in: dir)
      #expect(run.status == 1)
      let records = try CLI.manifest(dir.appendingPathComponent("out/manifest.jsonl"))
      #expect(records.count == 1 && records[0]["error"] != nil && records[0]["file"] == nil)
      let files = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out").path)
      #expect(files == ["manifest.jsonl"])
      #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.png").path))
    }
  }

  @Test("a line over --max-line-bytes is a failed record, and the lines after it still render")
  func longLine() throws {
    try CLI.withTemporaryDirectory { dir in
      let long = #"{"id": "long", "text": "\#(String(repeating: "y", count: 5000))"}"#
      try (long + "\n" + CLI.jsonl(2)).write(
        to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let run = try CLI.run(["batch", "--input", "in.jsonl", "--out-dir", "out", "--max-line-bytes", "1000"], in: dir)
      #expect(run.status == 1)
      let records = try CLI.manifest(dir.appendingPathComponent("out/manifest.jsonl"))
      #expect(records.count == 3)
      #expect((records[0]["error"] as? String)?.contains("longer than 1000 bytes") == true)
      #expect(records[1]["id"] as? String == "t0" && records[2]["line"] as? Int == 3)
    }
  }

  @Test("--fail-fast stops soon after the first failure")
  func failFast() throws {
    try CLI.withTemporaryDirectory { dir in
      try ("oops\n" + CLI.jsonl(200)).write(
        to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let run = try CLI.run(
        ["batch", "--input", "in.jsonl", "--out-dir", "out", "--workers", "1", "--window", "2", "--fail-fast"], in: dir)
      #expect(run.status == 1)
      #expect(run.stderr.contains("--fail-fast"))
      let records = try CLI.manifest(dir.appendingPathComponent("out/manifest.jsonl"))
      #expect(records.count <= 3 && records[0]["line"] as? Int == 1)
    }
  }

  @Test(
    "the summary gives the rate after each worker's first tile (throughput's convention) only when every worker had one"
  )
  func steadyRate() throws {
    try CLI.withTemporaryDirectory { dir in
      try CLI.jsonl(6).write(to: dir.appendingPathComponent("six.jsonl"), atomically: true, encoding: .utf8)
      try CLI.jsonl(1).write(to: dir.appendingPathComponent("one.jsonl"), atomically: true, encoding: .utf8)
      let steady = "tiles/s after each worker's first tile"
      // One worker: its first line is certainly its own (with two, one might take every line).
      let six = try CLI.run(["batch", "--input", "six.jsonl", "--out-dir", "six", "--workers", "1"], in: dir)
      #expect(six.status == 0 && six.stderr.contains("6 rendered") && six.stderr.contains(steady), "\(six)")
      // One line for two workers: one never has a first tile, so there is no steady clock to report.
      let one = try CLI.run(["batch", "--input", "one.jsonl", "--out-dir", "one", "--workers", "2"], in: dir)
      #expect(one.status == 0 && one.stderr.contains("1 rendered") && !one.stderr.contains(steady), "\(one)")
    }
  }

  @Test("killed with SIGKILL twice mid-way, re-run: the same manifest and PNGs as one uninterrupted run")
  func resumeAfterKill() throws {
    try CLI.withTemporaryDirectory { dir in
      try (CLI.jsonl(120) + "bad line\n").write(
        to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let clean = try CLI.run(
        ["batch", "--input", "in.jsonl", "--out-dir", "clean", "--workers", "2", "--write-thread", "off"], in: dir)
      #expect(clean.status == 1)

      // Killed and resumed with a writer thread: the same records as workers writing their own.
      let args = ["batch", "--input", "in.jsonl", "--out-dir", "resumed", "--workers", "2", "--write-thread", "on"]
      let first = try CLI.run(args + ["--kill-after", "30"], in: dir)
      #expect(first.signalled && first.status == SIGKILL)
      #expect(try CLI.manifest(dir.appendingPathComponent("resumed/manifest.jsonl")).count == 30)
      // Killed again during the resume: the next run merges both manifests.
      let second = try CLI.run(args + ["--kill-after", "70"], in: dir)
      #expect(second.signalled)
      let last = try CLI.run(args, in: dir)
      #expect(last.status == 1)
      #expect(last.stderr.contains("kept from the last run"))
      #expect(!last.stderr.contains("(0 rendered") && !last.stderr.contains(" 0 kept"))

      let expected = try CLI.manifest(dir.appendingPathComponent("clean/manifest.jsonl"))
      let resumed = try CLI.manifest(dir.appendingPathComponent("resumed/manifest.jsonl"))
      #expect(expected.count == 121)
      #expect(CLI.essentials(resumed) == CLI.essentials(expected))
      #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("resumed/manifest.jsonl.resume").path))

      // A finished run re-run renders nothing; a PNG changed on disk is rendered again.
      let corrupted = dir.appendingPathComponent("resumed/t5.png")
      try Data("not a png".utf8).write(to: corrupted)
      let again = try CLI.run(args, in: dir)
      #expect(again.stderr.contains("(1 rendered, 119 kept from the last run)"))
      #expect(try CLI.sha256(of: corrupted) == expected[5]["sha256"] as? String)
    }
  }

  @Test("changing a default renders again: the record's input hash covers the options")
  func resumeNoticesOptions() throws {
    try CLI.withTemporaryDirectory { dir in
      try CLI.jsonl(3).write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      try CLI.run(["batch", "--input", "in.jsonl", "--out-dir", "out"], in: dir)
      let run = try CLI.run(["batch", "--input", "in.jsonl", "--out-dir", "out", "--width", "200"], in: dir)
      #expect(run.stderr.contains("(3 rendered, 0 kept"))
      #expect(
        try CLI.manifest(dir.appendingPathComponent("out/manifest.jsonl")).allSatisfy { $0["width"] as? Int == 400 })
    }
  }

  @Test("shards by --shard, Slurm and Kubernetes variables; merge equals a single-process run")
  func shardsAndMerge() throws {
    try CLI.withTemporaryDirectory { dir in
      try (CLI.jsonl(40) + "\n\nnot json\n").write(
        to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let single = try CLI.run(["batch", "--input", "in.jsonl", "--out-dir", "single"], in: dir)
      #expect(single.status == 1)
      let base = ["batch", "--input", "in.jsonl", "--out-dir", "sharded"]
      try CLI.run(base + ["--shard", "0/3"], in: dir)
      try CLI.run(
        base, environment: ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "1"],
        in: dir)

      // Two parts of three: merge refuses.
      let early = try CLI.run(["batch", "merge", "sharded"], in: dir)
      #expect(early.status == 2 && early.stderr.contains("missing parts of 3: 2"))

      try CLI.run(base + ["--shard-count", "3"], environment: ["JOB_COMPLETION_INDEX": "2"], in: dir)
      let parts = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("sharded").path)
        .filter { $0.hasPrefix("manifest.") }.sorted()
      #expect(
        parts == [
          "manifest.0-of-3.done.json", "manifest.0-of-3.jsonl", "manifest.1-of-3.done.json", "manifest.1-of-3.jsonl",
          "manifest.2-of-3.done.json", "manifest.2-of-3.jsonl",
        ])
      let merge = try CLI.run(["batch", "merge", "sharded"], in: dir)
      #expect(merge.status == 1)  // the bad line failed, as in the single run
      #expect(merge.stderr.contains("41 records, 1 failed"))
      let merged = try CLI.manifest(dir.appendingPathComponent("sharded/manifest.jsonl"))
      let expected = try CLI.manifest(dir.appendingPathComponent("single/manifest.jsonl"))
      #expect(CLI.essentials(merged) == CLI.essentials(expected))

      // A PNG changed after the run: merge finds it and writes nothing.
      try FileManager.default.removeItem(at: dir.appendingPathComponent("sharded/manifest.jsonl"))
      try Data("x".utf8).write(to: dir.appendingPathComponent("sharded/t4.png"))
      let tampered = try CLI.run(["batch", "merge", "sharded"], in: dir)
      #expect(tampered.status == 2 && tampered.stderr.contains("t4.png (line 5) does not match its checksum"))
      #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("sharded/manifest.jsonl").path))
    }
  }

  @Test("a killed run's temporary files are removed at the next start: only this shard's, by their name pattern")
  func staleTemporaryFiles() throws {
    try CLI.withTemporaryDirectory { dir in
      try CLI.jsonl(4).write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let out = dir.appendingPathComponent("out")
      try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
      let ours = [".t1.png.all.0.tmp", ".t9.png.all.13.tmp", ".manifest.jsonl.all.0.tmp"]
      let oursAsShard = [".t2.png.s0of2.1.tmp"]
      let others = [
        ".t3.png.s1of2.0.tmp",  // another shard's, maybe in flight
        "t4.png.all.0.tmp",  // not hidden: never a name of ours
        ".t5.png.all.x.tmp", ".t6.png.all.0.tmp.keep", ".all.0.tmp", "notes.tmp", ".hidden",
      ]
      for name in ours + oursAsShard + others { try Data("partial".utf8).write(to: out.appendingPathComponent(name)) }
      try FileManager.default.createDirectory(
        at: out.appendingPathComponent(".d.png.all.0.tmp"), withIntermediateDirectories: true)

      let whole = try CLI.run(["batch", "--input", "in.jsonl", "--out-dir", "out"], in: dir)
      #expect(whole.status == 0, "\(whole)")
      #expect(whole.stderr.contains("removed 3 temporary files a killed run left"), "\(whole)")
      var left = Set(try FileManager.default.contentsOfDirectory(atPath: out.path))
      #expect(left.isDisjoint(with: ours))
      #expect(left.isSuperset(of: oursAsShard + others + [".d.png.all.0.tmp"]))

      let shard = try CLI.run(["batch", "--input", "in.jsonl", "--out-dir", "out", "--shard", "0/2"], in: dir)
      #expect(shard.status == 0 && shard.stderr.contains("removed 1 temporary file a killed run left"), "\(shard)")
      left = Set(try FileManager.default.contentsOfDirectory(atPath: out.path))
      #expect(left.isDisjoint(with: oursAsShard))
      #expect(left.isSuperset(of: others))
    }
  }

  @Test("a run that leaves no temporary files behind, and a resumed one, reports none removed")
  func noTemporaryFilesLeft() throws {
    try CLI.withTemporaryDirectory { dir in
      try CLI.jsonl(30).write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let args = ["batch", "--input", "in.jsonl", "--out-dir", "out", "--workers", "2"]
      let killed = try CLI.run(args + ["--kill-after", "10"], in: dir)
      #expect(killed.signalled && killed.status == SIGKILL)
      let resumed = try CLI.run(args, in: dir)
      #expect(resumed.status == 0, "\(resumed)")
      let files = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out").path)
      #expect(!files.contains { $0.hasSuffix(".tmp") }, "\(files)")
      #expect(files.count == 31)  // 30 PNGs and the manifest
    }
  }
}
