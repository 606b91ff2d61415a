import AsyncLayer
import Foundation

/// One writer per output folder: an advisory `flock` on `.layerbench.lock` in the folder, taken
/// before anything is written and held until the process ends (the kernel releases it when the
/// holder dies, however it dies, so a lock is never stale). The last holder removes the lock file
/// as it ends; a killed one leaves it, unlocked, for the next run to take.
///
/// A whole run (`batch`, `render --file`, `batch merge`) takes the folder's lock exclusively. A shard
/// takes it shared, so that the shards of one run write side by side, and takes its own part's lock
/// (`.layerbench.<I>-of-<N>.lock`) exclusively: two processes never write one manifest part, and a
/// whole run never writes into a folder shards are writing. A refused run is told who holds the lock:
/// the process ids from `/proc/locks` and their command lines.
final class OutputLock {
  private var held: [(descriptor: Int32, path: String)] = []

  private init() {}

  /// Removes each lock file it can lock exclusively (no other holder is left), then lets go. A file
  /// is only removed under an exclusive lock, and `take` checks that the file it locked is still the
  /// one at the path: a process that locked a file just removed tries again on the new one.
  deinit {
    for (descriptor, path) in held.reversed() {
      if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { unlink(path) }
      close(descriptor)
    }
  }

  /// The lock file's name: a dot file, which `OutputDirectory`'s clean-up never matches.
  static let folderLockName = ".layerbench.lock"

  static func partLockName(_ shard: Shard) -> String { ".layerbench.\(shard.index)-of-\(shard.count).lock" }

  /// Takes `directory`'s lock for a whole run (`shard` nil) or for one shard, or throws naming the holder.
  static func acquire(directory: String, shard: Shard?) throws -> OutputLock {
    let lock = OutputLock()
    let folder = (directory as NSString).appendingPathComponent(folderLockName)
    if let shard {
      try lock.take(folder, exclusive: false) { holders in
        "\(directory) is being written by a whole run (\(holders)); shards can only share a folder with each other"
      }
      let part = (directory as NSString).appendingPathComponent(partLockName(shard))
      try lock.take(part, exclusive: true) { holders in
        "shard \(shard) of \(directory) is already being written (\(holders)); one writer per manifest part"
      }
    } else {
      try lock.take(folder, exclusive: true) { holders in
        "\(directory) is in use by another run (\(holders)); one writer per output folder: wait for it to "
          + "finish, or give another folder"
      }
    }
    return lock
  }

  private func take(_ path: String, exclusive: Bool, refusal: (String) -> String) throws {
    var descriptor: Int32 = -1
    while descriptor < 0 {
      descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
      guard descriptor >= 0 else {
        throw BatchError(FileErrorDescription(path: path, operation: "cannot create the lock file", errno: errno))
      }
      while flock(descriptor, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0 {
        let code = errno
        if code == EINTR { continue }
        close(descriptor)
        if code == EWOULDBLOCK { throw BatchError(refusal(Self.holders(of: path))) }
        throw BatchError(FileErrorDescription(path: path, operation: "cannot lock", errno: code))
      }
      // The last holder removes the file as it ends: if it did so between this open and this
      // lock, the lock is on a file no one else will open; take the one at the path now.
      var locked = stat()
      var current = stat()
      if fstat(descriptor, &locked) != 0 || stat(path, &current) != 0 || locked.st_ino != current.st_ino
        || locked.st_dev != current.st_dev
      {
        close(descriptor)
        descriptor = -1
      }
    }
    held.append((descriptor, path))
    if exclusive {
      // Who holds it, for a reader of the folder (and for `holders` where /proc/locks shows no pid).
      let text = "pid \(getpid()): \(Self.commandLine(of: getpid()) ?? "?")\n"
      ftruncate(descriptor, 0)
      _ = text.utf8CString.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count - 1, 0) }
    }
  }

  /// The processes holding a lock on `path`, as "pid 123: layerbench batch …".
  static func holders(of path: String) -> String {
    var info = stat()
    var pids: [Int32] = []
    if stat(path, &info) == 0, let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) {
      // "1: FLOCK  ADVISORY  WRITE 4242 00:2e:123456 0 EOF": the pid, then major:minor:inode.
      let suffix = ":\(info.st_ino)"
      for line in locks.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 6, fields[1] == "FLOCK", fields[5].hasSuffix(suffix), let pid = Int32(fields[4]),
          pid > 0, pid != getpid(), !pids.contains(pid)
        else { continue }
        pids.append(pid)
      }
    }
    if pids.isEmpty {
      // No pid visible (another pid namespace): what the holder wrote into the file, if anything.
      let written = (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").first
      return written.map { escaped(String($0), limit: 300) } ?? "a process this one cannot see"
    }
    return pids.prefix(4).map { pid in "pid \(pid): \(commandLine(of: pid) ?? "command line unreadable")" }
      .joined(separator: "; ") + (pids.count > 4 ? "; and \(pids.count - 4) more" : "")
  }

  /// `/proc/PID/cmdline` with spaces between the arguments, shortened and escaped.
  static func commandLine(of pid: Int32) -> String? {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else { return nil }
    let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    return escaped(arguments.joined(separator: " "), limit: 300)
  }

  /// `text` cut to `limit` characters, control characters shown as `\u{…}`.
  static func escaped(_ text: String, limit: Int) -> String {
    var out = ""
    for scalar in text.unicodeScalars.prefix(limit) {
      if scalar.value < 0x20 || (0x7f..<0xa0).contains(scalar.value) {
        out += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return text.unicodeScalars.count > limit ? out + "…" : out
  }
}
