import AsyncLayer
import Foundation

/// The labels file of a batch (`--labels NAME`): one line per tile written, `<file>\t<text>`, in
/// input order — the `gt.txt` of SynthTIGER and the recognition label file PaddleOCR and
/// deep-text-recognition-benchmark read (paths relative to the output folder).
///
/// Text is escaped so that each tile is one line and a line splits at its first tab: `\` → `\\`,
/// tab → `\t`, line feed → `\n`, carriage return → `\r`, and the other characters some readers
/// take as line ends or that a terminal acts on (U+0000–U+001F, U+007F–U+009F, U+2028, U+2029) →
/// `\uXXXX`, as in a JSON string. Text without them (nearly every line) is written as it is.
enum BatchLabels {
  /// The formats `--labels-format` takes.
  enum Format: String, CaseIterable, Sendable {
    /// `<file>\t<text>`: SynthTIGER's gt.txt, PaddleOCR's recognition labels,
    /// deep-text-recognition-benchmark's gt file.
    case tsv
  }

  /// The labels file a run writes: `name` itself, or for a shard `name` with `.INDEX-of-COUNT` before
  /// its extension (`gt.txt` → `gt.0-of-4.txt`), which `batch merge` joins.
  static func fileName(_ name: String, shard: Shard?) -> String {
    guard let shard else { return name }
    let ext = (name as NSString).pathExtension
    let stem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
    return "\(stem).\(shard.index)-of-\(shard.count)" + (ext.isEmpty ? "" : ".\(ext)")
  }

  /// Why `name` cannot be a labels file in the output folder, or nil.
  static func problem(withName name: String) -> String? {
    if name.isEmpty || name.hasPrefix(".") || name.contains("/") || name.utf8.count > 200 {
      return "--labels takes a file name in the output folder (no '/', not hidden, at most 200 bytes): got '\(name)'"
    }
    if name.hasPrefix("manifest.") { return "--labels '\(name)' would clash with the manifest's files" }
    return nil
  }

  /// One label line, newline included, or nil for a record without a file or a text.
  static func line(for record: ManifestRecord) -> Data? {
    var out: [UInt8] = []
    out.reserveCapacity((record.file?.utf8.count ?? 0) + (record.text?.utf8.count ?? 0) + 8)
    guard append(record, to: &out) else { return nil }
    return Data(out)
  }

  /// Appends the record's label line, newline included, to `out`; false (nothing appended) for a
  /// record without a file or a text.
  static func append(_ record: ManifestRecord, to out: inout [UInt8]) -> Bool {
    // No `reserveCapacity` here: on the writer's growing buffer it would reallocate to the exact
    // size line after line instead of doubling.
    guard record.error == nil, let file = record.file, let text = record.text else { return false }
    appendEscaped(file, to: &out)
    out.append(0x09)
    appendEscaped(text, to: &out)
    out.append(0x0a)
    return true
  }

  /// `value` escaped as the type's documentation says.
  static func appendEscaped(_ value: String, to out: inout [UInt8]) {
    // The usual line needs no escape: its bytes are copied after one pass that looks for the bytes
    // an escaped character can start with (below U+0020, `\`, U+007F; 0xC2 leads U+0080–U+00BF,
    // 0xE2 U+2000–U+2FFF): with none of them, no character needs one.
    var plain = value
    let copied = plain.withUTF8 { utf8 -> Bool in
      for byte in utf8 where byte < 0x20 || byte == 0x5c || byte == 0x7f || byte == 0xc2 || byte == 0xe2 {
        return false
      }
      out.append(contentsOf: utf8)
      return true
    }
    if copied { return }
    if !value.unicodeScalars.contains(where: needsEscape) {
      out.append(contentsOf: value.utf8)
      return
    }
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\\": out.append(contentsOf: #"\\"#.utf8)
      case "\t": out.append(contentsOf: #"\t"#.utf8)
      case "\n": out.append(contentsOf: #"\n"#.utf8)
      case "\r": out.append(contentsOf: #"\r"#.utf8)
      case _ where needsEscape(scalar):
        let hex = String(scalar.value, radix: 16)
        out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
      default: out.append(contentsOf: String(scalar).utf8)
      }
    }
  }

  private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0...0x1f, 0x5c, 0x7f...0x9f, 0x2028, 0x2029: true
    default: false
    }
  }
}

/// Appends label lines in input order (from the batch's commit step, one call at a time) in
/// writes of 32 KiB, to a file opened only once the run holds its folder's lock (so a refused run
/// never truncates another's labels).
final class LabelsWriter: Sendable {
  let path: String
  private struct State {
    var fd: Int32 = -1
    var buffer: [UInt8] = []
    var error: String?
  }
  private let state = ThreadSanitizedMutex(State())

  init(path: String) { self.path = path }

  deinit { state.withLock { if $0.fd >= 0 { close($0.fd) } } }

  /// Called for every committed record, in input order.
  func append(_ record: ManifestRecord) {
    state.withLock { state in
      // Escaped straight into the buffer: no line of its own to allocate and copy.
      guard BatchLabels.append(record, to: &state.buffer) else { return }
      if state.buffer.count >= 32 << 10 { write(&state) }
    }
  }

  /// Writes what is buffered (creating the file, empty when no tile was written); throws the first
  /// write error.
  func finish() throws {
    try state.withLock { state in
      write(&state)
      if let error = state.error { throw BatchError(error) }
    }
  }

  private func write(_ state: inout State) {
    guard state.error == nil else { return }
    if state.fd < 0 {
      state.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
      guard state.fd >= 0 else {
        state.error = "\(FileErrorDescription(path: path, operation: "cannot create", errno: errno))"
        return
      }
    }
    do {
      try BatchFiles.writeAll(state.fd, Data(state.buffer), path: path)
    } catch {
      state.error = "\(error)"
    }
    state.buffer.removeAll(keepingCapacity: true)
  }
}
