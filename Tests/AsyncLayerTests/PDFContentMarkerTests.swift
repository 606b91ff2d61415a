import Testing

@testable import AsyncLayer

/// ``PDFContentMarker`` on small content streams in cairo 1.16's form: where it splits, what it
/// leaves alone, and the typed errors when the stream and the record disagree.
struct PDFContentMarkerTests {
  static let marker = PDFContentMarker(bytesPerGlyph: ["f-0-0": 1, "f-1-1": 2])

  static func cell(_ glyphs: Int?, paints: Bool = false, drawingBefore: Bool = false) -> PDFContentMarker.Run {
    PDFContentMarker.Run(structureType: "TD", glyphCount: glyphs, paintsInside: paints, drawingBefore: drawingBefore)
  }

  static func mark(_ stream: String, _ runs: [PDFContentMarker.Run]) throws(PDFContentMarker.Failure) -> String {
    String(decoding: try marker.marking(Array(stream.utf8), runs: runs).stream, as: UTF8.self)
  }

  @Test func splitsATJArrayInsideAStringWithoutEndingTheTextObject() throws {
    let stream = "BT\n/f-0-0 1 Tf\n[(a\\(c)-120(de)]TJ\nET\n"
    let result = try Self.marker.marking(Array(stream.utf8), runs: [Self.cell(2), Self.cell(3)])
    #expect(
      String(decoding: result.stream, as: UTF8.self)
        == "BT\n/f-0-0 1 Tf\n/TD <</MCID 0>> BDC\n[(a\\()]TJ\nEMC\n/TD <</MCID 1>> BDC\n[(c)-120 (de)]TJ\nEMC\nET\n")
    #expect(result.markedContents == [.init(id: 0, run: 0), .init(id: 1, run: 1)])
  }

  @Test func splitsTwoByteHexStringsAtGlyphBoundaries() throws {
    let stream = "BT\n/f-1-1 1 Tf\n<0001 00\n02 0003>Tj\nET\n"
    #expect(
      try Self.mark(stream, [Self.cell(1), Self.cell(2)])
        == "BT\n/f-1-1 1 Tf\n/TD <</MCID 0>> BDC\n[<0001 >]TJ\nEMC\n/TD <</MCID 1>> BDC\n[<00\n02 0003>]TJ\nEMC\nET\n")
  }

  @Test func passesOverZeroGlyphRunsAndCairosOwnMCIDs() throws {
    let stream = "/Link << /MCID 0 >> BDC\nEMC\nBT\n/f-0-0 1 Tf\n(ab)Tj\nET\n"
    let result = try Self.marker.marking(Array(stream.utf8), runs: [Self.cell(0), Self.cell(2)])
    #expect(result.markedContents == [.init(id: 1, run: 1)])
  }

  @Test func aRunAcrossTextObjectsGetsOneMarkedContentEach() throws {
    let stream = "BT\n/f-0-0 1 Tf\n(ok )Tj\nET\nq /x1 Do Q\nBT\n/f-0-0 1 Tf\n( )Tj\nET\n"
    let result = try Self.marker.marking(Array(stream.utf8), runs: [Self.cell(4, paints: true)])
    #expect(result.markedContents == [.init(id: 0, run: 0), .init(id: 1, run: 0)])
    #expect(
      String(decoding: result.stream, as: UTF8.self)
        == "BT\n/f-0-0 1 Tf\n/TD <</MCID 0>> BDC\n(ok )Tj\nEMC\nET\nq /x1 Do Q\nBT\n/f-0-0 1 Tf\n"
        + "/TD <</MCID 1>> BDC\n( )Tj\nEMC\nET\n")
  }

  @Test func cairosActualTextSpansNestInsideTheRun() throws {
    let stream = "BT\n/Span << /ActualText <feff0041> >> BDC\n/f-0-0 1 Tf\n(x)Tj\nEMC\nET\n"
    #expect(
      try Self.mark(stream, [Self.cell(1)])
        == "BT\n/TD <</MCID 0>> BDC\n/Span << /ActualText <feff0041> >> BDC\n/f-0-0 1 Tf\n(x)Tj\nEMC\nEMC\nET\n")
  }

  @Test func headersAndFootersAreArtifacts() throws {
    let stream = "BT\n/f-0-0 1 Tf\n(p1)Tj\nET\n"
    let run = PDFContentMarker.Run(structureType: nil, glyphCount: 2)
    let result = try Self.marker.marking(Array(stream.utf8), runs: [run])
    #expect(String(decoding: result.stream, as: UTF8.self) == "BT\n/f-0-0 1 Tf\n/Artifact BMC\n(p1)Tj\nEMC\nET\n")
    #expect(result.markedContents.isEmpty)
  }

  @Test func aStreamThatDoesNotMatchTheRecordIsAnError() {
    let stream = "BT\n/f-0-0 1 Tf\n[(abc)-120(de)]TJ\nET\n"
    #expect(throws: PDFContentMarker.Failure.missingGlyphs(run: 1, missing: 1)) {
      try Self.mark(stream, [Self.cell(2), Self.cell(4)])
    }
    #expect(throws: PDFContentMarker.Failure.textOutsideRuns(offset: 32)) {
      try Self.mark(stream, [Self.cell(2), Self.cell(2)])
    }
    #expect(throws: PDFContentMarker.Failure.uncountableRun(run: 1)) {
      try Self.mark(stream, [Self.cell(2), Self.cell(nil)])
    }
    #expect(throws: PDFContentMarker.Failure.unknownFont(name: "f-9-9", offset: 3)) {
      try Self.mark("BT\n/f-9-9 1 Tf\n(a)Tj\nET\n", [Self.cell(1)])
    }
    #expect(throws: PDFContentMarker.Failure.malformed(offset: 15, reason: "3 bytes in a 2-byte font")) {
      try Self.mark("BT\n/f-1-1 1 Tf\n<000102>Tj\nET\n", [Self.cell(1)])
    }
  }

  @Test func paintingWhereTheRecordHasNoneIsAnError() {
    // A fill inside a run that paints nothing.
    #expect(throws: PDFContentMarker.Failure.unexpectedDrawing(run: 0, offset: 35)) {
      try Self.mark("BT\n/f-0-0 1 Tf\n(a)Tj\nET\n0 0 1 1 re f\nBT\n/f-0-0 1 Tf\n(b)Tj\nET\n", [Self.cell(2)])
    }
    // A fill between two runs with nothing drawn between them in the record.
    let stream = "BT\n/f-0-0 1 Tf\n(a)Tj\nET\n0 0 1 1 re f\nBT\n/f-0-0 1 Tf\n(b)Tj\nET\n"
    #expect(throws: PDFContentMarker.Failure.unexpectedDrawing(run: 1, offset: 57)) {
      try Self.mark(stream, [Self.cell(1), Self.cell(1)])
    }
    #expect(throws: Never.self) { try Self.mark(stream, [Self.cell(1), Self.cell(1, drawingBefore: true)]) }
  }
}
