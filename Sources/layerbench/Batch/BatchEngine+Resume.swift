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
    _ previous: ManifestRecord, as record: ManifestRecord, file: String, content: TextContent,
    in directory: OutputDirectory
  ) -> Bool {
    guard previous.succeeded, previous.tar == nil, previous.id == record.id, previous.input == record.input,
      previous.file == file, let bytes = previous.bytes, let data = directory.contents(of: file, expectedSize: bytes)
    else { return false }
    // A markup tile recorded before records had their text: render it again for its label.
    if previous.text == nil, case .markup = content { return false }
    if configuration.boxes {
      guard previous.boxes == record.id.map({ $0 + ".json" }), let name = previous.boxes,
        let boxesBytes = previous.boxesBytes, let boxes = directory.contents(of: name, expectedSize: boxesBytes),
        SHA256.hex(boxes) == previous.boxesSha256
      else { return false }
    }
    return SHA256.hex(data) == previous.sha256
  }

  /// The previous run's tile when its record still describes its members in its tar file
  /// (`--output webdataset`): their bytes, checked against the recorded sizes and SHA-256, for the
  /// tar writer, which keeps the file when every tile is in its place, or copies them into a new one.
  func reusableMember(
    _ previous: ManifestRecord, as record: ManifestRecord, file: String, content: TextContent,
    in directory: OutputDirectory
  ) -> TarShardWriter.Payload? {
    guard previous.succeeded, previous.id == record.id, previous.input == record.input, previous.file == file,
      let tar = previous.tar, let offset = previous.offset, let bytes = previous.bytes, bytes >= 0,
      offset >= 0, offset <= Int.max - bytes,
      let image = directory.contents(of: tar, range: offset..<offset + bytes), SHA256.hex(image) == previous.sha256
    else { return nil }
    if previous.text == nil, case .markup = content { return nil }
    var payload = TarShardWriter.Payload(image: image, previousTar: tar, previousOffset: offset)
    if configuration.boxes {
      guard previous.boxes == record.id.map({ $0 + ".json" }), let boxesOffset = previous.boxesOffset,
        let boxesBytes = previous.boxesBytes, boxesBytes >= 0, boxesOffset >= 0, boxesOffset <= Int.max - boxesBytes,
        let boxes = directory.contents(of: tar, range: boxesOffset..<boxesOffset + boxesBytes),
        SHA256.hex(boxes) == previous.boxesSha256
      else { return nil }
      payload.sidecar = boxes
    } else if previous.boxes != nil {
      return nil
    }
    return payload
  }

  /// A kept record with its text: a record from before records had their text takes it from the
  /// plain content (markup ones are rendered again, see `isReusable`).
  static func labelled(_ previous: ManifestRecord, content: TextContent) -> ManifestRecord {
    guard previous.text == nil, case .plain(let text) = content else { return previous }
    var record = previous
    // As the layout has it: a NUL is laid out (and drawn) as U+FFFD.
    record.text = text.contains("\u{0}") ? text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : text
    return record
  }
}
