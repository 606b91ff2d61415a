import AsyncLayer
import Foundation

/// A batch's output directory, open once: PNGs are written and renamed relative to its descriptor
/// (`openat`, `renameat`), so no path is built or resolved per file.
///
/// Each PNG is written to a temporary file, `.<file>.<tag>.<worker>.tmp`, then renamed into place.
/// The tag names the shard (`s3of16`, or `all`), so that a run removing a killed run's leftovers
/// never touches the files another shard, writing into the same directory, has in flight.
final class OutputDirectory: Sendable {
  /// The directory's descriptor; closed once, in `deinit`.
  let descriptor: Int32
  let path: String
  let temporaryTag: String

  init(path: String, temporaryTag: String) throws {
    let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw BatchError(FileErrorDescription(path: path, operation: "cannot open", errno: errno))
    }
    self.descriptor = descriptor
    self.path = path
    self.temporaryTag = temporaryTag
  }

  deinit { close(descriptor) }

  /// The temporary name `worker` writes `file` under before renaming it.
  func temporaryName(for file: String, worker: Int) -> String { ".\(file).\(temporaryTag).\(worker).tmp" }

  /// Whether `name` is a temporary file of this tag: `.<something>.<tag>.<digits>.tmp`.
  func isTemporary(_ name: String) -> Bool {
    guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return false }
    let stem = name.dropLast(4)
    guard let dot = stem.lastIndex(of: ".") else { return false }
    let worker = stem[stem.index(after: dot)...]
    guard !worker.isEmpty, worker.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
    return stem[..<dot].hasSuffix(".\(temporaryTag)") && stem[..<dot].count > temporaryTag.count + 2
  }

  /// Removes the temporary files a killed run with this tag left (only regular files named by
  /// `temporaryName`); returns how many.
  func removeTemporaryFiles() -> Int {
    let listing = dup(descriptor)
    guard listing >= 0, let stream = fdopendir(listing) else {
      if listing >= 0 { close(listing) }
      return 0
    }
    defer { closedir(stream) }
    var removed = 0
    while let entry = readdir(stream) {
      // Only names starting with "." can be ours: skip the (millions of) PNGs without making a String.
      let isDotFile = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
      guard isDotFile, entry.pointee.d_type == DT_REG || entry.pointee.d_type == DT_UNKNOWN else { continue }
      let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
        String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      guard isTemporary(name) else { continue }
      var info = stat()
      guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
        continue
      }
      if unlinkat(descriptor, name, 0) == 0 { removed += 1 }
    }
    return removed
  }

  /// Writes `data` as `name` in one piece: a temporary file, then a rename over `name`.
  func writeAtomically(_ data: Data, named name: String, worker: Int) throws {
    let temporary = temporaryName(for: name, worker: worker)
    let fd = openat(descriptor, temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      throw BatchError(FileErrorDescription(path: "\(path)/\(temporary)", operation: "cannot create", errno: errno))
    }
    do {
      try BatchFiles.writeAll(fd, data, path: "\(path)/\(temporary)")
    } catch {
      close(fd)
      unlinkat(descriptor, temporary, 0)
      throw error
    }
    let closed = close(fd) == 0 ? 0 : errno
    guard closed == 0, renameat(descriptor, temporary, descriptor, name) == 0 else {
      let failure = FileErrorDescription(
        path: "\(path)/\(name)", operation: "cannot write", errno: closed != 0 ? closed : errno)
      unlinkat(descriptor, temporary, 0)
      throw BatchError(failure)
    }
  }

  /// The bytes of `name` when it is a regular file of exactly `expectedSize` bytes, else nil.
  func contents(of name: String, expectedSize: Int) -> Data? {
    guard expectedSize >= 0, expectedSize < 1 << 31 else { return nil }
    let fd = openat(descriptor, name, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == expectedSize else {
      return nil
    }
    var data = Data(count: expectedSize)
    let complete = data.withUnsafeMutableBytes { buffer -> Bool in
      var offset = 0
      while offset < expectedSize {
        let count = read(fd, buffer.baseAddress! + offset, expectedSize - offset)
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return false }
        offset += count
      }
      return true
    }
    return complete ? data : nil
  }

  /// `range` of the regular file `name` (a member of a tar file), or nil when the file is missing,
  /// not regular, or shorter.
  func contents(of name: String, range: Range<Int>) -> Data? {
    guard range.lowerBound >= 0, range.count < 1 << 31 else { return nil }
    let fd = openat(descriptor, name, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) >= range.upperBound else {
      return nil
    }
    var data = Data(count: range.count)
    let complete = data.withUnsafeMutableBytes { buffer -> Bool in
      var offset = 0
      while offset < range.count {
        let count = pread(fd, buffer.baseAddress! + offset, range.count - offset, off_t(range.lowerBound + offset))
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return false }
        offset += count
      }
      return true
    }
    return complete ? data : nil
  }
}
