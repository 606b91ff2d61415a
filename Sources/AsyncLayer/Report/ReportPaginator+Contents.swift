// The table of contents: one linked line per heading, numbered from the previous pass.
extension ReportPaginator {
  /// One line per heading of levels 1 to 3: its title (indented by level) and its page number at
  /// the right, the whole line a link to the heading. Page numbers come from the previous pass.
  mutating func placeTableOfContents(blockIndex: Int) throws {
    let numberWidth = min(48, contentRect.width / 4)
    var numberStyle = style.tableOfContents
    numberStyle.alignment = .right
    var entry = 0
    var leaders: [Int: TextLayout] = [:]
    for (index, block) in document.blocks.enumerated() {
      guard case .heading(let text, let level) = block.withoutFlow, level <= 3 else { continue }
      let indent = Double(level - 1) * style.tableOfContents.fontSize
      let titleWidth = contentRect.width - numberWidth - indent
      guard titleWidth >= 1 else {
        throw ReportError.pageTooSmall(pageSize: document.pageSize, margins: document.margins)
      }
      let place = previousHeadingPages[index]
      let title = try TextLayout(.plain(text), style: style.tableOfContents, width: titleWidth, limits: limits)
      let number = try TextLayout(
        .plain(place.map { "\($0.page)" } ?? "–"), style: numberStyle, width: numberWidth, limits: limits)
      let height = max(title.size.height, number.size.height)
      if height > remainingHeight + Self.epsilon, !isAtPageTop { startNewPage() }
      let role = ReportTextRun.Role.tableOfContents(entry: entry)
      elements.append(
        .text(
          placedRun(
            title, lines: 0..<title.lines.count, x: contentRect.minX + indent, top: cursor, role: role,
            blockIndex: blockIndex)))
      elements.append(
        .text(
          placedRun(
            number, lines: 0..<number.lines.count, x: contentRect.maxX - numberWidth, top: cursor, role: role,
            blockIndex: blockIndex)))
      if style.contentsLeaders {
        try placeLeader(
          title: title, titleX: contentRect.minX + indent, number: number, numberX: contentRect.maxX - numberWidth,
          entry: entry, blockIndex: blockIndex, cache: &leaders)
      }
      if let place {
        elements.append(
          .link(
            Rect(x: contentRect.minX, y: cursor, width: contentRect.width, height: height),
            target: .page(place.page, y: place.y)))
      }
      cursor += height
      entry += 1
    }
  }

  /// Leader dots on the title's last line, from a space after the title to a space before the page
  /// number, as text (selectable, vector in PDF). Lines of the same number of dots share a layout.
  private mutating func placeLeader(
    title: TextLayout, titleX: Double, number: TextLayout, numberX: Double, entry: Int, blockIndex: Int,
    cache: inout [Int: TextLayout]
  ) throws {
    guard let last = title.lines.last, let numberLine = number.lines.first, let first = title.lines.first else {
      return
    }
    let pad = style.tableOfContents.fontSize * 0.4
    let from = titleX + last.frame.maxX + pad
    let to = numberX + numberLine.frame.minX - pad
    // The width of one " ." step, from a ten-step sample laid out once.
    let sample =
      try cache[-1]
      ?? TextLayout(
        .plain(String(repeating: " .", count: 10)), style: style.tableOfContents, width: nil, limits: limits)
    cache[-1] = sample
    let step = sample.size.width / 10
    guard step > 0, to - from >= step else { return }
    let count = min(Int((to - from) / step), 2000)
    var leaderStyle = style.tableOfContents
    leaderStyle.alignment = .right
    // Its width follows from the count, so that equal counts share a layout; right-aligned, the
    // dots end at `to`.
    let width = Double(count) * step + 1
    let dots =
      try cache[count]
      ?? TextLayout(
        .plain(String(repeating: " .", count: count)), style: leaderStyle, width: width, limits: limits)
    cache[count] = dots
    guard let dotLine = dots.lines.first, dots.lines.count == 1 else { return }
    // On the title's last line's baseline.
    let top =
      cursor + last.frame.minY - first.frame.minY + last.baseline - last.frame.minY - dotLine.baseline
      + dotLine.frame.minY
    elements.append(
      .text(
        placedRun(
          dots, lines: 0..<1, x: to - width, top: top, role: .contentsLeader(entry: entry), blockIndex: blockIndex)))
  }
}
