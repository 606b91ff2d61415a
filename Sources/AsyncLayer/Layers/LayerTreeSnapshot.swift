/// A layer tree captured on the loop for compositing: contents and geometry, already filtered
/// (hidden and fully transparent layers left out) and sorted back to front. `Sendable`, so the
/// composite can run on the pool while the live layers change.
struct LayerTreeSnapshot: Sendable {
  var contents: RenderedImage?
  var size: Size
  /// In the superlayer's coordinates; unused for the root.
  var origin: Point
  /// Applied when the superlayer draws this layer; unused for the root.
  var opacity: Double
  /// The corner radius of the clip, or nil when the layer does not mask to its bounds.
  var maskCornerRadius: Double?
  /// Back to front.
  var sublayers: [LayerTreeSnapshot]

  /// Draws the layer in its own coordinates: the clip, its contents, then each sublayer moved to
  /// its frame with its opacity. Checks for cancellation before each layer.
  func draw(in context: DrawingContext) throws {
    try context.checkCancellation()
    try context.withSavedState {
      let bounds = Rect(origin: .zero, size: size)
      if let maskCornerRadius { context.clip(toRoundedRect: bounds, cornerRadius: maskCornerRadius) }
      if let contents { context.draw(contents, in: bounds) }
      for sublayer in sublayers {
        try context.withSavedState {
          context.translateBy(x: sublayer.origin.x, y: sublayer.origin.y)
          try context.withOpacity(sublayer.opacity) { try sublayer.draw(in: context) }
        }
      }
    }
  }

  /// Composites the tree into a new image the size of `renderer`.
  func render(_ renderer: ImageRenderer, isCancelled: @escaping () -> Bool) throws -> RenderedImage {
    try renderer.render(isCancelled: isCancelled) { context in try draw(in: context) }
  }
}
