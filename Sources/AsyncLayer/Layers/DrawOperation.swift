/// A layer's drawing, captured on the loop and run on a draw queue.
///
/// Everything the closure uses must be a copy taken when the operation was made (text, colours,
/// sizes), never the layer itself: the layer may change while the draw runs. Long draws poll
/// ``DrawingContext/isCancelled`` or call ``DrawingContext/checkCancellation()`` between steps.
///
/// ```swift
/// let color = layer.tint   // snapshot on the loop
/// DrawOperation { context in
///   for row in 0..<100 {
///     try context.checkCancellation()
///     context.fill(Rect(x: 0, y: Double(row), width: 10, height: 1), color: color)
///   }
/// }
/// ```
public struct DrawOperation: Sendable {
  /// The drawing. Throwing `CancellationError` ends a cancelled draw; other errors fail it.
  public let draw: @Sendable (DrawingContext) throws -> Void

  /// The same drawing in bands, when the layer can say before drawing where each part goes (a
  /// text layer's lines): made on the draw thread, checking `isCancelled` where it can; nil from
  /// the closure when this draw cannot be banded. The engine then redraws only the bands that
  /// changed since the pixels it draws over.
  let banded: (@Sendable (_ isCancelled: () -> Bool) throws -> BandedDrawing?)?

  /// Wraps draw code.
  public init(_ draw: @escaping @Sendable (DrawingContext) throws -> Void) {
    self.draw = draw
    self.banded = nil
  }

  /// Wraps draw code and its banded form (see ``BandedDrawing``), which must draw the same pixels.
  init(
    _ draw: @escaping @Sendable (DrawingContext) throws -> Void,
    banded: @escaping @Sendable (_ isCancelled: () -> Bool) throws -> BandedDrawing?
  ) {
    self.draw = draw
    self.banded = banded
  }
}

/// What a layer shows while a new draw is pending.
public enum StaleContentsPolicy: Sendable, Hashable {
  /// Keep showing the previous contents until the new ones commit.
  case keep
  /// Show nothing (contents nil) until the new contents commit.
  case clear
  /// Show a solid colour of the layer's size until the new contents commit.
  case placeholder(Color)
}
