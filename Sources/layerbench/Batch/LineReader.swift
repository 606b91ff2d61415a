import Foundation

/// One line of a batch manifest: a tile written, or a line that failed.
///
/// Successful records have `id`, `file`, `width`, `height`, `lines`, `unknownGlyphs`, `bytes`,
/// `sha256` and `ms`; failed ones have `error` (and `id` when the line got that far). `input` is a
/// hash of the input line and the command-line defaults: resume re-renders a tile when it changed.
struct ManifestRecord: Codable, Sendable, Equatable {
  var line: Int
  var id: String?
  var file: String?
  var width: Int?
  var height: Int?
  var lines: Int?
  var unknownGlyphs: Int?
  var bytes: Int?
  var sha256: String?
  var ms: Double?
  var input: String?
  var error: String?

  var succeeded: Bool { error == nil && file != nil && sha256 != nil && bytes != nil }

  /// The record as one JSON line, newline included: keys sorted, fields that are nil left out (as
  /// `JSONEncoder` with `.sortedKeys` writes it, at a fraction of the cost: bytes appended in place).
  func jsonLine() -> Data {
    var out: [UInt8] = []
    out.reserveCapacity(320)
    out.append(UInt8(ascii: "{"))
    func key(_ name: StaticString) {
      if out.count > 1 { out.append(UInt8(ascii: ",")) }
      out.append(UInt8(ascii: "\""))
      out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
      out.append(contentsOf: "\":".utf8)
    }
    func int(_ name: StaticString, _ value: Int?) {
      guard let value else { return }
      key(name)
      out.append(contentsOf: String(value).utf8)
    }
    func string(_ name: StaticString, _ value: String?) {
      guard let value else { return }
      key(name)
      Self.appendQuoted(value, to: &out)
    }
    int("bytes", bytes)
    string("error", error)
    string("file", file)
    int("height", height)
    string("id", id)
    string("input", input)
    int("line", line)
    int("lines", lines)
    if let ms, ms.isFinite {
      key("ms")
      out.append(contentsOf: "\(ms)".utf8)
    }
    string("sha256", sha256)
    int("unknownGlyphs", unknownGlyphs)
    int("width", width)
    out.append(contentsOf: "}\n".utf8)
    return Data(out)
  }

  /// `value` as a JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
  static func appendQuoted(_ value: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
      case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
      case 0x0a: out.append(contentsOf: "\\n".utf8)
      case 0x0d: out.append(contentsOf: "\\r".utf8)
      case 0x09: out.append(contentsOf: "\\t".utf8)
      case 0..<0x20, 0x7f:
        let hex = Array("0123456789abcdef".utf8)
        out.append(contentsOf: "\\u00".utf8)
        out.append(hex[Int(byte >> 4)])
        out.append(hex[Int(byte & 0xf)])
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
  }

  static func parse(_ line: Data) -> ManifestRecord? {
    try? JSONDecoder().decode(ManifestRecord.self, from: line)
  }
}

/// Reads a file line by line in fixed-size chunks: memory stays at one chunk plus the longest line,
/// and a line longer than `maxLineBytes` is skipped (reported as too long) rather than buffered.
final class LineReader {
  struct Line {
    /// 1-based, counting every line, blank ones included.
    var number: Int
    var bytes: Data
    var isTooLong: Bool
  }

  private let handle: FileHandle
  private let maxLineBytes: Int
  private let chunkSize: Int
  private var buffer = Data()
  private var start = 0
  private var atEnd = false
  private(set) var lineCount = 0
  /// Bytes of the file consumed so far (for progress).
  private(set) var consumed = 0

  init(path: String, maxLineBytes: Int = 1 << 20, chunkSize: Int = 1 << 16) throws {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw BatchError("\(path): cannot open for reading")
    }
    self.handle = handle
    self.maxLineBytes = maxLineBytes
    self.chunkSize = chunkSize
  }

  deinit { try? handle.close() }

  /// The index of the next "\n" in the buffer from `start` (memchr: a line is found in one pass).
  private func nextNewline() -> Int? {
    buffer.withUnsafeBytes { raw -> Int? in
      guard start < raw.count, let base = raw.baseAddress,
        let found = memchr(base + start, 0x0a, raw.count - start)
      else { return nil }
      return base.distance(to: UnsafeRawPointer(found))
    }
  }

  /// A line's bytes; the first line loses a UTF-8 byte-order mark (editors on Windows write one).
  private func lineBytes(_ bytes: Data) -> Data {
    if lineCount == 0, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return Data(bytes.dropFirst(3)) }
    return Data(bytes)
  }

  func next() throws -> Line? {
    var tooLong = false
    while true {
      if let newline = nextNewline() {
        let bytes = tooLong ? Data() : lineBytes(buffer[start..<newline])
        consumed += newline + 1 - start
        start = newline + 1
        lineCount += 1
        return Line(number: lineCount, bytes: bytes, isTooLong: tooLong || bytes.count > maxLineBytes)
      }
      if atEnd {
        guard start < buffer.count || tooLong else { return nil }
        let bytes = tooLong ? Data() : lineBytes(buffer[start...])
        consumed += buffer.count - start
        buffer = Data()
        start = 0
        lineCount += 1
        return Line(number: lineCount, bytes: bytes, isTooLong: tooLong || bytes.count > maxLineBytes)
      }
      if buffer.count - start > maxLineBytes {
        // The line will not fit: drop what is buffered and keep reading up to its newline.
        tooLong = true
        consumed += buffer.count - start
        buffer = Data()
        start = 0
      }
      if start > 0 {
        buffer = Data(buffer[start...])
        start = 0
      }
      let chunk: Data
      do {
        chunk = try handle.read(upToCount: chunkSize) ?? Data()
      } catch {
        throw BatchError("cannot read input: \((error as NSError).localizedDescription)")
      }
      if chunk.isEmpty { atEnd = true } else { buffer.append(chunk) }
    }
  }
}

/// Reads a manifest's records in file order, skipping lines that do not parse (a line cut short by
/// a kill), with a cursor for the line-ordered merge that resume does.
final class ManifestReader {
  private let lines: LineReader
  private var current: ManifestRecord?
  private var started = false

  init(path: String) throws {
    lines = try LineReader(path: path, maxLineBytes: 1 << 22)
  }

  func next() throws -> ManifestRecord? {
    while let line = try lines.next() {
      if line.isTooLong { continue }
      if let record = ManifestRecord.parse(line.bytes) { return record }
    }
    return nil
  }

  /// The record for `line`, when the manifest holds one; records for earlier lines are passed over.
  /// Calls must come in increasing line order.
  func record(forLine line: Int) throws -> ManifestRecord? {
    if !started {
      current = try next()
      started = true
    }
    while let record = current, record.line < line { current = try next() }
    guard let record = current, record.line == line else { return nil }
    return record
  }
}

struct BatchError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Small POSIX file helpers.
enum BatchFiles {
  static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

  static func writeAll(_ fd: Int32, _ data: Data, path: String) throws {
    try data.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let written = Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          throw BatchError("\(path): cannot write: \(String(cString: strerror(errno)))")
        }
        offset += written
      }
    }
  }
}
