import AsyncLayer
import Foundation
import Testing

@testable import layerbench

/// The batch's per-tile shortcuts give what the general paths give: the flat-line reader the
/// decoder's values, the sidecar writer the documented bytes, the unnamed-file writer whole files.
@Suite("Batch per-tile shortcuts")
struct BatchSpeedPathTests {
  static let decoded: [String] = [
    #"{"id": "a1", "text": "Hello, world"}"#,
    #"  {"id" : "a3" , "text" : "spaces around"  }  "#,
    "{\"id\":\"a2\",\"text\":\"naïve café — 你好 👋\"}\r",
    #"{"id": 4, "text": "x", "width": 300, "maxLines": -2, "height": null, "wrap": "word"}"#,
    #"{"id": -0, "text": "x"}"#,
    #"{"id": 999999999999999, "text": "x"}"#,
    #"{"id": "a", "flag": true, "other": false}"#,
    "{\"id\": \"del\u{7f}\", \"text\": \"x\"}",
    #"{}"#,
    #"{"": ""}"#,
  ]
  static let decoderOnly: [String] = [
    #"{"id": "a5", "text": "escape \"quoted\""}"#,
    #"{"id": "a", "text": "x", "text": "y"}"#,
    #"{"id": 7.5}"#,
    #"{"id": 1e2}"#,
    #"{"id": 1234567890123456}"#,
    #"{"id": 0300}"#,
    #"{"id": "a", "font": {"x": 1}}"#,
    #"{"id": "a", "t": [1]}"#,
    #"{"id": "a", "text": "x",}"#,
    #"{"id": "a" "text": "x"}"#,
    #"{"id": "a", "wrap": truex}"#,
    #"["id"]"#,
    #"{"id": "a"} x"#,
    "{\"id\": \"tab\there\"}",
    "",
  ]

  @Test("flat lines read in one pass give JSONDecoder's values; other lines are left to it", arguments: decoded)
  func flatLines(line: String) throws {
    let data = Data(line.utf8)
    let fast = try #require(LineValue.flatObject(data))
    #expect(fast == (try JSONDecoder().decode([String: LineValue].self, from: data)))
  }

  @Test("lines with escapes, fractions, exponents, containers, repeated keys or bad JSON go to the decoder")
  func decoderLines() throws {
    for line in Self.decoderOnly {
      #expect(LineValue.flatObject(Data(line.utf8)) == nil, "\(line)")
    }
    // Bytes that are not UTF-8 inside a string: the decoder's error, not a value.
    #expect(LineValue.flatObject(Data([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])) == nil)
    #expect(throws: TileSpecError.self) {
      try LineValue.object(Data([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]))
    }
    // The same errors as before for what the decoder reads.
    #expect(throws: TileSpecError.self) { try LineValue.object(Data(#"{"id" "a"}"#.utf8)) }
    #expect(try LineValue.object(Data(#"{"id": "a\u0062"}"#.utf8)) == ["id": .string("ab")])
  }

  @Test("the boxes sidecar: keys sorted, numbers in hundredths, code point offsets, strings escaped")
  func sidecarBytes() {
    let boxes = TextBoxes(
      clusters: [
        TextBox(
          text: "é", utf8Range: 3..<5, lineIndex: 0, frame: Rect(x: 0.5, y: -2.25, width: 10, height: 3.75),
          inkFrame: nil),
        TextBox(
          text: "q\"\u{1}", utf8Range: 0..<2, lineIndex: 1, frame: Rect(x: 100, y: 0, width: 0.25, height: 20),
          inkFrame: Rect(x: .nan, y: 1, width: 2, height: 3)),
      ],
      words: [
        TextBox(
          text: "", utf8Range: 0..<0, lineIndex: -3, frame: Rect(x: 1e300, y: -1e300, width: 0, height: 0),
          inkFrame: nil)
      ],
      lines: [
        TextBox(
          text: "ab é", utf8Range: 0..<5, lineIndex: 0, frame: Rect(x: 0, y: 0, width: 40, height: -5), inkFrame: nil)
      ])
    let json = BatchBoxes.json(id: "t\"1", width: Int.min, height: Int.max, text: "ab é", boxes: boxes)
    let expected =
      #"{"clusters":[{"box":[0.5,-2.25,10.5,1.5],"end":4,"line":0,"start":3,"text":"é"},"#
      + #"{"box":[100,0,100.25,20],"end":2,"ink":[0,1,0,4],"line":1,"start":0,"text":"q\"\u0001"}],"#
      + #""height":9223372036854775807,"id":"t\"1","#
      + #""lines":[{"box":[0,0,40,-5],"end":4,"line":0,"start":0,"text":"ab é"}],"#
      + #""text":"ab é","width":-9223372036854775808,"#
      + #""words":[{"box":[90000000000000,-90000000000000,90000000000000,-90000000000000],"end":0,"line":-3,"start":0,"text":""}]}"#
      + "\n"
    #expect(String(decoding: json, as: UTF8.self) == expected)
    // An ASCII text's offsets are its byte offsets.
    let ascii = BatchBoxes.json(
      id: "a", width: 1, height: 2, text: "abc",
      boxes: TextBoxes(
        clusters: [
          TextBox(
            text: "c", utf8Range: 2..<9, lineIndex: 0, frame: Rect(x: 0, y: 0, width: 1, height: 1), inkFrame: nil)
        ], words: [], lines: []))
    #expect(
      String(decoding: ascii, as: UTF8.self).hasPrefix(#"{"clusters":[{"box":[0,0,1,1],"end":3,"line":0,"start":2,"#))
  }

  @Test(
    "files appear whole under their names, replace an older file in one step, and leave nothing else",
    arguments: [false, true])
  func wholeFiles(linksThroughProc: Bool) throws {
    try CLI.withTemporaryDirectory { dir in
      let directory = try OutputDirectory(path: dir.path, temporaryTag: "all", linksThroughProc: linksThroughProc)
      let first = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
      try directory.writeAtomically(first, named: "t1.png", worker: 0)
      #expect(try Data(contentsOf: dir.appendingPathComponent("t1.png")) == first)
      let second = Data("shorter".utf8)
      try directory.writeAtomically(second, named: "t1.png", worker: 1)
      try directory.writeAtomically(second, named: "t2.png", worker: 1)
      #expect(try Data(contentsOf: dir.appendingPathComponent("t1.png")) == second)
      #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["t1.png", "t2.png"])
      // Mode 0644 as open(2) with O_CREAT gives it under this process's umask, and one link.
      let reference = dir.appendingPathComponent("reference").path
      let fd = open(reference, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
      close(fd)
      var expected = stat()
      #expect(stat(reference, &expected) == 0)
      unlink(reference)
      for name in ["t1.png", "t2.png"] {
        var info = stat()
        #expect(stat(dir.appendingPathComponent(name).path, &info) == 0)
        #expect(info.st_nlink == 1 && info.st_mode == expected.st_mode)
      }
      #expect(directory.removeTemporaryFiles() == 0)
    }
  }
}
