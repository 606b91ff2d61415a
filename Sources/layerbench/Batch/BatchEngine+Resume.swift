import AsyncLayer
import Foundation

/// Resume: the previous run's manifest is moved aside, and its tiles are kept when they still match.
extension BatchEngine {
  /// Moves the previous run's manifest aside as `<manifest>.resume` (merging it with an older one
  /// that an interrupted resume left) and returns a reader over it; nil for a fresh start.
  func prepareManifest() throws -> ManifestReader? {
    let current = manifestPath
    let resume = current + ".resume"
    guard configuration.resume else {
      unlink(resume)
      return nil
    }
    switch (BatchFiles.exists(current), BatchFiles.exists(resume)) {
    case (true, true):
      // An interrupted resume: `current` holds the lines it finished (a prefix, in input order),
      // `resume` the older records. Take the newer record of each line.
      let combined = current + ".combined"
      let fd = open(combined, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      guard fd >= 0 else {
        throw BatchError(FileErrorDescription(path: combined, operation: "cannot create", errno: errno))
      }
      defer { close(fd) }
      let newer = try ManifestReader(path: current)
      let older = try ManifestReader(path: resume)
      var a = try newer.next()
      var b = try older.next()
      while a != nil || b != nil {
        let record: ManifestRecord
        if let x = a, b == nil || x.line <= b!.line {
          if let y = b, y.line == x.line { b = try older.next() }
          record = x
          a = try newer.next()
        } else {
          record = b!
          b = try older.next()
        }
        try BatchFiles.writeAll(fd, record.jsonLine(), path: combined)
      }
      guard rename(combined, resume) == 0 else { throw BatchError("\(resume): cannot replace") }
      unlink(current)
    case (true, false):
      guard rename(current, resume) == 0 else { throw BatchError("\(current): cannot move aside for resume") }
    case (false, true), (false, false):
      break
    }
    return BatchFiles.exists(resume) ? try ManifestReader(path: resume) : nil
  }

  /// Whether the previous run's record for this line still describes the file on disk.
  func isReusable(
    _ previous: ManifestRecord, as record: ManifestRecord, file: String, in directory: OutputDirectory
  ) -> Bool {
    guard previous.succeeded, previous.id == record.id, previous.input == record.input, previous.file == file,
      let bytes = previous.bytes, let data = directory.contents(of: file, expectedSize: bytes)
    else { return false }
    return SHA256.hex(data) == previous.sha256
  }
}
