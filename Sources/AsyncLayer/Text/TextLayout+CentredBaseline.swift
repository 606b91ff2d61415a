internal import CCairo

// Vertical layouts: Pango (1.50) draws a run turned by its gravity (Latin sideways in a column,
// and the upright CJK too) about a centred baseline, and its run extents
// (`pango_layout_iter_get_run_extents`) apply that shift, but its cluster extents
// (`pango_layout_iter_get_cluster_extents`, what the boxes are read from) do not: a Latin run's
// clusters came out 9 points off the glyphs in a 20-point column. The shift is the same for every
// cluster of a run, so the boxes are moved run by run, by the difference between the run's logical
// top and its first cluster's.
extension TextLayout {
  /// A run's clusters' correction: the shown line, the run's bytes of ``text`` and the shift down,
  /// in points.
  struct RunShift {
    var line: Int
    var bytes: Range<Int>
    var dy: Double
  }

  /// The non-zero shifts of the shown lines' runs, from the one layout or from each piece (a
  /// vertical text is laid out in pieces as a horizontal one is, see `laysOutInPieces`).
  func centredBaselineShifts() -> [RunShift] {
    var shifts: [RunShift] = []
    if pieces.isEmpty {
      appendShifts(of: raw, byteOffset: 0, lineIndices: lineIndices(), to: &shifts)
    } else {
      for piece in pieces where piece.firstLine < lines.count {
        var indices: [UnsafeMutablePointer<PangoLayoutLine>: Int] = [:]
        for (offset, line) in piece.lines.enumerated() { indices[line] = piece.firstLine + offset }
        appendShifts(of: piece.raw, byteOffset: piece.byteOffset, lineIndices: indices, to: &shifts)
      }
    }
    return shifts
  }

  /// The shifts of the runs of `layout` on shown lines (`lineIndices` maps its kept lines to their
  /// indices among all lines), their bytes moved by `byteOffset`.
  private func appendShifts(
    of layout: OpaquePointer, byteOffset: Int, lineIndices indices: [UnsafeMutablePointer<PangoLayoutLine>: Int],
    to shifts: inout [RunShift]
  ) {
    guard let iterator = pango_layout_get_iter(layout) else { return }
    defer { pango_layout_iter_free(iterator) }
    repeat {
      guard let line = pango_layout_iter_get_line_readonly(iterator), let index = indices[line], index < lines.count,
        let run = pango_layout_iter_get_run_readonly(iterator), let item = run.pointee.item
      else { continue }
      var runLogical = PangoRectangle()
      var clusterLogical = PangoRectangle()
      pango_layout_iter_get_run_extents(iterator, nil, &runLogical)
      pango_layout_iter_get_cluster_extents(iterator, nil, &clusterLogical)
      let dy = Int64(runLogical.y) - Int64(clusterLogical.y)
      guard dy != 0 else { continue }
      let start = byteOffset + Int(item.pointee.offset)
      shifts.append(
        RunShift(line: index, bytes: start..<(start + Int(item.pointee.length)), dy: Double(dy) / Double(PANGO_SCALE)))
    } while pango_layout_iter_next_run(iterator) != 0
  }
}

extension TextBoxes {
  /// The clusters moved by their runs' `shifts`, and the words made again as the unions of their
  /// clusters (lines are Pango's line extents, already right).
  func shifted(by shifts: [TextLayout.RunShift]) -> TextBoxes {
    guard !shifts.isEmpty else { return self }
    func move(_ rect: Rect, _ dy: Double) -> Rect {
      Rect(x: rect.minX, y: rect.minY + dy, width: rect.width, height: rect.height)
    }
    let moved = clusters.map { box -> TextBox in
      guard
        let shift = shifts.first(where: { $0.line == box.lineIndex && $0.bytes.contains(box.utf8Range.lowerBound) })
      else { return box }
      return TextBox(
        text: box.text, utf8Range: box.utf8Range, lineIndex: box.lineIndex, frame: move(box.frame, shift.dy),
        inkFrame: box.inkFrame.map { move($0, shift.dy) })
    }
    func union(_ a: Rect, _ b: Rect) -> Rect {
      let minX = min(a.minX, b.minX)
      let minY = min(a.minY, b.minY)
      return Rect(x: minX, y: minY, width: max(a.maxX, b.maxX) - minX, height: max(a.maxY, b.maxY) - minY)
    }
    let rebuilt = words.map { word -> TextBox in
      let members = moved.filter { $0.lineIndex == word.lineIndex && word.utf8Range.contains($0.utf8Range.lowerBound) }
      guard let first = members.first else { return word }
      let frame = members.dropFirst().reduce(first.frame) { union($0, $1.frame) }
      let inks = members.compactMap(\.inkFrame)
      let ink = inks.first.map { first in inks.dropFirst().reduce(first, union) }
      return TextBox(text: word.text, utf8Range: word.utf8Range, lineIndex: word.lineIndex, frame: frame, inkFrame: ink)
    }
    return TextBoxes(clusters: moved, words: rebuilt, lines: lines)
  }
}
