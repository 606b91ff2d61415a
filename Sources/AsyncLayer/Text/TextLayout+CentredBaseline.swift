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

  /// The non-zero shifts of the shown lines' runs (empty for a layout in pieces: a vertical text is
  /// never split, see `laysOutInPieces`).
  func centredBaselineShifts() -> [RunShift] {
    guard pieces.isEmpty, let iterator = pango_layout_get_iter(raw) else { return [] }
    defer { pango_layout_iter_free(iterator) }
    let indices = lineIndices()
    var shifts: [RunShift] = []
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
      let start = Int(item.pointee.offset)
      shifts.append(
        RunShift(line: index, bytes: start..<(start + Int(item.pointee.length)), dy: Double(dy) / Double(PANGO_SCALE)))
    } while pango_layout_iter_next_run(iterator) != 0
    return shifts
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
