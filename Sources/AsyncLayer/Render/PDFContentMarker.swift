/// Marks the text runs of one page's content stream as cairo 1.16 wrote it untagged: each run's
/// glyphs get `/Tag <</MCID n>> BDC … EMC` (or `/Artifact BMC … EMC` for a run outside the
/// structure), so that a structure tree written afterwards can point at them. A step towards
/// writing the tags ourselves (issue 29, goal 6); nothing calls it by default.
///
/// Runs are found by counting glyphs, not by guessing: the drawing record says how many glyphs each
/// run drew, in drawing order, and cairo writes every glyph it is given, in the order given (for a
/// right-to-left run in logical order: it walks the clusters backwards), as one glyph code per
/// string byte for a simple font and two for a composite (`Type0`) font — literal strings for
/// its "latin" subsets, hex strings otherwise, hex strings wrapped at 72 columns
/// (`_cairo_pdf_operators_flush_glyphs`). So the marker reads every `Tj`/`TJ` string, counts its
/// glyph codes with the current font's width, and where a run ends inside an operator splits it:
/// `[(ab)-120(c)]TJ` becomes `[(a)]TJ EMC … BDC [(b)-120(c)]TJ`, which shows the same glyphs at the
/// same places (a string advances the text position by its glyphs' widths whichever operator shows
/// it). The text object is not restarted. A run that cairo's drawing spans across `ET … BT` (a
/// colour glyph's image is painted between) gets one marked content per text object, each with
/// its own MCID for the same run.
///
/// Anything that does not add up is an error, never a silently wrong tree: a stream with more or
/// fewer glyphs than the record, painting inside a run that painted nothing, painting between two
/// runs with nothing drawn between them in the record, a marked-content sequence of cairo's that
/// would straddle a run's, a font not in the font table, a string whose bytes do not divide into
/// glyph codes.
struct PDFContentMarker {
  /// One text run as drawn, from the drawing record.
  struct Run: Equatable {
    /// The structure type its marked content is tagged with (`TD`, `P`, …); nil: an artifact
    /// (page headers and footers), marked `/Artifact BMC` with no MCID.
    var structureType: String?
    /// The glyphs cairo was given for it; nil when that could not be counted (pango's boxes for
    /// unknown characters draw glyphs of a font of their own).
    var glyphCount: Int?
    /// Whether painting may come among its glyphs: colour glyphs' images, or the backgrounds and
    /// underlines of styled text.
    var paintsInside = false
    /// Whether non-text drawing (fills, rules, images) came between the previous run on the page
    /// and this one.
    var drawingBefore = false
  }

  /// One marked-content sequence written: its MCID and its run (an index into the runs given).
  /// A run split by `ET … BT` has several.
  struct MarkedContent: Equatable {
    var id: Int
    var run: Int
  }

  /// A marked page.
  struct Result {
    /// The new content stream (uncompressed).
    var stream: [UInt8]
    /// In stream order. MCIDs count from 0, passing over those cairo's own marked content uses.
    var markedContents: [MarkedContent]
    /// The MCIDs of cairo's own marked content on the page, ascending: one empty `/Link` sequence
    /// per link annotation, in the order the links were drawn.
    var cairoIDs: [Int] = []
  }

  enum Failure: Error, Equatable, CustomStringConvertible {
    case malformed(offset: Int, reason: String)
    case uncountableRun(run: Int)
    case unknownFont(name: String, offset: Int)
    case textOutsideRuns(offset: Int)
    case missingGlyphs(run: Int, missing: Int)
    case unexpectedDrawing(run: Int, offset: Int)
    case unbalancedMarkedContent(offset: Int)
    case unsplittable(offset: Int, reason: String)

    var description: String {
      switch self {
      case .malformed(let offset, let reason): "content stream malformed at \(offset): \(reason)"
      case .uncountableRun(let run): "run \(run) has glyphs the record could not count"
      case .unknownFont(let name, let offset): "font \(name) at \(offset) is not in the font table"
      case .textOutsideRuns(let offset): "text at \(offset) after the record's last run"
      case .missingGlyphs(let run, let missing): "the stream ends \(missing) glyphs short in run \(run)"
      case .unexpectedDrawing(let run, let offset): "painting at \(offset) where the record has none (run \(run))"
      case .unbalancedMarkedContent(let offset): "a marked-content sequence at \(offset) straddles a run"
      case .unsplittable(let offset, let reason): "cannot split the operator at \(offset): \(reason)"
      }
    }
  }

  /// Bytes per glyph code of each font resource name (without the slash): 1 for a simple font, 2
  /// for a composite one.
  let bytesPerGlyph: [String: Int]

  /// `stream` with `runs` marked.
  func marking(_ stream: UnsafeRawBufferPointer, runs: [Run]) throws(Failure) -> Result {
    var pass = PDFContentMarkerPass(stream, runs: runs, bytesPerGlyph: bytesPerGlyph)
    return try pass.run()
  }

  /// `stream` with `runs` marked.
  func marking(_ stream: [UInt8], runs: [Run]) throws(Failure) -> Result {
    let result: Swift.Result<Result, Failure> = stream.withUnsafeBytes { bytes in
      do throws(Failure) {
        return .success(try marking(bytes, runs: runs))
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }
}

extension PDFContentMarker.Result {
  /// Turns cairo's `/NonStruct << /MCID n >> BDC` into `/NonStruct BMC` and drops `n` from
  /// ``cairoIDs``. cairo 1.16 marks a page's content as the untagged report's `NonStruct` root
  /// when the root's tag was begun on that page and no link came first (the first page of a
  /// report without contents links): our own tree has no element for it, and our marked content
  /// nested in it must not sit inside another MCID's sequence.
  mutating func unmarkCairoRoot() {
    let prefix = Array("/NonStruct << /MCID ".utf8)
    let suffix = Array(" >> BDC".utf8)
    var offset = 0
    while offset + prefix.count <= stream.count {
      guard stream[offset] == prefix[0], stream[offset..<(offset + prefix.count)].elementsEqual(prefix) else {
        offset += 1
        continue
      }
      var cursor = offset + prefix.count
      var id = 0
      while cursor < stream.count, stream[cursor] >= UInt8(ascii: "0"), stream[cursor] <= UInt8(ascii: "9"),
        id < 1 << 40
      {
        id = id * 10 + Int(stream[cursor] - UInt8(ascii: "0"))
        cursor += 1
      }
      guard cursor + suffix.count <= stream.count, stream[cursor..<(cursor + suffix.count)].elementsEqual(suffix),
        let position = cairoIDs.firstIndex(of: id)
      else {
        offset = cursor
        continue
      }
      let replacement = Array("/NonStruct BMC".utf8)
      stream.replaceSubrange(offset..<(cursor + suffix.count), with: replacement)
      cairoIDs.remove(at: position)
      offset += replacement.count
    }
  }
}
