import AsyncLayer
import Foundation
import Synchronization

/// A batch's output directory, open once: files are created, linked and renamed relative to its descriptor
/// (`openat`, `linkat`, `renameat`), so no path is built or resolved per file.
///
/// Each file appears under its name only whole. Where the file system has them (Linux's `O_TMPFILE`:
/// ext4, xfs, btrfs, tmpfs), a file is written as an unnamed inode of the directory and given its name
/// by `linkat` once written: no temporary name to create, rename and remove (two of the directory
/// operations a tile cost), and nothing left behind when the process is killed (the kernel frees an
/// unnamed inode with its last descriptor). The link is `linkat(fd, "", AT_EMPTY_PATH)` where the kernel
/// allows it for a file this process opened (Linux 6.10 and later), else through `/proc/self/fd`. A name
/// that already exists (a tile rendered again) is replaced by linking the file under its temporary name
/// and renaming that over it. Elsewhere, each
/// file is written to a temporary file, `.<file>.<tag>.<worker>.tmp`, then renamed into place.
/// The tag names the shard (`s3of16`, or `all`), so that a run removing a killed run's leftovers
/// never touches the files another shard, writing into the same directory, has in flight.
final class OutputDirectory: Sendable {
  /// The directory's descriptor; closed once, in `deinit`.
  let descriptor: Int32
  let path: String
  let temporaryTag: String
  /// Whether unnamed files work here: 0 not tried yet, 1 yes, 2 no (the first failure turns them off).
  private let unnamedFiles = Atomic<UInt8>(0)
  /// Whether `linkat` takes an unnamed file by its descriptor (`AT_EMPTY_PATH`): 0 not tried yet, 1 yes,
  /// 2 no (links go through `/proc/self/fd` from the first refusal on).
  private let descriptorLinks = Atomic<UInt8>(0)

  /// `linksThroughProc` skips links by descriptor (tests use it to cover the older kernels' way).
  init(path: String, temporaryTag: String, linksThroughProc: Bool = false) throws {
    let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw BatchError(FileErrorDescription(path: path, operation: "cannot open", errno: errno))
    }
    self.descriptor = descriptor
    self.path = path
    self.temporaryTag = temporaryTag
    if linksThroughProc { descriptorLinks.store(2, ordering: .relaxed) }
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

  /// Writes `data` as `name` in one piece: an unnamed file linked as `name` once written, or a
  /// temporary file renamed over `name`.
  func writeAtomically(_ data: Data, named name: String, worker: Int) throws {
    if unnamedFiles.load(ordering: .relaxed) != 2, try writeUnnamed(data, named: name, worker: worker) { return }
    try writeThroughTemporaryName(data, named: name, worker: worker)
  }

  #if os(Linux) && (arch(x86_64) || arch(arm64))
    /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`), which Glibc's module does not export (it needs
    /// `_GNU_SOURCE`); `__O_TMPFILE` is 0o20000000 on x86-64 and arm64.
    private static let openUnnamed: Int32? = 0o20000000 | O_DIRECTORY
    /// `AT_EMPTY_PATH`, which Glibc's module does not export either (it needs `_GNU_SOURCE`).
    private static let linkByDescriptor: Int32? = 0x1000
  #else
    private static let openUnnamed: Int32? = nil
    private static let linkByDescriptor: Int32? = nil
  #endif

  /// Gives the unnamed file `fd` the name `name` in this directory; 0, or the `errno` of the failure.
  ///
  /// By the descriptor itself where the kernel allows it (Linux 6.10 and later, for a file opened with
  /// the caller's credentials): no path walk through `/proc/self/fd/N`. On tmpfs a file then costs
  /// 19.8 µs of kernel time instead of 24.2 (medians of 5 interleaved rounds of 4,000 files, 2026-11-27,
  /// bench/file-create-cost.sh); on ext4, where a file costs ~50 µs, the difference is within the
  /// rounds' spread. Older kernels refuse it without CAP_DAC_READ_SEARCH (ENOENT); the first refusal
  /// sends every later link through /proc, which open(2) documents for `O_TMPFILE`.
  private func link(_ fd: Int32, as name: String) -> Int32 {
    if let flag = Self.linkByDescriptor, descriptorLinks.load(ordering: .relaxed) != 2 {
      if linkat(fd, "", descriptor, name, flag) == 0 {
        descriptorLinks.store(1, ordering: .relaxed)
        return 0
      }
      let failure = errno
      // Once links by descriptor worked, a failure is the link's own (EEXIST, ENOSPC…), not a refusal.
      guard descriptorLinks.load(ordering: .relaxed) == 0, failure == ENOENT || failure == EPERM else { return failure }
      descriptorLinks.store(2, ordering: .relaxed)
    }
    return linkat(AT_FDCWD, "/proc/self/fd/\(fd)", descriptor, name, AT_SYMLINK_FOLLOW) == 0 ? 0 : errno
  }

  /// Writes `data` into an unnamed file of the directory and links it as `name`. False when unnamed
  /// files do not work here (nothing was written: the caller takes the temporary name); throws when
  /// writing fails.
  private func writeUnnamed(_ data: Data, named name: String, worker: Int) throws -> Bool {
    guard let flags = Self.openUnnamed.map({ $0 | O_WRONLY | O_CLOEXEC }) else { return false }
    let fd = openat(descriptor, ".", flags, 0o644)
    guard fd >= 0 else {
      // EOPNOTSUPP (NFS, overlayfs on old kernels), EISDIR (a kernel without O_TMPFILE), or any other
      // reason: the temporary name, which reports a real error in its own words.
      unnamedFiles.store(2, ordering: .relaxed)
      return false
    }
    var linked = false
    defer {
      // Before the link an unnamed file vanishes with its descriptor; after it, a failed close
      // means the data may not be whole: the name goes too.
      if close(fd) != 0, linked { unlinkat(descriptor, name, 0) }
    }
    try BatchFiles.writeAll(fd, data, path: "\(path)/\(name)")
    let failure = link(fd, as: name)
    if failure == 0 {
      linked = true
      unnamedFiles.store(1, ordering: .relaxed)
      return true
    }
    if failure == EEXIST {
      // A file of that name is there (a tile rendered again): replace it in one step, as a rename does.
      let temporary = temporaryName(for: name, worker: worker)
      unlinkat(descriptor, temporary, 0)
      let linkFailure = link(fd, as: temporary)
      guard linkFailure == 0 else {
        throw BatchError(
          FileErrorDescription(path: "\(path)/\(temporary)", operation: "cannot create", errno: linkFailure))
      }
      guard renameat(descriptor, temporary, descriptor, name) == 0 else {
        let failure = FileErrorDescription(path: "\(path)/\(name)", operation: "cannot write", errno: errno)
        unlinkat(descriptor, temporary, 0)
        throw BatchError(failure)
      }
      linked = true
      return true
    }
    if unnamedFiles.load(ordering: .relaxed) == 1 {
      // Unnamed files worked here before: this is a real error (no space, a read-only remount…).
      throw BatchError(FileErrorDescription(path: "\(path)/\(name)", operation: "cannot write", errno: failure))
    }
    // The first link failed (no /proc mounted, a file system that refuses it): temporary names from now on.
    unnamedFiles.store(2, ordering: .relaxed)
    return false
  }

  /// Writes `data` as `name` in one piece: a temporary file, then a rename over `name`.
  private func writeThroughTemporaryName(_ data: Data, named name: String, worker: Int) throws {
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
