internal import CCairo

// Glyph-cluster, word and line boxes of the shown text, read from Pango: clusters from a walk over
// each run's glyph string, or Pango's layout iterator character by character where a run is not as
// expected (TextLayout+ClusterWalks.swift; Pango's own geometry, the one it draws with), words from
// the layout's log attributes (`is_word_start`/`is_word_end`).
// A long text laid out in pieces is walked piece by piece, each piece's boxes moved to where the
// whole layout puts its lines.
extension TextLayout {
  /// The glyph clusters of the shown lines, in points from the layout's top-left corner, in visual
  /// order within each line. A Devanagari conjunct, a ligature or an emoji sequence is one cluster;
  /// an ellipsis is one cluster with the text "…" covering the text it replaces.
  ///
  /// ```swift
  /// let layout = try TextLayout(.plain("Hi 👋"), style: TextStyle(), width: 200)
  /// layout.clusterBoxes().map(\.text)  // ["H", "i", " ", "👋"]
  /// ```
  public func clusterBoxes() -> [TextBox] {
    textBoxes(from: clusterValues(of: collectClusters().clusters, converting: nil))
  }

  /// The words of the shown lines (Pango's word boundaries: letters and digits, without the
  /// spaces and punctuation around them), one box per word and line, in the text's order. Each box
  /// is the union of its clusters' boxes.
  ///
  /// ```swift
  /// let layout = try TextLayout(.plain("Hello, world"), style: TextStyle(), width: 200)
  /// layout.wordBoxes().map(\.text)  // ["Hello", "world"]
  /// ```
  public func wordBoxes() -> [TextBox] {
    let walk = collectClusters()
    return textBoxes(from: words(of: walk.clusters, wordCount: walk.wordCount, converting: nil))
  }

  /// The shown lines as boxes: ``TextLine/frame`` and ``TextLine/inkFrame`` with the line's text.
  ///
  /// ```swift
  /// let layout = try TextLayout(.plain("one two three"), style: TextStyle(), width: 40)
  /// layout.lineBoxes().map(\.text)  // ["one ", "two ", "three"]
  /// ```
  public func lineBoxes() -> [TextBox] { textBoxes(from: lineValues(converting: nil)) }

  /// The line boxes as values, through `conversion` when there is one.
  private func lineValues(converting conversion: TextBox.Conversion?) -> [TextBoxValues.Box] {
    lines.map { line in
      let range = line.utf8Offset..<(line.utf8Offset + line.utf8Length)
      let ink = line.inkFrame
      let inkFrame = ink.width > 0 && ink.height > 0 ? ink : nil
      return TextBoxValues.Box(
        range: range, line: line.index, frame: conversion.map { $0.apply(line.frame) } ?? line.frame,
        ink: conversion.map { conversion in inkFrame.map(conversion.apply) } ?? inkFrame, isEllipsis: false)
    }
  }

  /// ``clusterBoxes()`` found by Pango's character iterator alone, as they were before the glyph
  /// walk (tests compare the two walks).
  func clusterBoxesWalkingCharacters() -> [TextBox] {
    textBoxes(from: clusterValues(of: collectClusters(walk: .characters).clusters, converting: nil))
  }

  /// ``clusterBoxes()`` found by the glyph walk alone, or nil where it would have handed a layout
  /// to the character walk (tests check that it did not).
  func clusterBoxesWalkingGlyphsOnly() -> [TextBox]? {
    let walk = collectClusters(walk: .glyphsOnly)
    return walk.fellBack ? nil : textBoxes(from: clusterValues(of: walk.clusters, converting: nil))
  }

  /// How `collectClusters` walks: glyph strings with the character iterator where they are not as
  /// expected, or either alone (for tests).
  private enum Walk {
    case glyphs
    case characters
    case glyphsOnly
  }

  /// Clusters, words and lines at once (the clusters are walked once).
  ///
  /// ```swift
  /// let boxes = try TextLayout(.plain("Hello"), style: TextStyle(), width: 200).boxes()
  /// boxes.clusters.count  // 5
  /// ```
  public func boxes() -> TextBoxes { boxes(converting: nil) }

  /// ``boxes()``, each box through `conversion` (the values of
  /// ``TextBoxes/converted(offset:scale:)``) as it is made: a tile's boxes without a second set of
  /// arrays to fill and free.
  func boxes(converting conversion: TextBox.Conversion?) -> TextBoxes {
    let values = boxValues(converting: conversion)
    return TextBoxes(
      clusters: textBoxes(from: values.clusters), words: textBoxes(from: values.words),
      lines: textBoxes(from: values.lines))
  }

  /// ``boxes(converting:)`` as plain values, without their texts (`TextTile.collectsBoxValues`):
  /// the same walk and numbers, no `TextBox` or `String` per box.
  func boxValues(converting conversion: TextBox.Conversion?) -> TextBoxValues {
    let walk = collectClusters()
    return TextBoxValues(
      clusters: clusterValues(of: walk.clusters, converting: conversion),
      words: words(of: walk.clusters, wordCount: walk.wordCount, converting: conversion),
      lines: lineValues(converting: conversion))
  }

  /// The `TextBox`es of `values`, their texts read from the layout's text (once for all of them).
  private func textBoxes(from values: [TextBoxValues.Box]) -> [TextBox] {
    guard !values.isEmpty, let text = pango_layout_get_text(raw) else { return [] }
    let length = strlen(text)
    return values.map { box in
      TextBox(
        text: box.isEllipsis ? "…" : Self.slice(box.range, of: text, length: length), utf8Range: box.range,
        lineIndex: box.line, frame: box.frame, inkFrame: box.ink)
    }
  }

  /// A cluster as the walk finds it: plain values, its text read only when its box is made (the
  /// words are grouped from these, so no `TextBox` or `String` is made and copied twice).
  struct Cluster {
    /// Bytes of ``text``.
    var range: Range<Int>
    var line: Int
    var frame: Rect
    var ink: Rect?
    var isEllipsis: Bool
    /// The word it starts in (its index among all the walk's words, in text order), or -1.
    var word: Int
  }

  /// One Pango layout to walk: the whole layout, or one piece, with where its lines go.
  struct Unit {
    var raw: OpaquePointer
    var byteOffset: Int
    var xOffset: Int64
    var yOffset: Int64
    /// Its kept lines, in order; the first is line `firstLine` of all lines.
    var lines: [UnsafeMutablePointer<PangoLayoutLine>]
    var firstLine: Int
  }

  private var units: [Unit] {
    if pieces.isEmpty {
      var lines: [UnsafeMutablePointer<PangoLayoutLine>] = []
      var node = pango_layout_get_lines_readonly(raw)
      while let current = node {
        if let line = current.pointee.data?.assumingMemoryBound(to: PangoLayoutLine.self) { lines.append(line) }
        node = current.pointee.next
      }
      return [Unit(raw: raw, byteOffset: 0, xOffset: 0, yOffset: 0, lines: lines, firstLine: 0)]
    }
    return pieces.map { piece in
      Unit(
        raw: piece.raw, byteOffset: piece.byteOffset, xOffset: Int64(piece.xOffset), yOffset: piece.yOffset,
        lines: piece.lines, firstLine: piece.firstLine)
    }
  }

  /// Each of the (one) layout's Pango lines and its index, for walks that meet lines through an
  /// iterator.
  func lineIndices() -> [UnsafeMutablePointer<PangoLayoutLine>: Int] {
    var indices: [UnsafeMutablePointer<PangoLayoutLine>: Int] = [:]
    var node = pango_layout_get_lines_readonly(raw)
    while let current = node {
      if let line = current.pointee.data?.assumingMemoryBound(to: PangoLayoutLine.self) {
        indices[line] = indices.count
      }
      node = current.pointee.next
    }
    return indices
  }

  /// Every ASCII character as a `String`: a Latin cluster's text is one of these, taken from here
  /// instead of decoded (and checked) byte by byte for each box.
  private static let asciiStrings: [String] = (0..<128).map { String(UnicodeScalar(UInt8($0))) }

  /// `range` of `text` (`length` bytes), decoded leniently: the text read once per walk, not per box.
  private static func slice(_ range: Range<Int>, of text: UnsafePointer<CChar>, length: Int) -> String {
    let lower = min(max(0, range.lowerBound), length)
    let upper = min(max(lower, range.upperBound), length)
    if upper - lower == 1 {
      let byte = UInt8(bitPattern: text[lower])
      if byte < 0x80 { return asciiStrings[Int(byte)] }
    }
    return String(
      decoding: UnsafeRawBufferPointer(start: text + lower, count: upper - lower), as: UTF8.self)
  }

  /// UTF-8 sequence length from its lead byte (1 for a stray continuation byte: progress is kept).
  static func sequenceLength(_ lead: UInt8) -> Int {
    switch lead {
    case 0xF0...: 4
    case 0xE0...: 3
    case 0xC0...: 2
    default: 1
    }
  }

  /// The clusters' boxes as values, through `conversion` when there is one.
  private func clusterValues(of clusters: [Cluster], converting conversion: TextBox.Conversion?)
    -> [TextBoxValues.Box]
  {
    guard let conversion else {
      return clusters.map {
        TextBoxValues.Box(range: $0.range, line: $0.line, frame: $0.frame, ink: $0.ink, isEllipsis: $0.isEllipsis)
      }
    }
    return clusters.map {
      TextBoxValues.Box(
        range: $0.range, line: $0.line, frame: conversion.apply($0.frame), ink: $0.ink.map(conversion.apply),
        isEllipsis: $0.isEllipsis)
    }
  }

  /// The clusters of the shown lines, and how many words the walk saw (`Cluster.word` counts them).
  ///
  /// Each layout is walked run by run through its glyph strings: per glyph cluster, the extents
  /// of its glyphs (`pango_glyph_string_extents_range`, Pango's own function, the glyph extents
  /// coming from the font hooks' cache) and its text from the run's `log_clusters`, as Pango's
  /// layout iterator computes them; the iterator itself is asked once per run, for the offsets it
  /// adds to a cluster's extents there (the line's baseline, the run's start). Pango's character
  /// iterator, which asks for the same extents once per character with five calls, cost about
  /// half as much again. A run whose glyph string is not as the walk expects (no glyphs, a cluster
  /// without text, one that ends inside a character) sends its layout back through the character
  /// iterator, the walk this one replaced: the boxes are the same either way.
  private func collectClusters(walk mode: Walk = .glyphs) -> (clusters: [Cluster], wordCount: Int, fellBack: Bool) {
    let shownCount = lines.count
    var result: [Cluster] = []
    var wordCount = 0
    var fellBack = false
    guard let wholeText = pango_layout_get_text(raw) else { return ([], 0, false) }
    // A cluster has at least one byte: the text's length bounds the count (capped: a long text
    // grows the array as usual).
    result.reserveCapacity(min(strlen(wholeText), 1024))
    for walk in units {
      guard let text = pango_layout_get_text(walk.raw) else { continue }
      let words = Self.wordRanges(of: walk.raw)
      // Words are numbered across the pieces, in text order: a piece's first word follows the last
      // piece's (the clusters' grouping then needs no table keyed by word).
      var gatherer = ClusterGatherer(walk: walk, words: words, firstWord: wordCount)
      wordCount += words.count
      let mark = result.count
      guard let iterator = pango_layout_get_iter(walk.raw) else { continue }
      let walked =
        mode != .characters
        && Self.walkGlyphs(
          iterator, walk: walk, text: text, length: strlen(text), shownCount: shownCount, gatherer: &gatherer,
          into: &result)
      pango_layout_iter_free(iterator)
      if walked { continue }
      fellBack = fellBack || mode != .characters
      if mode == .glyphsOnly { continue }
      result.removeSubrange(mark...)
      gatherer = ClusterGatherer(walk: walk, words: words, firstWord: gatherer.firstWord)
      guard let characters = pango_layout_get_iter(walk.raw) else { continue }
      Self.walkCharacters(
        characters, walk: walk, text: text, shownCount: shownCount, gatherer: &gatherer, into: &result)
      pango_layout_iter_free(characters)
    }
    return (result, wordCount, fellBack)
  }

  /// The words of a layout's text as byte ranges, in order, from its log attributes.
  private static func wordRanges(of layout: OpaquePointer) -> [Range<Int>] {
    var count: Int32 = 0
    guard let attributes = pango_layout_get_log_attrs_readonly(layout, &count), let text = pango_layout_get_text(layout)
    else { return [] }
    var ranges: [Range<Int>] = []
    var start: Int?
    var byte = 0
    for index in 0..<Int(count) {
      let attribute = attributes[index]
      if attribute.is_word_end != 0, let first = start {
        ranges.append(first..<byte)
        start = nil
      }
      if attribute.is_word_start != 0 { start = byte }
      guard index < Int(count) - 1 else { break }
      byte += sequenceLength(UInt8(bitPattern: text[byte]))
    }
    return ranges
  }

  /// The index of the first range of `ranges` (sorted, disjoint) that ends after `offset`, or
  /// `ranges.count`, by binary search.
  static func firstEnding(after offset: Int, in ranges: [Range<Int>]) -> Int {
    var low = 0
    var high = ranges.count
    while low < high {
      let middle = (low + high) / 2
      if ranges[middle].upperBound <= offset { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// The clusters grouped by word and line: one box per word part on a line, in the text's order.
  /// Groups are kept in the order they are first seen; each word's groups are chained (one per line
  /// the word is on), found from the word's index: no hashing per cluster.
  private func words(of clusters: [Cluster], wordCount: Int, converting conversion: TextBox.Conversion?)
    -> [TextBoxValues.Box]
  {
    struct Group {
      var line: Int
      var range: Range<Int>
      var frame: Rect
      var ink: Rect?
      /// The same word's group seen before this one (on another line), or -1.
      var previous: Int
    }
    var groups: [Group] = []
    groups.reserveCapacity(wordCount)
    var newestGroup = [Int](repeating: -1, count: wordCount)
    for cluster in clusters {
      let word = cluster.word
      guard word >= 0, word < wordCount else { continue }
      var index = newestGroup[word]
      while index >= 0, groups[index].line != cluster.line { index = groups[index].previous }
      if index >= 0 {
        let group = groups[index]
        let ink: Rect? =
          switch (group.ink, cluster.ink) {
          case (let a?, let b?): Self.union(a, b)
          case (let a?, nil): a
          case (nil, let b): b
          }
        groups[index].range =
          min(group.range.lowerBound, cluster.range.lowerBound)..<max(group.range.upperBound, cluster.range.upperBound)
        groups[index].frame = Self.union(group.frame, cluster.frame)
        groups[index].ink = ink
      } else {
        groups.append(
          Group(
            line: cluster.line, range: cluster.range, frame: cluster.frame, ink: cluster.ink,
            previous: newestGroup[word])
        )
        newestGroup[word] = groups.count - 1
      }
    }
    guard !groups.isEmpty else { return [] }
    // In the text's order: groups are met in visual order, already the text's in a left-to-right
    // line (keys are unique: a word has one group per line).
    func precedes(_ a: Group, _ b: Group) -> Bool { (a.range.lowerBound, a.line) < (b.range.lowerBound, b.line) }
    if groups.indices.dropFirst().contains(where: { !precedes(groups[$0 - 1], groups[$0]) }) {
      groups.sort(by: precedes)
    }
    return groups.map { group in
      TextBoxValues.Box(
        range: group.range, line: group.line, frame: conversion.map { $0.apply(group.frame) } ?? group.frame,
        ink: conversion.map { conversion in group.ink.map(conversion.apply) } ?? group.ink, isEllipsis: false)
    }
  }

  private static func union(_ a: Rect, _ b: Rect) -> Rect {
    let minX = min(a.minX, b.minX)
    let minY = min(a.minY, b.minY)
    return Rect(x: minX, y: minY, width: max(a.maxX, b.maxX) - minX, height: max(a.maxY, b.maxY) - minY)
  }
}
