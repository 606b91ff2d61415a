extension ReportPaginator {
  /// Places a figure whole: scaled down (never up, aspect ratio kept) to the content width and,
  /// when taller than a page's content area, to that height; moved to the next page when it does
  /// not fit below what is already on this one.
  mutating func placeFigure(_ figure: ReportFigure) {
    let size = fittedSize(of: figure)
    guard size.width > 0, size.height > 0 else { return }
    if size.height > remainingHeight + Self.epsilon, !isAtPageTop { startNewPage() }
    let frame = Rect(
      x: contentRect.minX + (contentRect.width - size.width) / 2, y: cursor, width: size.width, height: size.height)
    elements.append(.figure(figure, frame: frame))
    cursor += size.height
  }

  /// The figure's size on the page: its own, scaled down to the content area; zero for a size
  /// that is not positive and finite (such a figure is skipped).
  func fittedSize(of figure: ReportFigure) -> Size {
    let natural = figure.size
    guard natural.width > 0, natural.height > 0, natural.width.isFinite, natural.height.isFinite else {
      return Size(width: 0, height: 0)
    }
    let factor = min(1, contentRect.width / natural.width, contentRect.height / natural.height)
    return Size(width: natural.width * factor, height: natural.height * factor)
  }
}
