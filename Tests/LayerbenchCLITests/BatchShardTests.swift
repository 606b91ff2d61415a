import AsyncLayer
import Foundation
import Testing

/// `batch --output webdataset` (tar files read back with Python's `tarfile`) and the image formats
/// and modes (`--image-format`, `--mode`), run as a process.
@Suite("layerbench batch shards and formats, run as a process")
struct BatchShardTests {
  /// What Python's `tarfile` sees in a tar file: each member's name, size, data offset and SHA-256.
  struct Member: Decodable, Equatable {
    var name: String
    var size: Int
    var offset: Int
    var sha256: String
  }

  /// Lists the members of each tar file with Python's `tarfile` (strict: errors raise).
  static func members(of tars: [URL]) throws -> [String: [Member]] {
    let script = """
      import hashlib, json, sys, tarfile
      out = {}
      for path in sys.argv[1:]:
          with tarfile.open(path, "r:", errorlevel=2) as archive:
              rows = []
              for info in archive.getmembers():
                  assert info.isreg() and info.mode == 0o644, info
                  data = archive.extractfile(info).read()
                  rows.append({"name": info.name, "size": info.size, "offset": info.offset_data,
                               "sha256": hashlib.sha256(data).hexdigest()})
              out[path.rsplit("/", 1)[-1]] = rows
      print(json.dumps(out))
      """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script] + tars.map(\.path)
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw CLIError("python3 tarfile failed: \(String(decoding: errors, as: UTF8.self))")
    }
    return try JSONDecoder().decode([String: [Member]].self, from: data)
  }

  static func tars(in directory: URL) throws -> [URL] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tar") }.sorted()
      .map { directory.appendingPathComponent($0) }
  }

  static func bytes(of url: URL, offset: Int, count: Int) throws -> Data {
    let data = try Data(contentsOf: url)
    return data.subdata(in: offset..<offset + count)
  }

  /// Checks every successful record against the tar members Python read: its image, label and boxes
  /// members, at the recorded offsets, and the image decodes to the recorded size.
  static func check(records: [[String: Any]], members: [String: [Member]], directory: URL) throws {
    for record in records where record["error"] == nil {
      let id = try #require(record["id"] as? String)
      let tar = try #require(record["tar"] as? String)
      let listed = try #require(members[tar], "\(tar) not read")
      let file = try #require(record["file"] as? String)
      let image = try #require(listed.first { $0.name == file }, "\(file) not in \(tar)")
      #expect(image.offset == record["offset"] as? Int)
      #expect(image.size == record["bytes"] as? Int)
      #expect(image.sha256 == record["sha256"] as? String)
      let label = try #require(listed.first { $0.name == id + ".txt" })
      let text = try bytes(of: directory.appendingPathComponent(tar), offset: label.offset, count: label.size)
      #expect(String(decoding: text, as: UTF8.self) == record["text"] as? String)
      if let boxes = record["boxes"] as? String {
        let member = try #require(listed.first { $0.name == boxes })
        #expect(member.offset == record["boxesOffset"] as? Int && member.sha256 == record["boxesSha256"] as? String)
      }
      let decoded = try ImageDecoder.decode(
        bytes(of: directory.appendingPathComponent(tar), offset: image.offset, count: image.size))
      #expect(decoded.pixelWidth == record["width"] as? Int && decoded.pixelHeight == record["height"] as? Int)
    }
  }

  @Test(
    "--output webdataset: tar files of N tiles that tarfile reads, members as the manifest says, pax for long names")
  func shards() throws {
    try CLI.withTemporaryDirectory { dir in
      let long = String(repeating: "x", count: 150)
      let input =
        CLI.jsonl(22) + #"{"id": "\#(long)", "text": "a long id"}"# + "\n" + #"{"id": "grüße", "text": "non-ASCII"}"#
        + "\n" + "not json\n" + #"{"id": "a.b", "text": "dotted"}"# + "\n"
      try input.write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let run = try CLI.run(
        [
          "batch", "--input", "in.jsonl", "--out-dir", "out", "--output", "webdataset", "--tiles-per-tar", "10",
          "--boxes", "--labels", "gt.txt", "--workers", "2",
        ], in: dir)
      #expect(run.status == 1, "\(run)")  // two bad lines
      let out = dir.appendingPathComponent("out")
      let records = try CLI.manifest(out.appendingPathComponent("manifest.jsonl"))
      #expect(records.count == 26)
      #expect((records[25]["error"] as? String)?.contains("has a '.'") == true)
      let tars = try Self.tars(in: out)
      #expect(tars.map(\.lastPathComponent) == ["tiles-000000.tar", "tiles-000001.tar", "tiles-000002.tar"])
      // No loose tile files, and each tar is whole 10 KiB records.
      #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("t0.png").path))
      for tar in tars { #expect(try Data(contentsOf: tar).count % 10240 == 0) }
      let members = try Self.members(of: tars)
      #expect(members["tiles-000000.tar"]?.count == 30 && members["tiles-000002.tar"]?.count == 12)
      #expect(members["tiles-000000.tar"]?.prefix(3).map(\.name) == ["t0.png", "t0.txt", "t0.json"])
      #expect(members["tiles-000002.tar"]?.map(\.name).contains(long + ".png") == true)
      #expect(members["tiles-000002.tar"]?.map(\.name).contains("grüße.png") == true)
      try Self.check(records: records, members: members, directory: out)
      let labels = try String(contentsOf: out.appendingPathComponent("gt.txt"), encoding: .utf8)
      #expect(labels.hasPrefix("t0.png\tTile 0: the quick brown fox\n"))
    }
  }

  @Test(
    "a killed run's partial tar is discarded and redone: the same tar bytes as one clean run; kept tars stay; the same with and without a writer thread"
  )
  func resume() throws {
    try CLI.withTemporaryDirectory { dir in
      try (CLI.jsonl(25) + "bad\n").write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let common = [
        "batch", "--input", "in.jsonl", "--output", "webdataset", "--tiles-per-tar", "10", "--workers", "2",
      ]
      // The clean run's workers commit their own tiles; the killed and resumed runs hand them to a writer thread.
      let clean = try CLI.run(common + ["--out-dir", "clean", "--write-thread", "off"], in: dir)
      #expect(clean.status == 1, "\(clean)")

      let args = common + ["--out-dir", "out", "--write-thread", "on"]
      let killed = try CLI.run(args + ["--kill-after", "15"], in: dir)
      #expect(killed.signalled && killed.status == SIGKILL)
      let out = dir.appendingPathComponent("out")
      // Only the finished tar's records are in the manifest.
      #expect(try CLI.manifest(out.appendingPathComponent("manifest.jsonl")).count == 10)
      #expect(try Self.tars(in: out).map(\.lastPathComponent) == ["tiles-000000.tar"])
      // A partial tar of the next, as a crash in mid-write leaves it.
      try Data(repeating: 7, count: 3000).write(to: out.appendingPathComponent(".tiles-000001.tar.all.0.tmp"))

      let resumed = try CLI.run(args, in: dir)
      #expect(resumed.status == 1)
      #expect(resumed.stderr.contains("removed 1 temporary file"), "\(resumed)")
      #expect(resumed.stderr.contains("(15 rendered, 10 kept from the last run)"), "\(resumed)")
      let expected = try CLI.manifest(dir.appendingPathComponent("clean/manifest.jsonl"))
      #expect(
        CLI.essentials(try CLI.manifest(out.appendingPathComponent("manifest.jsonl"))) == CLI.essentials(expected))
      let cleanTars = try Self.tars(in: dir.appendingPathComponent("clean"))
      for tar in cleanTars {
        #expect(try Data(contentsOf: tar) == Data(contentsOf: out.appendingPathComponent(tar.lastPathComponent)))
      }
      #expect(!(try FileManager.default.contentsOfDirectory(atPath: out.path).contains { $0.hasSuffix(".tmp") }))

      // Re-run: every tar kept as it is. A byte changed in a tile's image: that tile is rendered again
      // and its tar rewritten to the clean run's bytes.
      let again = try CLI.run(args, in: dir)
      #expect(again.stderr.contains("(0 rendered, 25 kept"), "\(again)")
      let middle = out.appendingPathComponent("tiles-000001.tar")
      let record = try #require(expected.first { $0["id"] as? String == "t12" })
      let offset = try #require(record["offset"] as? Int)
      let handle = try FileHandle(forWritingTo: middle)
      try handle.seek(toOffset: UInt64(offset + 100))
      handle.write(Data([0x55, 0xaa]))
      try handle.close()
      let repaired = try CLI.run(args, in: dir)
      #expect(repaired.stderr.contains("(1 rendered, 24 kept"), "\(repaired)")
      #expect(try Data(contentsOf: middle) == Data(contentsOf: dir.appendingPathComponent("clean/tiles-000001.tar")))
    }
  }

  @Test("--shard I/N with tars: each part writes its own tar files; merge verifies the members and joins")
  func shardedMerge() throws {
    try CLI.withTemporaryDirectory { dir in
      try (CLI.jsonl(20) + "bad\n").write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let args = [
        "batch", "--input", "in.jsonl", "--out-dir", "out", "--output", "webdataset", "--tiles-per-tar", "4",
        "--boxes",
      ]
      for index in 0..<3 { try CLI.run(args + ["--shard", "\(index)/3"], in: dir) }
      let out = dir.appendingPathComponent("out")
      let tars = try Self.tars(in: out)
      #expect(tars.map(\.lastPathComponent).contains("tiles-1-of-3-000001.tar"))
      let merge = try CLI.run(["batch", "merge", "out"], in: dir)
      #expect(merge.status == 1, "\(merge)")  // the bad line
      let records = try CLI.manifest(out.appendingPathComponent("manifest.jsonl"))
      #expect(records.count == 21 && records.map { $0["line"] as? Int } == (1...21).map { $0 })
      try Self.check(records: records, members: try Self.members(of: tars), directory: out)

      // A changed member fails the merge, which writes nothing.
      try FileManager.default.removeItem(at: out.appendingPathComponent("manifest.jsonl"))
      let record = records[4]
      let tar = out.appendingPathComponent(try #require(record["tar"] as? String))
      var data = try Data(contentsOf: tar)
      data[try #require(record["offset"] as? Int) + 60] ^= 0xff
      try data.write(to: tar)
      let broken = try CLI.run(["batch", "merge", "out"], in: dir)
      #expect(broken.status == 2 && broken.stderr.contains("does not match its checksum"), "\(broken)")
      #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.jsonl").path))
    }
  }

  static func decodedTile(_ dir: URL, _ name: String) throws -> RenderedImage {
    try ImageDecoder.decode(Data(contentsOf: dir.appendingPathComponent(name)))
  }

  @Test("--mode gray equals the grey fast path; bilevel is exactly 0/255 at the threshold; jpeg decodes close")
  func formats() throws {
    try CLI.withTemporaryDirectory { dir in
      try #"{"id": "k", "text": "Grey Wyvern quartz 123"}"#.appending("\n").write(
        to: dir.appendingPathComponent("black.jsonl"), atomically: true, encoding: .utf8)
      try ##"{"id": "r", "text": "Red Wyvern quartz 123", "fg": "#c03010"}"##.appending("\n").write(
        to: dir.appendingPathComponent("red.jsonl"), atomically: true, encoding: .utf8)
      func run(_ input: String, _ out: String, _ extra: [String]) throws {
        let outcome = try CLI.run(["batch", "--input", input, "--out-dir", out] + extra, in: dir)
        #expect(outcome.status == 0, "\(outcome)")
      }
      try run("black.jsonl", "default", [])
      try run("black.jsonl", "gray", ["--mode", "gray"])
      // Black on white: the grey mode's pixels are the default's (its grey fast path).
      let plain = try Self.decodedTile(dir, "default/k.png")
      #expect(try Self.decodedTile(dir, "gray/k.png") == plain)

      try run("red.jsonl", "rgba", [])
      try run("red.jsonl", "redgray", ["--mode", "gray"])
      try run("red.jsonl", "bilevel", ["--mode", "bilevel", "--threshold", "160"])
      try run("red.jsonl", "jpeg", ["--image-format", "jpeg", "--jpeg-quality", "95"])
      let colour = try Self.decodedTile(dir, "rgba/r.png")
      let gray = try Self.decodedTile(dir, "redgray/r.png")
      #expect(colour.pixels.contains { ($0 >> 16) & 0xff != $0 & 0xff })  // really coloured
      for (index, pixel) in gray.pixels.enumerated() {
        let level = pixel & 0xff
        #expect(pixel >> 24 == 0xff && (pixel >> 16) & 0xff == level && (pixel >> 8) & 0xff == level)
        let c = colour.pixels[index]
        let expected = (77 * ((c >> 16) & 0xff) + 150 * ((c >> 8) & 0xff) + 29 * (c & 0xff) + 128) >> 8
        if level != expected { Issue.record("pixel \(index): grey \(level), luma \(expected)"); break }
      }
      let bilevel = try Self.decodedTile(dir, "bilevel/r.png")
      let png = try Data(contentsOf: dir.appendingPathComponent("bilevel/r.png"))
      #expect(png[24] == 1 && png[25] == 0)  // IHDR: bit depth 1, colour type 0
      var black = 0
      for (index, pixel) in bilevel.pixels.enumerated() {
        let expected: UInt32 = gray.pixels[index] & 0xff >= 160 ? 0xffff_ffff : 0xff00_0000
        if pixel != expected { Issue.record("pixel \(index): \(pixel), expected \(expected)"); break }
        if pixel == 0xff00_0000 { black += 1 }
      }
      #expect(black > 100)
      #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("jpeg/r.jpg").path))
      let jpeg = try Self.decodedTile(dir, "jpeg/r.jpg")
      #expect(jpeg.pixelWidth == colour.pixelWidth && jpeg.pixelHeight == colour.pixelHeight)
      var difference = 0
      for (a, b) in zip(jpeg.pixels, colour.pixels) {
        for shift: UInt32 in [0, 8, 16] { difference += abs(Int((a >> shift) & 0xff) - Int((b >> shift) & 0xff)) }
      }
      #expect(Double(difference) / Double(3 * colour.pixels.count) < 4, "mean difference \(difference)")
    }
  }

  @Test("option combinations that cannot work are refused before the run, with the option's name")
  func refusals() throws {
    try CLI.withTemporaryDirectory { dir in
      try CLI.jsonl(2).write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let base = ["batch", "--input", "in.jsonl", "--out-dir", "out"]
      for (extra, message) in [
        (["--image-format", "jpeg", "--mode", "bilevel"], "cannot be --mode bilevel"),
        (["--image-format", "jpeg", "--jpeg-quality", "0"], "--jpeg-quality must be 1…100"),
        (["--jpeg-quality", "80"], "--jpeg-quality is for --image-format jpeg"),
        (["--mode", "bilevel", "--threshold", "300"], "--threshold must be 0…256"),
        (["--mode", "bilevel", "--threshold=-1"], "--threshold must be 0…256"),
        (["--threshold", "100"], "--threshold is for --mode bilevel"),
        (["--tiles-per-tar", "10"], "--tiles-per-tar is for --output webdataset"),
        (["--output", "webdataset", "--tiles-per-tar", "0"], "--tiles-per-tar must be 1…1000000"),
        (["--output", "tarball"], "output"),
      ] {
        let run = try CLI.run(base + extra, in: dir)
        #expect(run.status == 64 && run.stderr.contains(message), "\(extra): \(run)")
      }
      #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path))
    }
  }
}
