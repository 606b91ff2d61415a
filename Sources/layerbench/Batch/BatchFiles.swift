import AsyncLayer
import Foundation

/// Small POSIX file helpers.
enum BatchFiles {
  static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

  static func writeAll(_ fd: Int32, _ data: Data, path: String) throws {
    try data.withUnsafeBytes { try writeAll(fd, $0, path: path) }
  }

  static func writeAll(_ fd: Int32, _ raw: UnsafeRawBufferPointer, path: String) throws {
    var offset = 0
    while offset < raw.count {
      let written = Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        throw BatchError(FileErrorDescription(path: path, operation: "cannot write", errno: errno))
      }
      offset += written
    }
  }
}
