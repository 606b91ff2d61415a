import AsyncLayer
import Foundation

/// Reads a file line by line in fixed-size chunks: memory stays at one chunk plus the longest line,
/// and a line longer than `maxLineBytes` is skipped (reported as too long) rather than buffered. A
/// line still without its newline `skipLimit` bytes past `maxLineBytes` ends the reading with an
/// error: `/dev/zero`, or any file that is not lines of text, is refused in well under a second
/// instead of being read for ever.
final class LineReader {
  struct Line {
    /// 1-based, counting every line, blank ones included.
    var number: Int
    var bytes: Data
    var isTooLong: Bool
  }

  private let path: String
  private let handle: FileHandle
  private let maxLineBytes: Int
  private let chunkSize: Int
  private var buffer = Data()
  private var start = 0
  private var atEnd = false
  private(set) var lineCount = 0
  /// Bytes of the file consumed so far (for progress).
  private(set) var consumed = 0

  /// Bytes of a too-long line read past `maxLineBytes` before the file is taken for one that is not lines.
  static let skipLimit = 64 << 20

  init(path: String, maxLineBytes: Int = 1 << 20, chunkSize: Int = 1 << 16) throws {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw BatchError(FileErrorDescription(path: path, operation: "cannot open for reading", errno: errno))
    }
    self.path = path
    self.handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
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
    var skipped = 0
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
        skipped += buffer.count - start
        consumed += buffer.count - start
        if skipped > maxLineBytes + Self.skipLimit {
          throw BatchError(
            "\(path): line \(lineCount + 1) has no end after \(skipped >> 20) MiB (lines are at most \(maxLineBytes) "
              + "bytes, --max-line-bytes): this is not a file of text lines")
        }
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
        throw BatchError(FileErrorDescription(path: path, operation: "cannot read", error: error))
      }
      if chunk.isEmpty { atEnd = true } else { buffer.append(chunk) }
    }
  }
}
