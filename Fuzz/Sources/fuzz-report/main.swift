import AsyncLayer
import Foundation
import FuzzerDriver

/// The directory relative image paths resolve against: the repository's `samples/` (it holds
/// `report-chart.png`), found from this file's path at build time.
private let samplesDirectory = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().appendingPathComponent("samples").path

/// A report spec (JSON) decoded, turned into a document and paginated — what `layerbench report`
/// does before it writes anything. No files are written, no fonts registered. Image items are kept only when they name
/// a file directly inside `samples/`, so that a mutated path never reads `/dev/zero` or the like.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let data = Data(UnsafeRawBufferPointer(start: start, count: count))
  guard var spec = try? ReportSpec(jsonData: data, baseDirectory: samplesDirectory) else { return 0 }
  // Font files are registered for the whole process (and a folder is searched): never from a
  // mutated path.
  spec.fonts = []
  spec.content = spec.content.filter { item in
    guard case .image(let path, _) = item else { return true }
    return !path.isEmpty && !path.contains("/") && !path.hasPrefix(".")
  }
  guard let document = try? spec.makeDocument() else { return 0 }
  _ = try? ReportLayout(document)
  return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, count in data.map { fuzz($0, count) } ?? 0 })
