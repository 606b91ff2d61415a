import AsyncLayer
import Foundation
import Testing

@Suite("File errors: the path, what failed and errno in words")
struct FileErrorDescriptionTests {
  /// Runs `body` with a fresh directory holding a subdirectory `dir`, removed afterwards.
  private func withDirectory(_ body: (_ root: String) throws -> Void) throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("file-errors-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root.appendingPathComponent("dir"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    try body(root.path)
  }

  /// Foundation's own text, which no message may carry.
  private func expectPlain(_ message: String, path: String, words: String) {
    #expect(message.contains(path), "\(message)")
    #expect(message.contains(words), "\(message)")
    #expect(!message.contains("NSCocoaErrorDomain"), "\(message)")
    #expect(!message.contains("The operation could not be completed"), "\(message)")
  }

  @Test("a missing file and a directory, read through Foundation")
  func foundationErrors() throws {
    try withDirectory { root in
      for (name, words) in [("missing.png", "no such file or directory"), ("dir", "it is a directory")] {
        let path = root + "/" + name
        do {
          _ = try Data(contentsOf: URL(fileURLWithPath: path))
          Issue.record("reading \(path) succeeded")
        } catch {
          let description = FileErrorDescription(path: path, operation: "cannot read", error: error)
          #expect(description.description == "\(path): cannot read: \(words)")
          expectPlain(description.description, path: path, words: words)
        }
      }
    }
  }

  @Test("an errno code, a POSIXError and an unknown code")
  func codes() {
    #expect(
      FileErrorDescription(path: "a", operation: "cannot write", errno: EACCES).description
        == "a: cannot write: permission denied")
    #expect(FileErrorDescription.reason(of: POSIXError(.ENOSPC)) == "no space left on device")
    // strerror's words, lower-cased, for codes without words of their own.
    #expect(FileErrorDescription.reason(errno: EBADF) == "bad file descriptor")
  }

  @Test("the library's file errors say it the same way")
  func libraryErrors() throws {
    try withDirectory { root in
      let missing = root + "/missing.png"
      let directory = root + "/dir"
      #expect {
        try RenderedImage(contentsOfPNGFile: missing)
      } throws: { error in
        expectPlain("\(error)", path: missing, words: "cannot read: no such file or directory")
        return true
      }
      #expect {
        try TextTile(.plain("x"), width: 20).render().image.writePNG(to: directory)
      } throws: { error in
        expectPlain("\(error)", path: directory, words: "cannot write: it is a directory")
        return true
      }
      #expect {
        try ReportSpec(contentsOfFile: directory)
      } throws: { error in
        expectPlain("\(error)", path: directory, words: "cannot read: it is a directory")
        return true
      }
    }
  }
}
