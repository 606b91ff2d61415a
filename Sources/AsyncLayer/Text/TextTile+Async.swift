extension TextTile {
  /// Lays out and draws the tile on a queue of `pool` (off the cooperative pool).
  ///
  /// Cancelling the calling task takes a queued tile off its queue at once, and stops a running one
  /// at its next check (between layout pieces, before the pixel buffer is filled, between lines);
  /// the call then throws `CancellationError`, never a partly drawn tile. Other errors are those of
  /// ``render(isCancelled:)``, and ``QueuePoolError`` when the pool refuses the tile.
  ///
  /// ```swift
  /// let tile = TextTile(.plain("Hello, 世界"), style: TextStyle(font: "Sans 14"), width: 375, scale: 2)
  /// let png = try await tile.render(on: .shared).image.pngData()
  /// ```
  public func render(on pool: QueuePool = .shared) async throws -> RenderedText {
    let tile = self
    return try await pool.run { isCancelled in try tile.render(isCancelled: isCancelled) }
  }
}
