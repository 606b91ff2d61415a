public import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A directory of encoded image bytes with a byte budget, safe to use from any thread.
///
/// - Each entry is one file named after the SHA-256 of the whole URL (so `a/x.png` and `b/x.png`
///   never collide), holding a 16-byte header — magic, payload length, CRC-32 of the payload — then the
///   bytes. A file whose header, length or checksum does not match is deleted and reported as a miss.
/// - Files are written to a temporary name and renamed into place, so a reader (or a crash) never
///   leaves a half-written entry under a real name.
/// - When the total passes the budget, the least recently used entries go first. A hit refreshes the
///   file's modification time, and a new instance on the same directory rebuilds the order from those
///   times, so the cache survives a restart.
///
/// ```swift
/// let disk = try ImageDiskCache(directory: cachesURL.appendingPathComponent("images"), byteLimit: 100 << 20)
/// disk.store(data, for: url)
/// disk.data(for: url)  // the bytes, checked
/// ```
public final class ImageDiskCache: Sendable {
  /// The directory holding the entries.
  public let directory: URL
  /// The budget in bytes (headers included).
  public let byteLimit: Int
  /// File name → (no value): recency and sizes. File renames and deletions happen under this lock so
  /// the index and the directory change together; the slow part (writing a temporary file) does not.
  private let index: Mutex<LRUIndex<String, Void>>

  /// "ALI1": AsyncLayer image cache, format 1.
  static let magic: [UInt8] = [0x41, 0x4c, 0x49, 0x31]
  /// magic (4) + payload length (UInt64 little-endian) + CRC-32 of the payload (UInt32 little-endian).
  static let headerSize = 16
  private static let temporaryPrefix = ".tmp-"

  /// Opens (creating if needed) the cache in `directory`, indexing the entries already there and
  /// evicting down to `byteLimit`. Throws ``RenderError/io(path:reason:)`` if the directory cannot be made.
  public init(directory: URL, byteLimit: Int) throws {
    self.directory = directory
    self.byteLimit = max(0, byteLimit)
    let fileManager = FileManager.default
    do {
      try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
    } catch {
      throw RenderError.io(path: directory.path, reason: "cannot create cache directory: \(error)")
    }
    var found: [(name: String, size: Int, modified: Date)] = []
    let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
    let files = (try? fileManager.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)) ?? []
    for file in files {
      let name = file.lastPathComponent
      if name.hasPrefix(Self.temporaryPrefix) {
        // Left behind by a writer that died between write and rename.
        try? fileManager.removeItem(at: file)
        continue
      }
      guard Self.isEntryName(name), let values = try? file.resourceValues(forKeys: Set(keys)) else { continue }
      found.append((name, values.fileSize ?? 0, values.contentModificationDate ?? .distantPast))
    }
    found.sort { ($0.modified, $0.name) < ($1.modified, $1.name) }
    var index = LRUIndex<String, Void>()
    for entry in found { index.insert((), cost: entry.size, for: entry.name) }
    for victim in index.evict(toFit: self.byteLimit) {
      unlink(directory.appendingPathComponent(victim.key).path)
    }
    self.index = Mutex(index)
  }

  private static func isEntryName(_ name: String) -> Bool {
    name.utf8.count == 64 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }

  /// The file that holds (or would hold) the entry for `url`.
  package func fileURL(for url: URL) -> URL {
    directory.appendingPathComponent(SHA256.hexDigest(url.absoluteString))
  }

  /// The stored bytes for `url`, or `nil` on a miss. A damaged entry is deleted and counts as a miss.
  public func data(for url: URL) -> Data? {
    let file = fileURL(for: url)
    let name = file.lastPathComponent
    guard index.withLock({ $0.touch(name) }) != nil else { return nil }
    guard let contents = try? Data(contentsOf: file), let payload = Self.payload(of: contents) else {
      remove(name: name)
      return nil
    }
    // Persist the recency for the next instance; failure only costs ordering accuracy.
    try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
    return payload
  }

  /// Stores `data` for `url`, replacing any previous entry, then evicts least recently used entries
  /// until within budget. Returns `false` if the entry alone exceeds the budget or cannot be written.
  @discardableResult
  public func store(_ data: Data, for url: URL) -> Bool {
    let file = fileURL(for: url)
    let size = Self.headerSize + data.count
    guard size <= byteLimit else { return false }
    let temporary = directory.appendingPathComponent(Self.temporaryPrefix + UUID().uuidString)
    do {
      try (Self.header(for: data) + data).write(to: temporary)
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      return false
    }
    let name = file.lastPathComponent
    return index.withLock { index in
      guard rename(temporary.path, file.path) == 0 else {
        unlink(temporary.path)
        return false
      }
      index.insert((), cost: size, for: name)
      for victim in index.evict(toFit: byteLimit) {
        unlink(directory.appendingPathComponent(victim.key).path)
      }
      return true
    }
  }

  /// Deletes the entry for `url`.
  public func removeData(for url: URL) {
    remove(name: fileURL(for: url).lastPathComponent)
  }

  /// Deletes every entry.
  public func removeAll() {
    index.withLock { index in
      for name in index.keysByRecency { unlink(directory.appendingPathComponent(name).path) }
      index.removeAll()
    }
  }

  /// The bytes the entries occupy (headers included; always `<= byteLimit`).
  public var totalBytes: Int { index.withLock { $0.totalCost } }

  /// The number of entries.
  public var count: Int { index.withLock { $0.count } }

  private func remove(name: String) {
    index.withLock { index in
      index.remove(name)
      unlink(directory.appendingPathComponent(name).path)
    }
  }

  // MARK: File format

  static func header(for payload: Data) -> Data {
    var header = Data(magic)
    withUnsafeBytes(of: UInt64(payload.count).littleEndian) { header.append(contentsOf: $0) }
    withUnsafeBytes(of: crc32(payload).littleEndian) { header.append(contentsOf: $0) }
    return header
  }

  /// The payload of a cache file, or `nil` if the magic, the length or the checksum is wrong.
  static func payload(of file: Data) -> Data? {
    guard file.count >= headerSize, file.starts(with: magic) else { return nil }
    let bytes = [UInt8](file.prefix(headerSize))
    let length = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[4 + $1]) << (8 * UInt64($1)) }
    let checksum = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[12 + $1]) << (8 * UInt32($1)) }
    guard length == UInt64(file.count - headerSize) else { return nil }
    let payload = file.dropFirst(headerSize)
    guard crc32(payload) == checksum else { return nil }
    return Data(payload)
  }
}
