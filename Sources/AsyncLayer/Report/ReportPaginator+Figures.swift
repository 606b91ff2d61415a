extension ReportPaginator {
  /// Places a figure whole: scaled down (never up, aspect ratio kept) to the content width and,
  /// when taller than a page's content area, to that height; moved to the next page when it does
  /// not fit below what is already on this one.
  mutating func placeFigure(_ figure: ReportFigure) {
    let natural = figure.size
    guard natural.width > 0, natural.height > 0, natural.width.isFinite, natural.height.isFinite else { return }
    let factor = min(1, contentRect.width / natural.width, contentRect.height / natural.height)
    let size = Size(width: natural.width * factor, height: natural.height * factor)
    if size.height > remainingHeight + Self.epsilon, !isAtPageTop { startNewPage() }
    let frame = Rect(
      x: contentRect.minX + (contentRect.width - size.width) / 2, y: cursor, width: size.width, height: size.height)
    elements.append(.figure(figure, frame: frame))
    cursor += size.height
  }
}
