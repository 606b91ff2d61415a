import AsyncLayer
import Foundation
import Synchronization

/// Reading and writing files with plain messages ("cannot write out/x.png: permission denied"),
/// straight from `errno`: Foundation's would leak "NSCocoaErrorDomain error 512" or "The operation
/// could not be completed".
enum FileAccess {
  /// What `errno` `code` means, in a few words: the library's words for every file error.
  static func reason(_ code: Int32) -> String { FileErrorDescription.reason(errno: code) }

  /// The directory `path` is in ("." for a bare file name).
  static func directory(of path: String) -> String {
    let directory = (path as NSString).deletingLastPathComponent
    return directory.isEmpty ? "." : directory
  }

  private enum Kind { case missing, directory, other }

  private static func kind(of path: String) -> (Kind, errno: Int32) {
    var info = stat()
    guard stat(path, &info) == 0 else { return (.missing, errno) }
    return ((info.st_mode & S_IFMT) == S_IFDIR ? .directory : .other, 0)
  }

  // MARK: Writing

  /// Throws unless a file can be written at `path`: its directory exists and accepts new files
  /// (tried by creating and removing a file, which also holds for root, read-only mounts and
  /// /proc), and `path` is not a directory. For checking `--json`, `--chart` or `-o` before a run.
  static func checkWritable(_ path: String, option: String) throws {
    func failure(_ reason: String) -> ValidationErrorMessage {
      ValidationErrorMessage("\(option): cannot write \(path): \(reason)")
    }
    guard !path.isEmpty else { throw ValidationErrorMessage("\(option) is empty: give a file name") }
    guard !path.hasSuffix("/") else { throw failure("a file name cannot end with /") }
    let directory = directory(of: path)
    switch kind(of: directory) {
    case (.missing, ENOENT): throw failure("no such directory \(directory)")
    case (.missing, let code): throw failure(reason(code))
    case (.other, _): throw failure("\(directory) is not a directory")
    case (.directory, _): break
    }
    if case (.directory, _) = kind(of: path) { throw failure("it is a directory") }
    if let problem = probe(directory) { throw failure(problem) }
  }

  /// Throws unless `path` is, or can be created as, a directory that accepts new files: checks
  /// `--out-dir` before a run without creating anything but a probe file, removed at once.
  static func checkDirectoryUsable(_ path: String, option: String) throws {
    guard !path.isEmpty else { throw ValidationErrorMessage("\(option) is empty: give a directory") }
    // The directory itself or its nearest existing ancestor must be a directory we can write into.
    var existing = path
    func failure(_ reason: String) -> ValidationErrorMessage {
      if existing == path { return ValidationErrorMessage("\(option): cannot write into \(path): \(reason)") }
      let place = reason.contains(existing) ? "" : " (in \(existing))"
      return ValidationErrorMessage("\(option): cannot create \(path): \(reason)\(place)")
    }
    while true {
      switch kind(of: existing) {
      case (.directory, _):
        if let problem = probe(existing) { throw failure(problem) }
        return
      case (.other, _):
        throw failure("\(existing) is not a directory")
      case (.missing, ENOENT), (.missing, ENOTDIR):
        let parent = (existing as NSString).deletingLastPathComponent
        existing = parent.isEmpty ? "." : parent
      case (.missing, let code):
        throw failure(reason(code))
      }
    }
  }

  private static let probeCounter = Atomic<Int>(0)

  /// Why no file can be created in `directory`, or nil when one can.
  private static func probe(_ directory: String) -> String? {
    let number = probeCounter.add(1, ordering: .relaxed).oldValue
    let path = (directory as NSString).appendingPathComponent(".layerbench-probe-\(getpid())-\(number)")
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      let code = errno
      return code == ENOENT ? "cannot create files in \(directory)" : reason(code)
    }
    close(descriptor)
    unlink(path)
    return nil
  }

  /// Writes `data` to `path` atomically (a temporary file in the same directory, then renamed over
  /// `path`): a reader never sees half a file, and a failed write leaves no partial file.
  static func write(_ data: Data, to path: String) throws {
    let directory = directory(of: path)
    func failure(_ code: Int32) -> ValidationErrorMessage {
      if code == ENOENT, case (.missing, _) = kind(of: directory) {
        return ValidationErrorMessage("cannot write \(path): no such directory \(directory)")
      }
      return ValidationErrorMessage("cannot write \(path): \(reason(code))")
    }
    let number = probeCounter.add(1, ordering: .relaxed).oldValue
    let name = (path as NSString).lastPathComponent
    let temporary = (directory as NSString).appendingPathComponent(".\(name).\(getpid())-\(number).tmp")
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
    guard descriptor >= 0 else { throw failure(errno) }
    var code: Int32 = 0
    data.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          code = errno
          return
        }
        offset += written
      }
    }
    if close(descriptor) != 0, code == 0 { code = errno }
    if code == 0, rename(temporary, path) != 0 { code = errno }
    if code != 0 {
      unlink(temporary)
      throw failure(code)
    }
  }

  /// Creates `path` and any missing parents (mkdir -p), with plain messages.
  static func createDirectory(_ path: String) throws {
    func failure(_ reason: String) -> ValidationErrorMessage {
      ValidationErrorMessage("cannot create directory \(path): \(reason)")
    }
    var prefix = path.hasPrefix("/") ? "/" : ""
    for component in path.split(separator: "/") {
      prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
      if mkdir(prefix, 0o777) == 0 { continue }
      let code = errno
      switch kind(of: prefix) {
      case (.directory, _): continue
      case (.other, _): throw failure("\(prefix) is not a directory")
      case (.missing, _): throw failure(reason(code))
      }
    }
  }

  // MARK: Reading

  /// Throws unless `path` is a file that can be opened for reading, with a plain message.
  static func checkReadable(_ path: String) throws {
    close(try openForReading(path))
  }

  /// The bytes of the file at `path`, with a plain message when it cannot be read.
  static func read(_ path: String) throws -> Data {
    func failure(_ reason: String) -> ValidationErrorMessage {
      ValidationErrorMessage("cannot read \(path): \(reason)")
    }
    let descriptor = try openForReading(path)
    defer { close(descriptor) }
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw failure(reason(errno))
      }
      if count == 0 { return data }
      data.append(contentsOf: chunk[0..<count])
    }
  }

  /// A descriptor of the file at `path`, open for reading; refuses a missing file or a directory.
  private static func openForReading(_ path: String) throws -> Int32 {
    func failure(_ reason: String) -> ValidationErrorMessage {
      ValidationErrorMessage("cannot read \(path): \(reason)")
    }
    guard !path.isEmpty else { throw ValidationErrorMessage("no file name given") }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      let code = errno
      throw failure(code == ENOENT ? "no such file" : reason(code))
    }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else {
      let code = errno
      close(descriptor)
      throw failure(reason(code))
    }
    if (info.st_mode & S_IFMT) == S_IFDIR {
      close(descriptor)
      throw failure("it is a directory")
    }
    return descriptor
  }
}

/// Writes `value` as pretty JSON to `path`.
func writeJSON<T: Encodable>(_ value: T, to path: String) throws {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
  try FileAccess.write(encoder.encode(value), to: path)
}
