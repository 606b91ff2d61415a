// The table of contents: one linked line per heading, numbered from the previous pass.
extension ReportPaginator {
  /// One line per heading of levels 1 to 3: its title (indented by level) and its page number at
  /// the right, the whole line a link to the heading. Page numbers come from the previous pass.
  mutating func placeTableOfContents(blockIndex: Int) throws {
    let numberWidth = min(48, contentRect.width / 4)
    var numberStyle = style.tableOfContents
    numberStyle.alignment = .right
    var entry = 0
    for (index, block) in document.blocks.enumerated() {
      guard case .heading(let text, let level) = block, level <= 3 else { continue }
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
}
