extension ImageRenderer {
  /// Runs `draw` on a queue of `pool` (off the cooperative pool) and returns the pixels.
  ///
  /// The drawing context's ``DrawingContext/isCancelled`` turns true when the calling task is
  /// cancelled; draw code that calls ``DrawingContext/checkCancellation()`` between steps stops
  /// there. A draw cancelled while queued never runs. Either way the call throws
  /// `CancellationError`, never a partly drawn image (see ``render(isCancelled:_:)``). Throws
  /// ``QueuePoolError`` when the pool refuses the draw (overloaded, shut down).
  ///
  /// ```swift
  /// let renderer = try ImageRenderer(size: Size(width: 375, height: 120), scale: 2)
  /// let image = try await renderer.render(on: .shared) { context in
  ///   context.clear(to: .white)
  ///   try context.checkCancellation()
  ///   context.fill(Rect(x: 10, y: 10, width: 100, height: 100), color: .black)
  /// }
  /// ```
  public func render(
    on pool: QueuePool = .shared, _ draw: @escaping @Sendable (DrawingContext) throws -> Void
  ) async throws -> RenderedImage {
    let renderer = self
    return try await pool.run { isCancelled in try renderer.render(isCancelled: isCancelled, draw) }
  }
}
