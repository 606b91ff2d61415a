import Foundation

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
