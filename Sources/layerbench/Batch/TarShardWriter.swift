import AsyncLayer
import Foundation

/// Writes a batch's tiles into WebDataset tar files (`--output webdataset`), in input order, from the
/// commit step: `<id>.<png|jpg>`, `<id>.txt` (the label) and, with `--boxes`, `<id>.json` per tile,
/// `tilesPerTar` tiles a file, named `<prefix>-000000.tar`, `<prefix>-000001.tar`, ….
///
/// A tar file is written as `.<name>.<tag>.0.tmp` and renamed into place once its last tile is in and
/// the archive's end is written: a file under its real name is always a whole archive, and a killed
/// run's temporary file is removed by the next run (`OutputDirectory.removeTemporaryFiles`), whose
/// resume renders its tiles again. Writes go out in pieces of about 1 MiB: one `write` per ~150
/// tiles, instead of four system calls per tile for separate files.
///
/// A resumed run keeps a finished tar file without writing it again when every tile of it is the
/// previous run's, at the same place (same tar, same offset, checked against the recorded SHA-256
/// when the tile was reused), and the file's size is what the archive would have: the same tiles
/// give the same bytes (`TarArchive` writes deterministic headers). As soon as one tile differs, the
/// prefix already in place is copied from the old file into the new temporary file and writing goes
/// on from there.
///
/// Not thread-safe: the commit step calls it under its lock.
final class TarShardWriter {
  /// What the tar writer needs of a tile beyond its record.
  struct Payload: Sendable {
    var image: Data
    var sidecar: Data?
    /// Where the previous run had this tile (a kept tile): tar name and the image data's offset.
    var previousTar: String?
    var previousOffset: Int?
  }

  let directory: OutputDirectory
  let prefix: String
  let tilesPerTar: Int

  /// The tar being filled: its index, name, length so far and tiles in it.
  private var index = 0
  private var name: String?
  private var length = 0
  private var tiles = 0
  /// Whether every tile so far sits where the previous run's file has it (nothing written yet).
  private var inPlace = true
  private var fd: Int32 = -1
  private var buffer: [UInt8] = []
  private static let writeBytes = 1 << 20

  init(directory: OutputDirectory, prefix: String, tilesPerTar: Int) {
    self.directory = directory
    self.prefix = prefix
    self.tilesPerTar = tilesPerTar
  }

  deinit {
    if fd >= 0 { close(fd) }
  }

  /// The name of tar file `index`: `<prefix>-000042.tar`.
  func tarName(_ index: Int) -> String {
    let digits = String(index)
    return "\(prefix)-\(String(repeating: "0", count: max(0, 6 - digits.count)))\(digits).tar"
  }

  /// Whether a tar is being filled (its records must wait for `closeTar` before the manifest has them).
  var isOpen: Bool { name != nil }

  /// Appends a tile's members and fills in the record's `tar`, `offset` and `boxesOffset`. Returns
  /// true when this tile completed a tar file (renamed into place): the records up to here may go to
  /// the manifest.
  func append(_ record: inout ManifestRecord, _ payload: Payload) throws -> Bool {
    if name == nil { open() }
    guard let name, let file = record.file else { return false }
    record.tar = name
    record.offset = length + TarArchive.headerLength(name: file, size: payload.image.count)
    if inPlace, payload.previousTar != name || payload.previousOffset != record.offset {
      try leavePlace()
    }
    payload.image.withUnsafeBytes { append(member: file, $0) }
    if let id = record.id {
      // The label's bytes in place: `Data(text.utf8)` went through generic sequence code with
      // dynamic casts (~2,000 instructions a tile, callgrind).
      var text = record.text ?? ""
      text.withUTF8 { append(member: id + ".txt", UnsafeRawBufferPointer($0)) }
    }
    if let sidecar = payload.sidecar, let boxes = record.boxes {
      record.boxesOffset = length + TarArchive.headerLength(name: boxes, size: sidecar.count)
      sidecar.withUnsafeBytes { append(member: boxes, $0) }
    }
    tiles += 1
    if !inPlace, buffer.count >= Self.writeBytes { try flush() }
    if tiles >= tilesPerTar {
      try closeTar()
      return true
    }
    return false
  }

  /// Finishes the tar being filled (the run's last, or a Ctrl-C): its end blocks, then its rename.
  func closeTar() throws {
    guard let name else { return }
    defer {
      self.name = nil
      index += 1
    }
    let end = TarArchive.end(afterLength: length)
    if inPlace {
      // Kept: the old file must be exactly the archive these tiles make.
      var info = stat()
      if fstatat(directory.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG,
        Int(info.st_size) == length + end.count
      {
        return
      }
      try leavePlace()
    }
    buffer += end
    try flush()
    let temporary = directory.temporaryName(for: name, worker: 0)
    let closed = close(fd) == 0 ? 0 : errno
    fd = -1
    guard closed == 0, renameat(directory.descriptor, temporary, directory.descriptor, name) == 0 else {
      let failure = FileErrorDescription(
        path: "\(directory.path)/\(name)", operation: "cannot write", errno: closed != 0 ? closed : errno)
      unlinkat(directory.descriptor, temporary, 0)
      throw BatchError(failure)
    }
  }

  private func open() {
    name = tarName(index)
    length = 0
    tiles = 0
    inPlace = true
    buffer.removeAll(keepingCapacity: true)
  }

  private func append(member: String, _ data: UnsafeRawBufferPointer) {
    let before = buffer.count
    TarArchive.appendHeader(name: member, size: data.count, to: &buffer)
    buffer.append(contentsOf: data)
    TarArchive.appendPadding(after: data.count, to: &buffer)
    length += buffer.count - before
    if inPlace { buffer.removeAll(keepingCapacity: true) }
  }

  /// Starts the temporary file, with the `length` bytes so far copied from the old file (they were
  /// checked tile by tile when the tiles were kept).
  private func leavePlace() throws {
    guard inPlace, let name else { return }
    inPlace = false
    let temporary = directory.temporaryName(for: name, worker: 0)
    fd = openat(directory.descriptor, temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      throw BatchError(
        FileErrorDescription(path: "\(directory.path)/\(temporary)", operation: "cannot create", errno: errno))
    }
    guard length > 0 else { return }
    guard let prefix = directory.contents(of: name, range: 0..<length) else {
      throw BatchError("\(directory.path)/\(name): changed while this run read it (its tiles were checked)")
    }
    var pending = buffer
    buffer = [UInt8](prefix)
    buffer += pending
    pending.removeAll()
  }

  private func flush() throws {
    guard fd >= 0, !buffer.isEmpty, let name else { return }
    let path = "\(directory.path)/\(directory.temporaryName(for: name, worker: 0))"
    // Written from the buffer itself: no copy of every tile's bytes into a `Data` first.
    try buffer.withUnsafeBytes { try BatchFiles.writeAll(fd, $0, path: path) }
    buffer.removeAll(keepingCapacity: true)
  }
}
