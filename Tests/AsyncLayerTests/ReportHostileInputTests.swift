import AsyncLayerTestSupport
import Foundation
import Testing

@testable import AsyncLayer

/// Report specs as a hostile user writes them: endless or huge files, repeated keys, the whole file
/// system as a font folder, devices and folders where files belong, images far larger than they are
/// drawn, and numbers out of range. Each is refused (or held small) with a message naming the cause.
@Suite("Report specs: hostile input")
struct ReportHostileInputTests {
  // MARK: Reading the spec

  @Test("a spec from /dev/zero stops at the size limit with the limit and the file's kind in the message")
  func specFromDevZero() throws {
    let error = try #require(throws: ReportSpecError.self) { try ReportSpec(contentsOfFile: "/dev/zero") }
    #expect(error.path == "spec")
    #expect(error.message.contains("more than 16 MiB, the limit for a report spec"), "\(error)")
    #expect(error.message.contains("character device"), "\(error)")
  }

  @Test("a device is read up to one byte past the limit, then refused")
  func deviceStopsAtLimit() throws {
    let failure = try #require(throws: BoundedFileReader.Failure.self) {
      try BoundedFileReader.read("/dev/zero", limit: 4096, purpose: "a test")
    }
    #expect(
      failure == .tooLarge(path: "/dev/zero", size: nil, limit: 4096, purpose: "a test", kind: "a character device"))
  }

  @Test("a regular file one byte over the limit is refused from its size; one at the limit is read")
  func regularFileAtAndOverLimit() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("spec.json").path
      // A sparse file: its size is what matters, not its blocks.
      #expect(FileManager.default.createFile(atPath: path, contents: nil))
      #expect(truncate(path, off_t(ReportSpec.defaultMaximumFileBytes + 1)) == 0)
      let error = try #require(throws: ReportSpecError.self) { try ReportSpec(contentsOfFile: path) }
      #expect(error.message.contains("16777217 bytes, over 16 MiB, the limit for a report spec"), "\(error)")

      let small = directory.appendingPathComponent("small.json").path
      try Data(#"{"content": [{"paragraph": "hi"}]}"#.utf8).write(to: URL(fileURLWithPath: small))
      #expect(try ReportSpec(contentsOfFile: small, maximumBytes: 34).content == [.paragraph("hi")])
      #expect(throws: ReportSpecError.self) { try ReportSpec(contentsOfFile: small, maximumBytes: 33) }
    }
  }

  @Test("a folder or a missing file as the spec says so in words")
  func specFolderOrMissing() throws {
    try withTemporaryDirectory { directory in
      let folder = try #require(throws: ReportSpecError.self) { try ReportSpec(contentsOfFile: directory.path) }
      #expect(folder.message == "\(directory.path): cannot read: it is a directory")
      let missing = directory.appendingPathComponent("none.json").path
      let error = try #require(throws: ReportSpecError.self) { try ReportSpec(contentsOfFile: missing) }
      #expect(error.message == "\(missing): cannot read: no such file or directory")
    }
  }

  // MARK: Repeated keys

  @Test(
    "a key given twice in one object is refused with the object's path",
    arguments: [
      (#"{"title": "a", "content": [], "title": "b"}"#, "spec", #"duplicate key "title""#),
      (
        #"{"content": [{"paragraph": "a"}, {"heading": "b"}, {"heading": "c", "level": 2, "level": 3}]}"#,
        "spec.content[2]", #"duplicate key "level""#
      ),
      (
        #"{"content": [{"paragraph": "a"}, {"paragraph": "a"}, {"paragraph": "b"}, {"table": {"columns": ["x"], "rows": [], "rows": [["y"]]}}]}"#,
        "spec.content[3].table", #"duplicate key "rows""#
      ),
      // JSONDecoder reads the escape as the same key.
      (#"{"content": [], "\u0063ontent": []}"#, "spec", #"duplicate key "content""#),
    ])
  func duplicateKeys(json: String, path: String, message: String) throws {
    let error = try #require(throws: ReportSpecError.self) { try ReportSpec(jsonData: Data(json.utf8)) }
    #expect(error.path == path, "\(error)")
    #expect(error.message.contains(message), "\(error)")
    #expect(error.message.contains("first at line 1"), "\(error)")
  }

  @Test("the same key in different objects, and JSON with a syntax error, are not called duplicates")
  func notDuplicates() throws {
    #expect(
      JSONSyntaxCheck.firstFailure(
        in: Data(#"{"content": [{"paragraph": "a"}, {"paragraph": "b"}], "a": {"content": 1}}"#.utf8)) == nil)
    let syntax = try #require(JSONSyntaxCheck.firstFailure(in: Data(#"{"a": 1 "b": 2}"#.utf8)))
    #expect(syntax.duplicateKeyPath == nil)
    #expect(syntax.column == 9)
    let nested = try #require(
      JSONSyntaxCheck.firstFailure(in: Data("[[1], {\"k\": [0, {\"x\": 1,\n \"x\": 2}]}]".utf8)))
    #expect(nested.duplicateKeyPath == "[1].k[1]")
    #expect(nested.line == 2 && nested.column == 2)
    #expect(nested.description == #"line 2, column 2: duplicate key "x" (first at line 1, column 18) in [1].k[1]"#)
  }

  // MARK: Font folders

  @Test("a font folder walk stops at its entry limit: it counts entries, not time")
  func fontWalkEntryLimit() throws {
    try withTemporaryDirectory { directory in
      for index in 0..<12 {
        #expect(
          FileManager.default.createFile(atPath: directory.appendingPathComponent("f\(index).ttf").path, contents: nil))
      }
      #expect(try FontFiles.walk(directory.path, named: "fonts", maximumDepth: 8, maximumEntries: 12).count == 12)
      let error = try #require(throws: FontFileError.self) {
        try FontFiles.walk(directory.path, named: "fonts", maximumDepth: 8, maximumEntries: 11)
      }
      #expect(error == .folderTooLarge(path: "fonts", limit: 11))
    }
  }

  @Test("a font folder walk refuses subfolders past its depth limit, naming the first one")
  func fontWalkDepthLimit() throws {
    try withTemporaryDirectory { directory in
      let deep = directory.appendingPathComponent("a/b/c")
      try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
      #expect(try FontFiles.walk(directory.path, named: "fonts", maximumDepth: 3, maximumEntries: 100).isEmpty)
      let error = try #require(throws: FontFileError.self) {
        try FontFiles.walk(directory.path, named: "fonts", maximumDepth: 2, maximumEntries: 100)
      }
      #expect(error == .folderTooDeep(path: "fonts", limit: 2, deepest: deep.path))
    }
  }

  @Test("registering / is refused at a walk limit, naming / and the limit")
  func rootAsFontFolder() throws {
    let error = try #require(throws: FontFileError.self) { try FontFiles.register("/") }
    switch error {
    case .folderTooLarge(let path, let limit):
      #expect(path == "/" && limit == FontFiles.maximumFolderEntries)
    case .folderTooDeep(let path, let limit, _):
      #expect(path == "/" && limit == FontFiles.maximumFolderDepth)
    default:
      Issue.record("unexpected \(error)")
    }
    #expect(error.description.hasPrefix("/: "))
    #expect(error.description.contains("the limit for a font folder"))
  }

  @Test("a device as a font is refused as not a regular file; a pipe named .ttf in a folder is passed over")
  func specialFilesAsFonts() throws {
    #expect(throws: FontFileError.notARegularFile(path: "/dev/zero", kind: "a character device")) {
      try FontFiles.register("/dev/zero")
    }
    try withTemporaryDirectory { directory in
      let pipe = directory.appendingPathComponent("pipe.ttf").path
      #expect(mkfifo(pipe, 0o600) == 0)
      let found = try FontFiles.walk(directory.path, named: "fonts", maximumDepth: 8, maximumEntries: 10)
      #expect(found.isEmpty)
      #expect(throws: FontFileError.notARegularFile(path: pipe, kind: "a pipe")) { try FontFiles.register(pipe) }
    }
  }

  // MARK: Images

  /// A spec with one image item (`scale` pixels per point) on an A4 page with 56-point margins.
  private func imageSpec(_ file: String, scale: Double = 1) throws -> ReportSpec {
    try ReportSpec(jsonData: Data(#"{"content": [{"image": "\#(file)", "scale": \#(scale)}]}"#.utf8))
  }

  @Test("a large PNG is decoded at the size it is drawn: its box on the page at 300 ppi, not its own size")
  func imageDecodedAtDrawnSize() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("big.png").path
      try quadrantImage(width: 3000, height: 2000).writePNG(to: path)
      let document = try imageSpec(path).makeDocument()
      guard case .image(let image) = try #require(document.blocks.first) else {
        Issue.record("expected an image block")
        return
      }
      // A4 with 56-point margins: 483.28 points of content width; 3000 px at 1 px/pt is scaled
      // to it, 483.28 × 322.19 points, which at 300/72 px/pt is 2014 × 1343 pixels.
      let box = Size.a4.width - 112
      #expect(image.pixelWidth == Int((box * ReportSpec.printPixelsPerPoint).rounded(.up)))
      #expect(abs(image.pixelHeight - 1343) <= 1)
      #expect(abs(image.size.width - box) < 1e-9)
      #expect(abs(image.size.height - box * 2 / 3) < 0.5)
      #expect(hasQuadrantColors(image, tolerance: 0.01))

      // At 2 pixels per point (PNG pages at scale 2) it is held at 967 pixels wide.
      guard case .image(let small) = try imageSpec(path).makeDocument(imagePixelsPerPoint: 2).blocks.first else {
        Issue.record("expected an image block")
        return
      }
      #expect(small.pixelWidth == 967)
      #expect(abs(small.size.width - box) < 1e-9)

      // Drawn smaller than its pixels at every resolution asked: never upscaled.
      guard case .image(let full) = try imageSpec(path, scale: 10).makeDocument(imagePixelsPerPoint: 100).blocks.first
      else {
        Issue.record("expected an image block")
        return
      }
      #expect(full.pixelWidth == 3000 && full.pixelHeight == 2000)
      #expect(full.size == Size(width: 300, height: 200))
    }
  }

  @Test("a PNG decoded row by row to a smaller size averages its pixels as cairo's downscale does")
  func reducedPNGMatchesFullDecode() throws {
    let source = try quadrantImage(width: 1001, height: 601)
    let data = try PNGEncoder().encode(source)
    let target = PixelSize(width: 100, height: 60)
    let reduced = try ImageDecoder.decode(data, targetPixelSize: target)
    #expect(reduced.pixelWidth == 100 && reduced.pixelHeight == 60)
    #expect(hasQuadrantColors(reduced, tolerance: 0.005))
    let reference = try ImageDecoder.downscale(RenderedImage(pngData: data), toFit: target)
    #expect(reference.pixelWidth == 100 && reference.pixelHeight == 60)
    // Flat areas agree exactly; the quadrant edges differ by the filters' footprints.
    var differing = 0
    for y in 0..<60 {
      for x in 0..<100 where reduced.pixels[y * 100 + x] != reference.pixels[y * 100 + x] { differing += 1 }
    }
    #expect(differing < 100 * 60 / 10, "\(differing) of 6000 pixels differ")

    // Translucent pixels stay premultiplied: a 50 % black square averages to 50 % alpha.
    let translucent = RenderedImage(
      pixelWidth: 4, pixelHeight: 4, pixels: Array(repeating: 0x8000_0000, count: 16))
    let half = try ImageDecoder.decode(
      try PNGEncoder().encode(translucent), targetPixelSize: PixelSize(width: 2, height: 2))
    #expect(half.pixels == Array(repeating: 0x8000_0000, count: 4))
  }

  @Test("a report's decoded images over the memory limit are refused before decoding, with the sizes")
  func imageMemoryLimit() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("image.png").path
      try quadrantImage(width: 400, height: 200).writePNG(to: path)
      let spec = try ReportSpec(
        jsonData: Data(#"{"content": [{"image": "\#(path)"}, {"image": "\#(path)"}]}"#.utf8))
      // Each is held at 400 × 200 pixels: 320 000 bytes, two of them 640 000.
      #expect(try spec.makeDocument(imageMemoryBytes: 640_000).blocks.count == 2)
      let error = try #require(throws: ReportSpecError.self) { try spec.makeDocument(imageMemoryBytes: 639_999) }
      #expect(error.path == "spec.content[1].image")
      #expect(error.message.contains("over the limit of 639999 bytes for a report's images"), "\(error)")
    }
  }

  @Test("a folder, /dev/zero or a missing file as an image says what it is, without Foundation's text")
  func imagePathMessages() throws {
    try withTemporaryDirectory { directory in
      let folder = try #require(throws: ReportSpecError.self) { try imageSpec(directory.path).makeDocument() }
      #expect(folder.description == "spec.content[0].image: \(directory.path): cannot read: it is a directory")
      let zero = try #require(throws: ReportSpecError.self) { try imageSpec("/dev/zero").makeDocument() }
      #expect(zero.description == "spec.content[0].image: /dev/zero: not a regular file (it is a character device)")
      let missing = directory.appendingPathComponent("none.png").path
      let none = try #require(throws: ReportSpecError.self) { try imageSpec(missing).makeDocument() }
      #expect(none.description == "spec.content[0].image: image file not found: \(missing)")
      for error in [folder, zero, none] {
        #expect(!error.description.contains("NSCocoaErrorDomain") && !error.description.contains("permission"))
      }
    }
  }

  // MARK: Numbers and tables

  @Test(
    "a number out of range names the allowed range",
    arguments: [
      (#"{"fontSize": 2000, "content": []}"#, "spec.fontSize", "above 0 and at most 1000 points (got 2000.0)"),
      (#"{"fontSize": 0, "content": []}"#, "spec.fontSize", "above 0 and at most 1000 points (got 0.0)"),
      (#"{"margins": 1e300, "content": []}"#, "spec.margins", "from 0 to 14400 points"),
      (#"{"margins": {"top": -1}, "content": []}"#, "spec.margins.top", "from 0 to 14400 points"),
      (#"{"page": {"width": 0.5, "height": 100}, "content": []}"#, "spec.page.width", "from 1 to 14400"),
      (#"{"content": [{"image": "a.png", "scale": 0}]}"#, "spec.content[0].scale", "from 0.001 to 1000"),
      (#"{"content": [{"image": "a.png", "scale": 1e9}]}"#, "spec.content[0].scale", "from 0.001 to 1000"),
      (#"{"content": [{"heading": "a", "level": 9}]}"#, "spec.content[0].level", "from 1 to 6"),
    ])
  func numbersOutOfRange(json: String, path: String, message: String) throws {
    let error = try #require(throws: ReportSpecError.self) { try ReportSpec(jsonData: Data(json.utf8)) }
    #expect(error.path == path, "\(error)")
    #expect(error.message.contains(message), "\(error)")
  }

  @Test("a 1 000-column table is blamed on its column count, with the minimum width and what fits")
  func thousandColumns() throws {
    var document = ReportDocument(pageSize: .a4, margins: EdgeInsets(all: 56))
    document.addParagraph("Before the table")
    document.addTable(ReportTable(columns: (0..<1000).map { "c\($0)" }, rows: []))
    let error = try #require(throws: ReportError.self) { try ReportLayout(document) }
    guard case .columnTooNarrow(let block, let column, let columns, _, let minimum, _) = error else {
      Issue.record("unexpected \(error)")
      return
    }
    #expect(block == 1 && column == 0 && columns == 1000)
    #expect(minimum == 2 * document.style.cellPadding + 1)
    let fits = Int(((Size.a4.width - 112) / minimum).rounded(.down))
    #expect(error.description.contains("of the table's 1000 is 0.48 pt wide"), "\(error)")
    #expect(error.description.contains("fits at most \(fits) columns of equal width"), "\(error)")
    #expect(!error.description.contains("margins ("), "\(error)")
  }
}
