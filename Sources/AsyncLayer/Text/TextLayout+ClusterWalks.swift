internal import CCairo

// The two walks that find a layout's glyph clusters for its boxes (TextLayout+Boxes.swift): the glyph
// walk over each run's glyph string, and the character walk through Pango's layout iterator that it
// falls back to; and the gatherer that makes clusters of what they find.
extension TextLayout {
  /// Gathers what the walks find into clusters: consecutive finds on one line and run with the same
  /// logical left edge and width are one cluster (Pango's iterator gives each character of a
  /// cluster its cluster's extents; zero-width clusters at one place are merged as they always were).
  struct ClusterGatherer {
    let walk: Unit
    let words: [Range<Int>]
    let firstWord: Int
    /// The first word that ends after the last cluster's start: clusters come in visual order,
    /// which in a left-to-right run is the text's, so the next cluster's word is found by stepping
    /// on from here (a cluster before it, in a right-to-left run, is searched for).
    var wordCursor = 0
    /// The cluster being gathered: its line, run, logical box, ink box and byte range (piece's).
    var pending:
      (
        line: Int, run: UnsafeMutableRawPointer, logical: PangoRectangle, ink: PangoRectangle, range: Range<Int>,
        isEllipsis: Bool
      )?

    init(walk: Unit, words: [Range<Int>], firstWord: Int) {
      self.walk = walk
      self.words = words
      self.firstWord = firstWord
    }

    mutating func add(
      line: Int, run: UnsafeMutableRawPointer, logical: PangoRectangle, ink: PangoRectangle, range: Range<Int>,
      isEllipsis: Bool, into result: inout [Cluster]
    ) {
      if let current = pending, current.line == line, current.run == run, current.logical.x == logical.x,
        current.logical.width == logical.width
      {
        pending?.range =
          min(current.range.lowerBound, range.lowerBound)..<max(current.range.upperBound, range.upperBound)
      } else {
        flush(into: &result)
        pending = (line, run, logical, ink, range, isEllipsis)
      }
    }

    mutating func flush(into result: inout [Cluster]) {
      guard let cluster = pending else { return }
      pending = nil
      let unit = Double(PANGO_SCALE)
      let global = (cluster.range.lowerBound + walk.byteOffset)..<(cluster.range.upperBound + walk.byteOffset)
      let (xOffset, yOffset) = (walk.xOffset, walk.yOffset)
      func rect(_ r: PangoRectangle) -> Rect {
        Rect(
          x: Double(Int64(r.x) + xOffset) / unit, y: Double(Int64(r.y) + yOffset) / unit,
          width: Double(r.width) / unit, height: Double(r.height) / unit)
      }
      // The word the cluster starts in.
      let word = wordIndex(of: cluster.range.lowerBound).map { firstWord + $0 } ?? -1
      result.append(
        Cluster(
          range: global, line: cluster.line, frame: rect(cluster.logical),
          ink: cluster.ink.width > 0 && cluster.ink.height > 0 ? rect(cluster.ink) : nil,
          isEllipsis: cluster.isEllipsis, word: word))
    }

    /// The index of the word holding `offset`, or nil: the first word that ends after `offset` is
    /// found by stepping on from the last one's (clusters in the text's order), or by binary search
    /// (`TextLayout.firstEnding`) when `offset` lies before where the last one stopped.
    mutating func wordIndex(of offset: Int) -> Int? {
      var low = wordCursor
      if low > 0, words[low - 1].upperBound > offset {
        low = TextLayout.firstEnding(after: offset, in: words)
      } else {
        while low < words.count, words[low].upperBound <= offset { low += 1 }
      }
      wordCursor = low
      return low < words.count && words[low].contains(offset) ? low : nil
    }
  }

  /// Finds a Pango line's index among all lines; the walks meet the lines in order, so each is
  /// looked for from where the last one was found, once.
  struct LineFinder {
    let walk: Unit
    var current: UnsafeMutablePointer<PangoLayoutLine>?
    var index = -1
    var searchFrom = 0

    init(walk: Unit) { self.walk = walk }

    /// The line's index among all lines, or -1 for a line the walk does not keep.
    mutating func index(of line: UnsafeMutablePointer<PangoLayoutLine>) -> Int {
      if line == current { return index }
      current = line
      index = -1
      let lines = walk.lines
      if let position = lines[min(searchFrom, lines.count)...].firstIndex(of: line) ?? lines.firstIndex(of: line) {
        index = walk.firstLine + position
        searchFrom = position
      }
      return index
    }

    /// Where a walk stands at the iterator's position.
    enum Position {
      /// A line the walk does not keep, or a line's end (which has no run): go on to the next.
      case skip
      /// Past the shown lines: the walk is over.
      case end
      /// A run of a shown line.
      case run(line: Int, UnsafeMutablePointer<PangoLayoutRun>)
    }

    /// The iterator's line and run, for walks that stop after `shownCount` lines.
    mutating func position(of iterator: OpaquePointer, shownCount: Int) -> Position {
      guard let line = pango_layout_iter_get_line_readonly(iterator) else { return .skip }
      let lineIndex = index(of: line)
      guard lineIndex >= 0 else { return .skip }
      if lineIndex >= shownCount { return .end }
      guard let run = pango_layout_iter_get_run_readonly(iterator) else { return .skip }
      return .run(line: lineIndex, run)
    }
  }

  static func isEllipsis(_ run: UnsafeMutablePointer<PangoLayoutRun>) -> Bool {
    let flags = run.pointee.item?.pointee.analysis.flags ?? 0
    return Int32(flags) & Int32(PANGO_ANALYSIS_FLAG_IS_ELLIPSIS) != 0
  }

  /// The glyph walk (see `collectClusters`); false, part-way, when a run's glyph string is not as
  /// expected.
  static func walkGlyphs(
    _ iterator: OpaquePointer, walk: Unit, text: UnsafePointer<CChar>, length textLength: Int, shownCount: Int,
    gatherer: inout ClusterGatherer, into result: inout [Cluster]
  ) -> Bool {
    var finder = LineFinder(walk: walk)
    func isBoundary(_ offset: Int) -> Bool {
      offset >= textLength || UInt8(bitPattern: text[offset]) & 0xC0 != 0x80
    }
    repeat {
      let position = finder.position(of: iterator, shownCount: shownCount)
      if case .end = position { break }
      guard case .run(let lineIndex, let run) = position else { continue }
      guard let item = run.pointee.item, let glyphs = run.pointee.glyphs, let infos = glyphs.pointee.glyphs,
        let logClusters = glyphs.pointee.log_clusters, glyphs.pointee.num_glyphs > 0
      else { return false }
      let count = Int(glyphs.pointee.num_glyphs)
      let itemOffset = Int(item.pointee.offset)
      let itemLength = Int(item.pointee.length)
      guard itemOffset >= 0, itemLength > 0, itemOffset <= textLength - itemLength else { return false }
      let font = item.pointee.analysis.font
      let isLeftToRight = item.pointee.analysis.level % 2 == 0
      let isEllipsis = Self.isEllipsis(run)
      let runKey = UnsafeMutableRawPointer(run)
      // The iterator stands on the run's first cluster: what it adds to the glyph string's extents
      // there, it adds to every cluster of the run, plus the advance of the clusters before it.
      var firstInk = PangoRectangle()
      var firstLogical = PangoRectangle()
      pango_layout_iter_get_cluster_extents(iterator, &firstInk, &firstLogical)
      var inkShift = (x: Int32(0), y: Int32(0))
      var logicalShift = (x: Int32(0), y: Int32(0))
      var advance: Int32 = 0
      var start = 0
      while start < count {
        var end = start + 1
        while end < count, infos[end].attr.is_cluster_start == 0 { end += 1 }
        var ink = PangoRectangle()
        var logical = PangoRectangle()
        pango_glyph_string_extents_range(glyphs, Int32(start), Int32(end), font, &ink, &logical)
        if start == 0 {
          inkShift = (firstInk.x &- ink.x, firstInk.y &- ink.y)
          logicalShift = (firstLogical.x &- logical.x, firstLogical.y &- logical.y)
        }
        let width = logical.width
        ink.x = ink.x &+ inkShift.x &+ advance
        ink.y = ink.y &+ inkShift.y
        logical.x = logical.x &+ logicalShift.x &+ advance
        logical.y = logical.y &+ logicalShift.y
        // The cluster's text, as the iterator finds it: from its first glyph's log cluster to the
        // next cluster in logical order (the next glyph's, or for right-to-left text the previous
        // glyph's with another log cluster), or the item's end.
        let clusterStart = Int(logClusters[start])
        var clusterEnd = itemLength
        if isLeftToRight {
          if end < count { clusterEnd = Int(logClusters[end]) }
        } else {
          var previous = start
          while previous > 0, logClusters[previous - 1] == logClusters[start] { previous -= 1 }
          if previous > 0 { clusterEnd = Int(logClusters[previous - 1]) }
        }
        guard clusterStart >= 0, clusterStart < clusterEnd, clusterEnd <= itemLength,
          isBoundary(itemOffset + clusterStart), isBoundary(itemOffset + clusterEnd)
        else { return false }
        gatherer.add(
          line: lineIndex, run: runKey, logical: logical, ink: ink,
          range: (itemOffset + clusterStart)..<(itemOffset + clusterEnd), isEllipsis: isEllipsis, into: &result)
        advance = advance &+ width
        start = end
      }
    } while pango_layout_iter_next_run(iterator) != 0
    gatherer.flush(into: &result)
    return true
  }

  /// The character walk: Pango's layout iterator, character by character, each character given
  /// its cluster's extents.
  static func walkCharacters(
    _ iterator: OpaquePointer, walk: Unit, text: UnsafePointer<CChar>, shownCount: Int,
    gatherer: inout ClusterGatherer, into result: inout [Cluster]
  ) {
    var finder = LineFinder(walk: walk)
    repeat {
      let position = finder.position(of: iterator, shownCount: shownCount)
      if case .end = position { break }
      guard case .run(let lineIndex, let run) = position else { continue }
      let index = Int(pango_layout_iter_get_index(iterator))
      let length = Self.sequenceLength(UInt8(bitPattern: text[index]))
      var ink = PangoRectangle()
      var logical = PangoRectangle()
      pango_layout_iter_get_cluster_extents(iterator, &ink, &logical)
      gatherer.add(
        line: lineIndex, run: UnsafeMutableRawPointer(run), logical: logical, ink: ink, range: index..<(index + length),
        isEllipsis: Self.isEllipsis(run), into: &result)
    } while pango_layout_iter_next_char(iterator) != 0
    gatherer.flush(into: &result)
  }

}
