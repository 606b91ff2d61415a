/// Everything a draw needs, captured on the loop.
struct DrawJob: Sendable {
  let renderer: ImageRenderer
  let isOpaque: Bool
  let backgroundColor: Color?
  let operation: DrawOperation?

  func render(isCancelled: @escaping () -> Bool) throws -> RenderedImage {
    try renderer.render(isCancelled: isCancelled) { context in
      let bounds = Rect(origin: .zero, size: renderer.size)
      if isOpaque, !(backgroundColor?.isOpaque ?? false) { context.clear(to: .white) }
      if let backgroundColor { context.fill(bounds, color: backgroundColor) }
      try operation?.draw(context)
    }
  }
}
