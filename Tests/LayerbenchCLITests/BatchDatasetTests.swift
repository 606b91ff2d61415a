import AsyncLayer
import AsyncLayerTestSupport
import Foundation
import Testing

/// `batch` as a dataset generator: labels, boxes, seeded sampling.
@Suite("layerbench batch datasets, run as a process")
struct BatchDatasetTests {
  static func write(_ text: String, to url: URL) throws {
    try text.write(to: url, atomically: true, encoding: .utf8)
  }

  static func lines(_ url: URL) throws -> [String] {
    try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
      .dropLast().map(String.init)
  }

  @Test("records carry the text; --labels writes <file>TAB<text>, escaped, in input order; resume and merge agree")
  func labels() throws {
    try CLI.withTemporaryDirectory { dir in
      let input = #"""
        {"id": "a", "text": "plain words"}
        {"id": "b", "markup": "<b>bold</b> &amp; more"}
        {"id": "c", "text": "tab\there, back\\slash"}
        {"id": "d", "text": "two\nlines", "width": 300}
        not json
        {"id": "e", "text": "line\u2028separator 漢字"}
        """#
      try Self.write(input + "\n" + CLI.jsonl(12), to: dir.appendingPathComponent("in.jsonl"))
      let args = ["batch", "--input", "in.jsonl", "--workers", "2", "--labels", "gt.txt"]
      let run = try CLI.run(args + ["--out-dir", "out"], in: dir)
      #expect(run.status == 1, "\(run)")  // the line that is not JSON
      let records = try CLI.manifest(dir.appendingPathComponent("out/manifest.jsonl"))
      #expect(records[1]["text"] as? String == "bold & more")
      #expect(records[3]["text"] as? String == "two\nlines")
      let labels = try Self.lines(dir.appendingPathComponent("out/gt.txt"))
      #expect(labels.count == 17)
      #expect(
        Array(labels.prefix(6)) == [
          "a.png\tplain words", "b.png\tbold & more", "c.png\t" + #"tab\there, back\\slash"#,
          "d.png\t" + #"two\nlines"#, "e.png\t" + #"line\u2028separator 漢字"#, "t0.png\tTile 0: the quick brown fox",
        ])
      // Every label line splits into exactly two fields at its one tab.
      #expect(labels.allSatisfy { $0.split(separator: "\t", omittingEmptySubsequences: false).count == 2 })

      // Resumed: everything kept, the same labels.
      let again = try CLI.run(args + ["--out-dir", "out"], in: dir)
      #expect(again.stderr.contains("(0 rendered, 17 kept"), "\(again)")
      #expect(try Self.lines(dir.appendingPathComponent("out/gt.txt")) == labels)

      // Three shards, each with its labels part; merge joins them into the same file.
      for index in 0..<3 {
        try CLI.run(args + ["--out-dir", "sharded", "--shard", "\(index)/3"], in: dir)
      }
      let part = try Self.lines(dir.appendingPathComponent("sharded/gt.1-of-3.txt"))
      #expect(part.first?.hasPrefix("b.png\t") == true)
      let merge = try CLI.run(["batch", "merge", "sharded"], in: dir)
      #expect(merge.status == 1, "\(merge)")
      #expect(try Self.lines(dir.appendingPathComponent("sharded/gt.txt")) == labels)
    }
  }

  @Test("an old manifest without text resumes: plain tiles are kept and labelled, markup tiles rendered again")
  func oldManifest() throws {
    try CLI.withTemporaryDirectory { dir in
      try Self.write(
        #"{"id": "p", "text": "plain"}"# + "\n" + #"{"id": "m", "markup": "<i>it</i>"}"# + "\n",
        to: dir.appendingPathComponent("in.jsonl"))
      let args = ["batch", "--input", "in.jsonl", "--out-dir", "out", "--labels", "gt.txt"]
      try CLI.run(args, in: dir)
      // Strip the text field, as a manifest written before it existed.
      let manifest = dir.appendingPathComponent("out/manifest.jsonl")
      let stripped = try CLI.manifest(manifest).map { record -> String in
        var record = record
        record["text"] = nil
        return String(
          decoding: try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]), as: UTF8.self)
      }
      try Self.write(stripped.joined(separator: "\n") + "\n", to: manifest)
      let run = try CLI.run(args, in: dir)
      #expect(run.status == 0 && run.stderr.contains("(1 rendered, 1 kept"), "\(run)")
      #expect(try Self.lines(dir.appendingPathComponent("out/gt.txt")) == ["p.png\tplain", "m.png\tit"])
    }
  }

  /// The PNG of `file` in `dir`, decoded.
  static func image(_ url: URL) throws -> RenderedImage { try ImageDecoder.decode(try Data(contentsOf: url)) }

  @Test("--boxes with --fit-width: each tile's sidecar holds cluster, word and line boxes that hold the PNG's ink")
  func boxes() throws {
    try CLI.withTemporaryDirectory { dir in
      let input = """
        {"id": "latin", "text": "Quick fjord Wyvern"}
        {"id": "arabic", "text": "مرحبا بالعالم", "align": "center"}
        {"id": "deva", "text": "क्षत्रिय नमस्ते"}
        {"id": "cjk", "text": "漢字かな交じり文", "scale": 1.5}
        {"id": "wrap", "text": "several words that wrap onto more lines", "width": 160}

        """
      try Self.write(input, to: dir.appendingPathComponent("in.jsonl"))
      let run = try CLI.run(
        [
          "batch", "--input", "in.jsonl", "--out-dir", "out", "--boxes", "--padding", "11", "--font", "Sans 18",
          "--fit-width",
        ], in: dir
      )
      #expect(run.status == 0, "\(run)")
      let records = try CLI.manifest(dir.appendingPathComponent("out/manifest.jsonl"))
      // --fit-width: a one-line tile is as wide as its text, not the 375-point (750-pixel) width.
      #expect(records.filter { $0["lines"] as? Int == 1 }.allSatisfy { ($0["width"] as? Int ?? 750) < 700 })
      for record in records {
        let id = try #require(record["id"] as? String)
        #expect(record["boxes"] as? String == id + ".json")
        let sidecar = dir.appendingPathComponent("out/\(id).json")
        #expect(try CLI.sha256(of: sidecar) == record["boxesSha256"] as? String)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: sidecar)) as? [String: Any])
        let image = try Self.image(dir.appendingPathComponent("out/\(id).png"))
        #expect(json["width"] as? Int == image.pixelWidth && json["height"] as? Int == image.pixelHeight)
        let text = try #require(json["text"] as? String)
        let clusters = try #require(json["clusters"] as? [[String: Any]])
        let scalars = Array(text.unicodeScalars)
        var inks: [[Double]] = []
        for cluster in clusters {
          let (start, end) = (try #require(cluster["start"] as? Int), try #require(cluster["end"] as? Int))
          var piece = String.UnicodeScalarView()
          piece.append(contentsOf: scalars[start..<end])
          #expect(String(piece) == cluster["text"] as? String)
          if let ink = cluster["ink"] as? [Double] {
            inks.append(ink)
            // Something is drawn in each cluster's ink box.
            var drawn = false
            for y in Int(ink[1])..<Int(ink[3].rounded(.up)) where !drawn {
              for x in Int(ink[0])..<Int(ink[2].rounded(.up))
              where x < image.pixelWidth && y < image.pixelHeight && image.isInk(x: x, y: y, background: .white) {
                drawn = true
                break
              }
            }
            #expect(drawn, "\(id): nothing drawn in the box of '\(cluster["text"] ?? "")'")
          }
        }
        // Every ink pixel lies in some cluster's ink box (2 px of antialiasing).
        var stray = 0
        for y in 0..<image.pixelHeight {
          for x in 0..<image.pixelWidth where image.isInk(x: x, y: y, background: .white) {
            let (cx, cy) = (Double(x) + 0.5, Double(y) + 0.5)
            if !inks.contains(where: { cx >= $0[0] - 2 && cx <= $0[2] + 2 && cy >= $0[1] - 2 && cy <= $0[3] + 2 }) {
              stray += 1
            }
          }
        }
        #expect(stray == 0, "\(id): \(stray) ink pixels outside every cluster box")
        let lines = try #require(json["lines"] as? [[String: Any]])
        #expect(lines.count == record["lines"] as? Int)
        #expect(!(try #require(json["words"] as? [[String: Any]])).isEmpty)
      }
      // A sidecar changed on disk: resume renders that tile again; merge would refuse it.
      try Data("{}".utf8).write(to: dir.appendingPathComponent("out/latin.json"))
      let again = try CLI.run(
        [
          "batch", "--input", "in.jsonl", "--out-dir", "out", "--boxes", "--padding", "11", "--font", "Sans 18",
          "--fit-width",
        ], in: dir
      )
      #expect(again.stderr.contains("(1 rendered, 4 kept"), "\(again)")
    }
  }

  static let samplingInput =
    (0..<24).map { #"{"id": "s\#($0)", "text": "Sample line \#($0)"}"# }.joined(separator: "\n")
    + "\n" + #"{"id": "cjk", "text": "漢字かな"}"# + "\n"

  static let samplingArgs = [
    "--seed", "42", "--sample-font", "DejaVu Sans", "--sample-font", "DejaVu Serif", "--sample-font",
    "Noto Sans CJK JP", "--sample-size", "10..30", "--sample-fg", "#000..#555", "--sample-bg", "#ccc..#fff",
    "--sample-letter-spacing", "-0.5..2",
  ]

  @Test("seeded sampling: the same bytes on 1 worker, 3 workers and 3 shards; recorded per tile; fonts cover lines")
  func sampling() throws {
    try CLI.withTemporaryDirectory { dir in
      try Self.write(Self.samplingInput, to: dir.appendingPathComponent("in.jsonl"))
      let base = ["batch", "--input", "in.jsonl"] + Self.samplingArgs
      #expect(try CLI.run(base + ["--out-dir", "one", "--workers", "1"], in: dir).status == 0)
      #expect(try CLI.run(base + ["--out-dir", "three", "--workers", "3"], in: dir).status == 0)
      for index in 0..<3 { try CLI.run(base + ["--out-dir", "sharded", "--shard", "\(index)/3"], in: dir) }
      #expect(try CLI.run(["batch", "merge", "sharded"], in: dir).status == 0)
      let one = try CLI.manifest(dir.appendingPathComponent("one/manifest.jsonl"))
      #expect(
        CLI.essentials(one) == CLI.essentials(try CLI.manifest(dir.appendingPathComponent("three/manifest.jsonl"))))
      #expect(
        CLI.essentials(one) == CLI.essentials(try CLI.manifest(dir.appendingPathComponent("sharded/manifest.jsonl"))))
      let samples = try one.map { try #require($0["sample"] as? [String: Any]) }
      #expect(samples.count == 25)
      // The choices vary between lines and stay in their ranges.
      #expect(Set(samples.compactMap { $0["font"] as? String }).count >= 2)
      #expect(Set(samples.compactMap { $0["size"] as? Double }).count >= 10)
      for sample in samples {
        let size = try #require(sample["size"] as? Double)
        #expect((10...30).contains(size))
        let spacing = try #require(sample["letterSpacing"] as? Double)
        #expect((-0.5...2).contains(spacing))
        let fg = try Color(parsing: try #require(sample["fg"] as? String))
        #expect(fg.red <= 0x55 / 255.0 + 1e-9)
        let bg = try Color(parsing: try #require(sample["bg"] as? String))
        #expect(bg.green >= 0xcc / 255.0 - 1e-9)
      }
      // Only the CJK font covers the CJK line.
      #expect(samples[24]["font"] as? String == "Noto Sans CJK JP")
      // The PNG has the sampled background.
      let first = try ImageDecoder.decode(try Data(contentsOf: dir.appendingPathComponent("one/s0.png")))
      #expect(first.color(x: 0, y: 0).isClose(to: try Color(parsing: try #require(samples[0]["bg"] as? String))))
      // Another seed, other choices.
      var other = base
      other[other.firstIndex(of: "42")!] = "43"
      #expect(try CLI.run(other + ["--out-dir", "other"], in: dir).status == 0)
      let otherRecords = try CLI.manifest(dir.appendingPathComponent("other/manifest.jsonl"))
      #expect(CLI.essentials(otherRecords) != CLI.essentials(one))
    }
  }

  @Test("a line no pooled font covers fails alone, with its reason")
  func uncoveredLine() throws {
    try CLI.withTemporaryDirectory { dir in
      try Self.write(
        #"{"id": "x", "text": "漢字"}"# + "\n" + #"{"id": "y", "text": "fine"}"# + "\n",
        to: dir.appendingPathComponent("in.jsonl"))
      let run = try CLI.run(
        ["batch", "--input", "in.jsonl", "--out-dir", "out", "--sample-font", "DejaVu Sans"], in: dir)
      #expect(run.status == 1)
      let records = try CLI.manifest(dir.appendingPathComponent("out/manifest.jsonl"))
      #expect((records[0]["error"] as? String)?.contains("no --sample-font family covers this line") == true)
      #expect(records[1]["error"] == nil)
    }
  }

  @Test(
    "bad dataset options are refused before the run starts",
    arguments: [
      (["--sample-size", "nan"], "--sample-size"), (["--sample-size", "30..10"], "MIN is above MAX"),
      (["--sample-size", "1e300..inf"], "--sample-size"), (["--sample-letter-spacing", "-1e9..0"], "letter"),
      (["--sample-fg", "#000..nope"], "not a colour"), (["--sample-font", "No Such Family"], "neither a font file"),
      (["--sample-font", "empty"], "--sample-font"), (["--seed", "3"], "needs a sampling option"),
      (["--labels", "a/b.txt"], "--labels"), (["--labels", "manifest.txt"], "clash"),
      (["--sample-size", "5..6..7"], "MIN..MAX"),
    ])
  func refusals(extra: [String], message: String) throws {
    try CLI.withTemporaryDirectory { dir in
      try CLI.jsonl(2).write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      try FileManager.default.createDirectory(
        at: dir.appendingPathComponent("empty"), withIntermediateDirectories: true)
      let run = try CLI.run(["batch", "--input", "in.jsonl", "--out-dir", "out"] + extra, in: dir)
      #expect(run.failedCleanly, "\(run)")
      #expect(run.stderr.contains(message), "\(run)")
      #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path))
    }
  }
}
