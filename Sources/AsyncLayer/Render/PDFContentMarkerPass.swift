/// One ``PDFContentMarker`` pass over a content stream: reads it operator by operator, copies it to
/// the output with the marked-content operators inserted, and rewrites a text-showing operator
/// only where a run ends inside it.
struct PDFContentMarkerPass {
  typealias Failure = PDFContentMarker.Failure
  typealias Token = PDFContentLexer.Token

  private enum State {
    /// No run is open: the next glyph starts the next run.
    case between
    /// A run is open (its BDC written) and has glyphs to come.
    case open
    /// The open run's marked content was closed at `ET` with glyphs to come in a later text object.
    case suspended
    /// The open run has all its glyphs; its EMC waits for cairo's own marked content opened inside
    /// it (an `/ActualText` span) to close.
    case closing
  }

  private var lexer: PDFContentLexer
  private let runs: [PDFContentMarker.Run]
  private let bytesPerGlyph: [String: Int]
  private var output: [UInt8] = []
  /// The input is copied to the output up to here.
  private var copied = 0
  private var state = State.between
  /// The run open or next to open (runs without glyphs are passed over).
  private var runIndex = -1
  /// Glyphs still to come in the open run.
  private var remaining = 0
  /// cairo's marked-content sequences open inside the run's.
  private var innerDepth = 0
  /// cairo's marked-content sequences open around the run's (begun before it).
  private var outerDepth = 0
  /// Which of those are cairo's `/Figure` sequences: a figure drawn inside a cairo tag of its own
  /// (an image, chart, SVG or QR code; its text is not counted in the record) is cairo's marked
  /// content, copied as it is.
  private var outerFigures: [Bool] = []
  private var figureDepth = 0
  /// Where cairo's sequences begun in this text object while no run was open start: a run that
  /// starts next opens before them, so that they nest inside it.
  private var pendingStarts: [Int] = []
  private var inTextObject = false
  private var width = 1
  /// Painting seen since the last run's glyphs.
  private var drewSinceRun = false
  private var markedContents: [PDFContentMarker.MarkedContent] = []
  /// The MCIDs cairo's own marked content uses (a link tag's empty `/Link << /MCID n >> BDC EMC`):
  /// ours pass over them.
  private var usedIDs: Set<Int> = []
  private var nextID = 0
  /// The MCID of the open run's current marked content (nil: an artifact).
  private var currentID: Int?
  /// The operands of the operator being read.
  private var operands: [Token] = []

  init(_ stream: UnsafeRawBufferPointer, runs: [PDFContentMarker.Run], bytesPerGlyph: [String: Int]) {
    lexer = PDFContentLexer(stream)
    self.runs = runs
    self.bytesPerGlyph = bytesPerGlyph
    output.reserveCapacity(stream.count + stream.count / 8 + 64)
    operands.reserveCapacity(16)
    usedIDs = Self.markedContentIDs(in: stream)
  }

  /// The numbers after each `/MCID` in `stream`.
  private static func markedContentIDs(in stream: UnsafeRawBufferPointer) -> Set<Int> {
    var found: Set<Int> = []
    let key = Array("/MCID".utf8)
    var offset = 0
    while offset + key.count < stream.count {
      guard stream[offset] == key[0], stream[offset + 1] == key[1], stream[offset + 2] == key[2],
        stream[offset + 3] == key[3], stream[offset + 4] == key[4]
      else {
        offset += 1
        continue
      }
      offset += key.count
      while offset < stream.count, PDFContentLexer.isWhitespace(stream[offset]) { offset += 1 }
      var value = 0
      while offset < stream.count, stream[offset] >= UInt8(ascii: "0"), stream[offset] <= UInt8(ascii: "9"),
        value < 1 << 40
      {
        value = value * 10 + Int(stream[offset] - UInt8(ascii: "0"))
        offset += 1
      }
      found.insert(value)
    }
    return found
  }

  /// A new MCID for `run` (nil for an artifact).
  private mutating func allocateID(for run: Int) -> Int? {
    guard runs[run].structureType != nil else { return nil }
    while usedIDs.contains(nextID) { nextID += 1 }
    markedContents.append(PDFContentMarker.MarkedContent(id: nextID, run: run))
    nextID += 1
    return nextID - 1
  }

  mutating func run() throws(Failure) -> PDFContentMarker.Result {
    while let token = try nextToken() {
      guard token.kind == .keyword else {
        operands.append(token)
        continue
      }
      try perform(token)
      operands.removeAll(keepingCapacity: true)
    }
    switch state {
    case .open, .suspended: throw .missingGlyphs(run: runIndex, missing: remaining)
    case .closing: throw .unbalancedMarkedContent(offset: lexer.bytes.count)
    case .between: break
    }
    if let left = runs.indices.dropFirst(runIndex + 1).first(where: { runs[$0].glyphCount != 0 }) {
      if runs[left].glyphCount == nil { throw .uncountableRun(run: left) }
      throw .missingGlyphs(run: left, missing: runs[left].glyphCount ?? 0)
    }
    copy(upTo: lexer.bytes.count)
    return PDFContentMarker.Result(stream: output, markedContents: markedContents, cairoIDs: usedIDs.sorted())
  }

  private mutating func nextToken() throws(Failure) -> Token? {
    do {
      return try lexer.next()
    } catch {
      throw .malformed(offset: error.offset, reason: error.reason)
    }
  }

  private mutating func perform(_ token: Token) throws(Failure) {
    let start = operands.first?.range.lowerBound ?? token.range.lowerBound
    let word = token.range
    let bytes = lexer.bytes
    // Dispatch on the operator's bytes (one or two letters for every operator that matters here).
    let first = bytes[word.lowerBound]
    let second: UInt8 = word.count > 1 ? bytes[word.lowerBound + 1] : 0
    switch (word.count, first, second) {
    case (2, UInt8(ascii: "T"), UInt8(ascii: "j")), (2, UInt8(ascii: "T"), UInt8(ascii: "J")):
      try show(start: start, end: word.upperBound, isArray: second == UInt8(ascii: "J"))
    case (1, UInt8(ascii: "'"), _), (1, UInt8(ascii: "\""), _):
      try show(start: start, end: word.upperBound, isArray: false)
    case (2, UInt8(ascii: "T"), UInt8(ascii: "f")):
      guard let name = operands.first, name.kind == .name else {
        throw .malformed(offset: start, reason: "Tf without a font name")
      }
      let key = String(decoding: bytes[(name.range.lowerBound + 1)..<name.range.upperBound], as: UTF8.self)
      guard let bytesPerGlyph = bytesPerGlyph[key] else { throw .unknownFont(name: key, offset: start) }
      width = bytesPerGlyph
    case (2, UInt8(ascii: "B"), UInt8(ascii: "T")):
      inTextObject = true
      pendingStarts.removeAll(keepingCapacity: true)
    case (2, UInt8(ascii: "E"), UInt8(ascii: "T")):
      switch state {
      case .open:
        guard innerDepth == 0 else { throw .unbalancedMarkedContent(offset: word.lowerBound) }
        copy(upTo: word.lowerBound)
        output.append(contentsOf: Self.emcBefore)
        state = .suspended
      case .closing: throw .unbalancedMarkedContent(offset: word.lowerBound)
      case .between, .suspended: break
      }
      if !pendingStarts.isEmpty { throw .unbalancedMarkedContent(offset: word.lowerBound) }
      inTextObject = false
    case (3, UInt8(ascii: "B"), UInt8(ascii: "D")), (3, UInt8(ascii: "B"), UInt8(ascii: "M")):
      switch state {
      case .open, .closing: innerDepth += 1
      case .between, .suspended:
        if inTextObject {
          pendingStarts.append(start)
        } else {
          outerDepth += 1
          let isFigure = operands.first.map { isName($0, Self.figureTag) } ?? false
          outerFigures.append(isFigure)
          if isFigure { figureDepth += 1 }
        }
      }
    case (3, UInt8(ascii: "E"), UInt8(ascii: "M")):
      switch state {
      case .open, .closing:
        guard innerDepth > 0 else { throw .unbalancedMarkedContent(offset: word.lowerBound) }
        innerDepth -= 1
        if state == .closing, innerDepth == 0 { close(at: word.upperBound) }
      case .between, .suspended:
        if pendingStarts.popLast() == nil {
          guard outerDepth > 0 else { throw .unbalancedMarkedContent(offset: word.lowerBound) }
          outerDepth -= 1
          if outerFigures.popLast() == true { figureDepth -= 1 }
        }
      }
    case (2, UInt8(ascii: "B"), UInt8(ascii: "I")):
      throw .unsplittable(offset: word.lowerBound, reason: "an inline image")
    default:
      if Self.isPainting(word.count, first, second) { try painted(at: word.lowerBound) }
    }
  }

  /// Path painting, shadings and XObjects: what a run's glyphs may not have among them unless the
  /// record says so. (`n`, which ends a clip path, paints nothing.)
  private static func isPainting(_ count: Int, _ first: UInt8, _ second: UInt8) -> Bool {
    switch (count, first, second) {
    case (1, UInt8(ascii: "f"), _), (1, UInt8(ascii: "F"), _), (1, UInt8(ascii: "S"), _), (1, UInt8(ascii: "s"), _),
      (1, UInt8(ascii: "B"), _), (1, UInt8(ascii: "b"), _), (2, UInt8(ascii: "f"), UInt8(ascii: "*")),
      (2, UInt8(ascii: "B"), UInt8(ascii: "*")), (2, UInt8(ascii: "b"), UInt8(ascii: "*")),
      (2, UInt8(ascii: "s"), UInt8(ascii: "h")), (2, UInt8(ascii: "D"), UInt8(ascii: "o")):
      true
    default: false
    }
  }

  private mutating func painted(at offset: Int) throws(Failure) {
    switch state {
    case .open, .suspended, .closing:
      if !runs[runIndex].paintsInside { throw .unexpectedDrawing(run: runIndex, offset: offset) }
    case .between: drewSinceRun = true
    }
  }

  // MARK: Text

  /// A text-showing operator from `start` (its first operand) to `end` (past the operator).
  private mutating func show(start: Int, end: Int, isArray: Bool) throws(Failure) {
    // Text inside a figure's own marked content (a chart's labels) is the figure's.
    if figureDepth > 0, state == .between { return }
    var strings = 0
    var total = 0
    for operand in operands where operand.kind == .literalString || operand.kind == .hexString {
      let count = lexer.decodedCount(of: operand)
      guard count % width == 0 else {
        throw .malformed(offset: operand.range.lowerBound, reason: "\(count) bytes in a \(width)-byte font")
      }
      strings += 1
      total += count / width
    }
    guard total > 0 else { return }
    // Where runs end inside this operator (glyph offsets within it, 0 < split < total).
    var splits: [Int] = []
    var partRuns: [(run: Int, id: Int?)] = []
    var consumed = 0
    if state == .between || state == .suspended { try open(before: start) }
    while true {
      let take = min(remaining, total - consumed)
      remaining -= take
      consumed += take
      guard remaining == 0 else { break }
      if consumed == total {
        if innerDepth == 0 {
          close(at: end)
        } else {
          state = .closing
        }
        break
      }
      guard innerDepth == 0 else { throw .unbalancedMarkedContent(offset: start) }
      splits.append(consumed)
      try advance()
      partRuns.append((runIndex, currentID))
    }
    guard !splits.isEmpty else { return }
    if !isArray, strings != 1 || operands.count != 1 {
      throw .unsplittable(offset: start, reason: "a run ends inside a ' or \" operator")
    }
    try rewrite(start: start, end: end, splits: splits, partRuns: partRuns)
  }

  /// Rewrites the operator from `start` to `end` as one `TJ` per part between `splits` (glyph
  /// offsets), part i + 1 in the marked content of `partRuns[i]` (``advance()`` has already
  /// recorded their MCIDs, the last ones in `runOfMarkedContent`).
  private mutating func rewrite(start: Int, end: Int, splits: [Int], partRuns: [(run: Int, id: Int?)])
    throws(Failure)
  {
    copy(upTo: start)
    var splitIndex = 0
    var glyphBase = 0
    output.append(UInt8(ascii: "["))
    // Numbers (kerning) between strings go with the string after them.
    for operand in operands {
      guard operand.kind == .literalString || operand.kind == .hexString else {
        if operand.kind == .number {
          append(operand.range)
          output.append(UInt8(ascii: " "))
        }
        continue
      }
      let glyphs = lexer.decodedCount(of: operand) / width
      let open = operand.kind == .literalString ? UInt8(ascii: "(") : UInt8(ascii: "<")
      let close = operand.kind == .literalString ? UInt8(ascii: ")") : UInt8(ascii: ">")
      var from = operand.range.lowerBound + 1
      var glyphInString = 0
      while splitIndex < splits.count, splits[splitIndex] <= glyphBase + glyphs {
        let at = splits[splitIndex] - glyphBase
        if at > glyphInString {
          let to = lexer.sourceOffset(ofByte: at * width, in: operand)
          output.append(open)
          append(from..<to)
          output.append(close)
          from = to
          glyphInString = at
        }
        output.append(contentsOf: Self.splitEnd)
        appendOpening(runs[partRuns[splitIndex].run], id: partRuns[splitIndex].id)
        output.append(UInt8(ascii: "["))
        splitIndex += 1
      }
      if glyphInString < glyphs {
        output.append(open)
        append(from..<(operand.range.upperBound - 1))
        output.append(close)
      }
      glyphBase += glyphs
    }
    output.append(contentsOf: Self.arrayEnd)
    copied = end
    // If the operator's last part ended its run, that run's EMC (deferred to `end`) goes in now.
    flushDeferred()
  }

  // MARK: Runs

  /// Opens the run's marked content (the next run's when none is open) before `start`, or before
  /// cairo's marked content begun since the text object started.
  private mutating func open(before start: Int) throws(Failure) {
    if state == .between {
      try advance(checkingDrawing: true)
    }
    copy(upTo: pendingStarts.first ?? start)
    innerDepth = pendingStarts.count
    pendingStarts.removeAll(keepingCapacity: true)
    // A later text object of the same run gets a new MCID.
    if state == .suspended { currentID = allocateID(for: runIndex) }
    appendOpening(runs[runIndex], id: currentID)
    state = .open
  }

  /// Moves to the next run with glyphs and records its MCID (the caller writes its BDC).
  private mutating func advance(checkingDrawing: Bool = false) throws(Failure) {
    // A styled run's underline or strikethrough may be painted after its last glyph (pango draws
    // a run's lines once its glyphs are shown): painting after such a run is its own, left
    // unmarked between the two runs' marked contents.
    var drawn = runIndex >= 0 && runIndex < runs.count && runs[runIndex].paintsInside
    repeat {
      runIndex += 1
      guard runIndex < runs.count else { throw .textOutsideRuns(offset: lexer.position) }
      drawn = drawn || runs[runIndex].drawingBefore
    } while runs[runIndex].glyphCount == 0
    guard let count = runs[runIndex].glyphCount else { throw .uncountableRun(run: runIndex) }
    // A run that paints colour glyphs may paint before its first glyph (a cell that starts with
    // an emoji: the line's text comes first, then each image and its inkless text glyph).
    if checkingDrawing, drewSinceRun, !drawn, !runs[runIndex].paintsInside {
      throw .unexpectedDrawing(run: runIndex, offset: lexer.position)
    }
    drewSinceRun = false
    remaining = count
    innerDepth = 0
    state = .open
    currentID = allocateID(for: runIndex)
  }

  private mutating func close(at offset: Int) {
    deferred = offset
    state = .between
    drewSinceRun = false
  }

  // MARK: Output

  /// An EMC to insert at this offset once the input is copied up to it (after the operator whose
  /// glyphs ended the run, which may still be rewritten).
  private var deferred: Int?

  private mutating func flushDeferred() {
    guard let offset = deferred else { return }
    deferred = nil
    copy(upTo: offset)
    output.append(contentsOf: Self.emcAfter)
  }

  /// The run's BDC with MCID `id`, or an artifact's BMC.
  private mutating func appendOpening(_ run: PDFContentMarker.Run, id: Int?) {
    guard let type = run.structureType, let id else {
      output.append(contentsOf: Self.artifact)
      return
    }
    output.append(UInt8(ascii: "/"))
    output.append(contentsOf: type.utf8)
    output.append(contentsOf: Self.mcid)
    Self.appendDecimal(id, to: &output)
    output.append(contentsOf: Self.bdc)
  }

  private static let figureTag = Array("/Figure".utf8)

  /// Whether `token` is the name `name` (with its slash).
  private func isName(_ token: Token, _ name: [UInt8]) -> Bool {
    guard token.kind == .name, token.range.count == name.count else { return false }
    return lexer.bytes[token.range].elementsEqual(name)
  }

  private static let artifact = Array("/Artifact BMC\n".utf8)
  private static let splitEnd = Array("]TJ\nEMC\n".utf8)
  private static let arrayEnd = Array("]TJ".utf8)
  private static let emcBefore = Array("EMC\n".utf8)
  private static let emcAfter = Array("\nEMC".utf8)
  private static let mcid = Array(" <</MCID ".utf8)
  private static let bdc = Array(">> BDC\n".utf8)

  private static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
    if value >= 10 { appendDecimal(value / 10, to: &buffer) }
    buffer.append(UInt8(ascii: "0") + UInt8(value % 10))
  }

  private mutating func copy(upTo offset: Int) {
    if let pending = deferred, pending <= offset {
      deferred = nil
      copy(upTo: pending)
      output.append(contentsOf: Self.emcAfter)
    }
    guard offset > copied else { return }
    append(copied..<offset)
    copied = offset
  }

  private mutating func append(_ range: Range<Int>) {
    output.append(contentsOf: UnsafeRawBufferPointer(rebasing: lexer.bytes[range]))
  }
}
