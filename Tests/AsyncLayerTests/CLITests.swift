import Foundation
import Testing

/// `layerbench` as a user runs it: the built executable in a temporary directory, its exit status
/// and what it prints on standard error.
@Suite(
  "layerbench command line", .serialized,
  .enabled(if: CLIRunner.executable != nil, "layerbench is not built next to the test bundle; run `swift build`"))
struct CLITests {
  @Test("a tile renders to a PNG file and the command exits 0")
  func renderSucceeds() throws {
    try CLIRunner.withTemporaryDirectory { directory in
      let outcome = try CLIRunner.run(["render", "--text", "hi", "-o", "tile.png"], in: directory)
      #expect(outcome.status == 0 && !outcome.signalled, "\(outcome)")
      let data = try Data(contentsOf: directory.appendingPathComponent("tile.png"))
      #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }
  }
}
