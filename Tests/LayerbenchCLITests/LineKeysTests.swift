import Foundation
import Testing

@testable import layerbench

/// The id scan that claims ids in input order and the table that remembers them.
@Suite("Batch ids: the key scan and the table of ids seen")
struct LineKeysTests {
  @Test(
    "the scan reads the id as the parser does and finds keys given twice",
    arguments: [
      (#"{"id": "a1", "text": "x"}"#, "a1", nil),
      (#"{"text": "x", "id": 7}"#, "7", nil),
      (#"{"id": 7.0, "text": "x"}"#, "7", nil),
      (#"{"id": 1e2}"#, "100", nil),
      (#"{"id": 7.5}"#, nil, nil),
      (#"{"id": "\u0061"}"#, "a", nil),
      (#"{"id": "a", "text": "x", "text": "y"}"#, "a", "text"),
      (#"{"id": "a", "id": "b"}"#, nil, "id"),
      (#"{"\u0069d": "a", "id": "b"}"#, nil, "id"),
      (#"{"id": "a", "font": {"id": "x", "id": "y"}, "t": [1, {"a": "}"}]}"#, "a", nil),
      (#"{"id": "q\"uote", "text": "}"}"#, #"q"uote"#, nil),
      (#"not json"#, nil, nil),
      (#"["id", "a"]"#, nil, nil),
    ] as [(String, String?, String?)])
  func scan(line: String, id: String?, duplicate: String?) {
    let keys = LineKeys(Data(line.utf8))
    #expect(keys.id == id)
    #expect(keys.duplicateKey == duplicate)
  }

  @Test("a key given twice among many keys is found too (the set path)")
  func manyKeys() {
    let fields = (0..<40).map { #""k\#($0)": 1"# } + [#""k7": 2"#]
    #expect(LineKeys(Data(("{" + fields.joined(separator: ",") + "}").utf8)).duplicateKey == "k7")
  }

  @Test("the table returns each id's first line, through growth, and compares bytes, not canonical text")
  func table() {
    var seen = SeenIDs(capacity: 16)
    for index in 0..<100_000 { #expect(seen.firstLine(of: "t\(index)", line: index + 1) == nil) }
    #expect(seen.count == 100_000)
    #expect(seen.memory <= 100_000 * 16 * 2 * 2)
    for index in stride(from: 0, to: 100_000, by: 997) {
      #expect(seen.firstLine(of: "t\(index)", line: 200_000) == index + 1)
    }
    #expect(seen.firstLine(of: "\u{e9}", line: 1) == nil)  // é precomposed
    #expect(seen.firstLine(of: "e\u{301}", line: 2) == nil)  // é decomposed: another file name
    #expect(seen.firstLine(of: "\u{e9}", line: 3) == 1)
  }
}
