/// A drawing that says what it puts where before it draws (a ``BandRecord``), and draws any range
/// of its bands: what lets a redraw over the previous pixels draw only what changed.
///
/// It is made on the draw thread and used there (a text layer's holds its ``TextLayout``).
///
/// ```swift
/// let drawing = BandedDrawing(record: BandRecord(key: key, bands: layout.bands(origin: origin, scale: 2))) {
///   context, bands in context.draw(layout, at: origin, lines: bands)
/// }
/// ```
struct BandedDrawing {
  /// The record of the finished drawing.
  var record: BandRecord
  /// Draws the bands in the range (all of them for a full draw); throws `CancellationError` when
  /// cancelled part-way.
  var draw: (DrawingContext, Range<Int>) throws -> Void
}
