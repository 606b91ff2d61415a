import Foundation
import Testing

/// `batch`'s vertical, stroked and transformed tiles: options, line fields, sampling, the manifest's
/// `layout` and the sidecar's quads.
@Suite("layerbench batch layout options, run as a process")
struct BatchLayoutTests {
  @Test("options and line fields set the layout; the manifest records it and the sidecar carries quads")
  func layoutRecorded() throws {
    try CLI.withTemporaryDirectory { dir in
      let input = [
        #"{"id": "plain", "text": "Wyvern"}"#,
        ##"{"id": "turned", "text": "Wyvern", "rotate": 30, "stroke": 2, "strokeColor": "#ff0000"}"##,
        #"{"id": "column", "text": "東京 Tokyo", "orientation": "vertical", "rotate": 0}"#,
        #"{"id": "bad", "text": "x", "rotate": 1e300}"#,
        #"{"id": "badstroke", "text": "x", "stroke": -1}"#,
        #"{"id": "badorientation", "text": "x", "orientation": "diagonal"}"#,
      ].joined(separator: "\n")
      try input.write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let run = try CLI.run(
        ["batch", "--input", "in.jsonl", "--out-dir", "out", "--boxes", "--skew", "10", "--workers", "2"], in: dir)
      #expect(run.status == 1, "\(run)")  // the three bad lines
      let records = try CLI.manifest(dir.appendingPathComponent("out/manifest.jsonl"))
      #expect(records.count == 6)
      let plain = try #require(records[0]["layout"] as? [String: Any])
      #expect(plain["skew"] as? Double == 10 && plain["rotate"] as? Double == 0)
      let turned = try #require(records[1]["layout"] as? [String: Any])
      #expect(turned["rotate"] as? Double == 30 && turned["stroke"] as? Double == 2)
      #expect(turned["strokeColor"] as? String == "#ff0000" && turned["strokeFill"] as? Bool == true)
      let column = try #require(records[2]["layout"] as? [String: Any])
      #expect(column["orientation"] as? String == "vertical")
      #expect((records[3]["error"] as? String)?.contains("'rotate' must be a number from -360 to 360") == true)
      #expect((records[4]["error"] as? String)?.contains("'stroke' must be a width") == true)
      #expect((records[5]["error"] as? String)?.contains("field 'orientation' must be one of") == true)
      // The column is taller than wide; its sidecar's boxes have quads whose bound is the box.
      #expect(try #require(records[2]["height"] as? Int) > (try #require(records[2]["width"] as? Int)))
      let sidecar =
        try JSONSerialization.jsonObject(
          with: Data(contentsOf: dir.appendingPathComponent("out/turned.json"))) as? [String: Any]
      let clusters = try #require(sidecar?["clusters"] as? [[String: Any]])
      for cluster in clusters {
        let box = try #require(cluster["box"] as? [Double])
        let quad = try #require(cluster["quad"] as? [Double])
        #expect(quad.count == 8)
        let xs = stride(from: 0, to: 8, by: 2).map { quad[$0] }
        let ys = stride(from: 1, to: 8, by: 2).map { quad[$0] }
        #expect(abs(xs.min()! - box[0]) < 0.02 && abs(ys.min()! - box[1]) < 0.02)
        #expect(abs(xs.max()! - box[2]) < 0.02 && abs(ys.max()! - box[3]) < 0.02)
        if cluster["ink"] != nil { #expect((cluster["inkQuad"] as? [Double])?.count == 8) }
      }
      // Without layout options, no record field and no quads (what older runs wrote).
      try CLI.run(["batch", "--input", "in.jsonl", "--out-dir", "straight", "--boxes"], in: dir)
      let straight = try CLI.manifest(dir.appendingPathComponent("straight/manifest.jsonl"))
      #expect(straight[0]["layout"] == nil)
      let plainSidecar = try String(contentsOf: dir.appendingPathComponent("straight/plain.json"), encoding: .utf8)
      #expect(!plainSidecar.contains("quad"))
    }
  }

  @Test("sampled rotation, skew and stroke are drawn per line, recorded, and the same on any worker count")
  func sampled() throws {
    try CLI.withTemporaryDirectory { dir in
      try CLI.jsonl(12).write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
      let args = [
        "batch", "--input", "in.jsonl", "--seed", "5", "--sample-rotate", "-5..5", "--sample-skew", "0..20",
        "--sample-stroke-width", "0..2",
      ]
      try CLI.run(args + ["--out-dir", "one", "--workers", "1"], in: dir)
      try CLI.run(args + ["--out-dir", "two", "--workers", "2"], in: dir)
      let one = try CLI.manifest(dir.appendingPathComponent("one/manifest.jsonl"))
      let two = try CLI.manifest(dir.appendingPathComponent("two/manifest.jsonl"))
      #expect(one.count == 12)
      #expect(one.map { $0["sha256"] as? String } == two.map { $0["sha256"] as? String })
      var rotations = Set<Double>()
      for record in one {
        let sample = try #require(record["sample"] as? [String: Any])
        let rotate = try #require(sample["rotate"] as? Double)
        #expect((-5...5).contains(rotate))
        #expect((0...20).contains(try #require(sample["skew"] as? Double)))
        let layout = try #require(record["layout"] as? [String: Any])
        #expect(layout["rotate"] as? Double == rotate)
        rotations.insert(rotate)
      }
      #expect(rotations.count > 6)
    }
  }

  @Test(
    "bad layout options and ranges are refused before the run starts (exit 64)",
    arguments: [
      (["--rotate", "nan"], "--rotate"), (["--rotate", "1e300"], "--rotate"), (["--skew", "-inf"], "--skew"),
      (["--stroke-width", "-1"], "--stroke-width"), (["--scale-x", "0"], "--scale-x"),
      (["--stroke-only"], "--stroke-only needs"), (["--stroke-color", "nope"], "--stroke-color"),
      (["--sample-rotate", "5..-5"], "MIN is above MAX"), (["--sample-skew", "0..90"], "--sample-skew"),
      (["--sample-stroke-width", "nan..1"], "--sample-stroke-width"),
      (["--orientation", "diagonal"], "orientation"),
    ])
  func refused(extra: [String], message: String) throws {
    try CLI.withTemporaryDirectory { dir in
      try "x\n".write(to: dir.appendingPathComponent("in.txt"), atomically: true, encoding: .utf8)
      let run = try CLI.run(["batch", "--file", "in.txt", "--out-dir", "out"] + extra, in: dir)
      #expect(run.status == 64 && run.stderr.contains(message), "\(extra): \(run)")
      #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/manifest.jsonl").path))
    }
  }
}
