package import Foundation

/// Reads a whole file, but never more than a limit: a file whose size (from `fstat`) is over the
/// limit is refused before a byte is read, and a device or pipe (`/dev/zero`, `/dev/urandom`), whose
/// size is unknown, is read only until one byte past the limit.
///
/// Foundation's `Data(contentsOf:)` on `/dev/zero` grows without bound, and on Linux reports other
/// special files as "You don't have permission"; this says what the file is.
///
/// ```swift
/// let data = try BoundedFileReader.read("report.json", limit: 16 << 20, purpose: "a report spec")
/// // "/dev/zero: more than 16 MiB, the limit for a report spec (it is a character device)"
/// ```
package enum BoundedFileReader {
  /// Why a file was not read.
  package enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The system refused (no such file, permission denied, a directory, …).
    case cannotRead(FileErrorDescription)
    /// The file holds more than `limit` bytes: `size` when the file system says so, nil when it was
    /// read up to the limit and went on (a device or a pipe).
    case tooLarge(path: String, size: Int?, limit: Int, purpose: String, kind: String?)
    /// The path is a device, a pipe or a socket where a regular file is needed.
    case notRegularFile(path: String, kind: String)

    /// The file the failure is about.
    package var path: String {
      switch self {
      case .cannotRead(let failure): return failure.path
      case .tooLarge(let path, _, _, _, _), .notRegularFile(let path, _): return path
      }
    }

    /// What is wrong, without the path: "no such file or directory", "more than 16 MiB, the limit
    /// for a report spec (it is a character device)".
    package var reason: String {
      switch self {
      case .cannotRead(let failure):
        return failure.reason
      case .tooLarge(_, let size, let limit, let purpose, let kind):
        // The exact size: "16.0 MiB, over 16 MiB" would hide a file one byte too large.
        let amount = size.map { "\($0) bytes, over" } ?? "more than"
        let what = kind.map { " (it is \($0))" } ?? ""
        return "\(amount) \(BoundedFileReader.bytes(limit)), the limit for \(purpose)\(what)"
      case .notRegularFile(_, let kind):
        return "not a regular file (it is \(kind))"
      }
    }

    /// A message a person can act on: "path: cannot read: reason" for a refusal by the system,
    /// "path: reason" otherwise.
    package var description: String {
      if case .cannotRead(let failure) = self { return failure.description }
      return "\(path): \(reason)"
    }
  }

  /// The bytes of `path`, at most `limit` of them.
  ///
  /// - Parameters:
  ///   - limit: the most bytes accepted; a larger file is refused (see ``Failure/tooLarge(path:size:limit:purpose:kind:)``).
  ///   - purpose: what the file is for, in the message: "a report spec".
  ///   - regularFileOnly: refuse devices, pipes and sockets outright (an image or a font is never one).
  package static func read(
    _ path: String, limit: Int, purpose: String, regularFileOnly: Bool = false
  ) throws(Failure) -> Data {
    let limit = max(0, limit)
    // O_NONBLOCK: opening a FIFO with no writer must not hang; it is cleared before reading.
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else {
      throw .cannotRead(FileErrorDescription(path: path, operation: "cannot read", errno: errno))
    }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else {
      throw .cannotRead(FileErrorDescription(path: path, operation: "cannot read", errno: errno))
    }
    let type = info.st_mode & S_IFMT
    if type == S_IFDIR {
      throw .cannotRead(FileErrorDescription(path: path, operation: "cannot read", errno: EISDIR))
    }
    let kind = type == S_IFREG ? nil : Self.kind(of: type)
    if let kind, regularFileOnly { throw .notRegularFile(path: path, kind: kind) }
    if kind == nil, Int(info.st_size) > limit {
      throw .tooLarge(path: path, size: Int(info.st_size), limit: limit, purpose: purpose, kind: nil)
    }
    let flags = fcntl(descriptor, F_GETFL)
    if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
    // A regular file may still grow while it is read: every read is bounded by the limit too.
    var data = Data(capacity: kind == nil ? Int(info.st_size) : min(limit, 1 << 16))
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let wanted = min(chunk.count, limit + 1 - data.count)
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, wanted) }
      if count < 0 {
        if errno == EINTR { continue }
        throw .cannotRead(FileErrorDescription(path: path, operation: "cannot read", errno: errno))
      }
      if count == 0 { return data }
      data.append(contentsOf: chunk[0..<count])
      if data.count > limit {
        throw .tooLarge(path: path, size: nil, limit: limit, purpose: purpose, kind: kind)
      }
    }
  }

  /// What a file of type `type` (`st_mode & S_IFMT`) is, in words.
  package static func kind(of type: mode_t) -> String {
    switch type {
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFIFO: return "a pipe"
    case S_IFSOCK: return "a socket"
    case S_IFDIR: return "a directory"
    case S_IFLNK: return "a symbolic link"
    default: return "not a regular file"
    }
  }

  /// `16 MiB`, `512 KiB`, `300 bytes`: a byte count as a limit is written.
  package static func bytes(_ count: Int) -> String {
    if count >= 1 << 20, count % (1 << 20) == 0 { return "\(count >> 20) MiB" }
    if count >= 1 << 20 { return String(format: "%.1f MiB", Double(count) / Double(1 << 20)) }
    if count >= 1 << 10, count % (1 << 10) == 0 { return "\(count >> 10) KiB" }
    return count == 1 ? "1 byte" : "\(count) bytes"
  }
}
