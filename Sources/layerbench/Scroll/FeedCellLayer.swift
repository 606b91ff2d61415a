import AsyncLayer

/// A reusable list cell: draws a feed row (title, body, image or its placeholder) and remembers
/// which row's content it shows, so the benchmark can tell a stale or blank cell from a current one.
final class FeedCellLayer: AsyncLayer {
  /// What a cell shows: a row, with or without its image.
  struct Shown: Equatable {
    let row: Int
    let hasImage: Bool
  }

  /// The row the cell is bound to.
  private(set) var row: Feed.Row?
  /// The row's image, once loaded.
  private(set) var image: RenderedImage?
  /// What the committed contents show; nil while blank.
  private(set) var shown: Shown?
  /// What the draw in flight (the latest started) will show when it commits.
  private var drawing: Shown?
  /// An image arrived while a draw of the same row was in flight: redraw after it commits rather
  /// than throw the nearly finished draw away.
  private var redrawAfterCommit = false
  /// How the cell asks for a display: at once, or through the benchmark's scheduler.
  var requestDisplay: (FeedCellLayer) -> Void = { $0.setNeedsDisplay() }
  /// Told on the loop when a draw of the bound row commits, with its timestamps.
  var onCommit: ((DrawProbe.Times) -> Void)?
  /// The frame in which the cell was bound to its row.
  private(set) var boundFrame = 0
  /// The latest draw handed to the pool.
  private(set) var probe: DrawProbe?

  /// Binds the cell to a row (a reused cell gets a new one); `display` says whether to request a
  /// display now or leave it to a scheduler.
  func bind(_ row: Feed.Row, image: RenderedImage?, frame: Int = 0) {
    self.row = row
    boundFrame = frame
    self.image = image
    redrawAfterCommit = false
    size = Size(width: Feed.width, height: row.height)
    cancelDisplay()  // the old row's draw is worthless now
    requestDisplay(self)
  }

  /// Hands the cell its row's image after a load.
  func setImage(_ image: RenderedImage) {
    self.image = image
    if isDisplayPending {
      redrawAfterCommit = true
    } else {
      requestDisplay(self)
    }
  }

  /// True when the contents show the bound row with everything it has.
  var isCurrent: Bool {
    guard let row else { return true }
    return shown == Shown(row: row.index, hasImage: image != nil)
  }

  /// True when the contents show another row, or nothing.
  var isStaleOrBlank: Bool {
    guard let row else { return false }
    return shown?.row != row.index
  }

  override func makeDrawOperation() -> DrawOperation? {
    guard let row else { return nil }
    let image = image
    let scale = contentsScale
    drawing = Shown(row: row.index, hasImage: image != nil)
    let probe = DrawProbe()
    self.probe = probe
    return DrawOperation { context in
      probe.markStarted()
      defer { probe.markFinished() }
      let padding = Feed.padding
      let width = Feed.width - 2 * padding
      let title = try TextLayout(.plain(row.title), style: Feed.titleStyle, width: width, scale: scale)
      context.draw(title, at: Point(x: padding, y: padding))
      try context.checkCancellation()
      let body = try TextLayout(.plain(row.body), style: Feed.bodyStyle, width: width, scale: scale)
      try context.checkCancellation()
      let bodyTop = padding + title.size.height + 4
      let drawn = context.draw(body, at: Point(x: padding, y: bodyTop))
      if drawn < body.lines.count { throw CancellationError() }
      if row.imageIndex != nil {
        let frame = Rect(
          x: padding, y: bodyTop + body.size.height + 8, width: Feed.imageHeight * 2, height: Feed.imageHeight)
        if let image {
          context.withSavedState {
            context.clip(toRoundedRect: frame, cornerRadius: 8)
            context.draw(image, in: frame)
          }
        } else {
          context.fill(roundedRect: frame, cornerRadius: 8, color: Color(red: 0.92, green: 0.92, blue: 0.92))
        }
      }
    }
  }

  override func didDisplay(finished: Bool) {
    super.didDisplay(finished: finished)
    if finished {
      shown = drawing
      if let probe { onCommit?(probe.snapshot) }
    }
    if redrawAfterCommit && !isDisplayPending {
      redrawAfterCommit = false
      requestDisplay(self)
    }
  }
}
