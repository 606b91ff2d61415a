import Foundation

/// Writes to standard error; progress only when standard error is a terminal.
enum Terminal {
  static let stderrIsTerminal = isatty(STDERR_FILENO) == 1

  static func warn(_ message: String) {
    FileHandle.standardError.write(Data("warning: \(message)\n".utf8))
  }

  static func progress(_ done: Int, of total: Int, label: String) {
    guard stderrIsTerminal else { return }
    let line = "\r\(label) \(done)/\(total)" + (done == total ? "\n" : "")
    FileHandle.standardError.write(Data(line.utf8))
  }
}
