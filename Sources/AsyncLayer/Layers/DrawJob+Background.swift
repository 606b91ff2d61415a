import Synchronization

// A layer's draw: its background, then its operation — the background written while the pixel
// memory is initialized when it covers every pixel alike.
extension DrawJob {
  /// Draws a layer's contents: `backgroundColor` (white under it when `isOpaque` and it is missing
  /// or translucent), then `operation`, banded when the operation can be.
  func renderLayer(
    _ operation: DrawOperation?, isOpaque: Bool, backgroundColor: Color?, isCancelled: @escaping () -> Bool
  ) throws -> RenderedImage {
    let shown = shown?.take()  // held for this call only, by every path
    // When the background covers every pixel alike, its pixel value is written in the pass that
    // initializes the memory, not by a second pass over it (the same value: cairo computes it).
    let prefilled = renderer.coversWholePixels && (isOpaque || backgroundColor != nil)
    let pixel = prefilled ? try Self.backgroundPixel(isOpaque: isOpaque, backgroundColor: backgroundColor) : 0
    // A banded draw clears the rows it redraws to `pixel`: only where that is the whole background.
    let uniformBackground = prefilled || (!isOpaque && backgroundColor == nil)
    if uniformBackground, let banded = try operation?.banded?(isCancelled) {
      return try renderer.render(
        startingWith: pixel, reusing: recycler, shown: shown, banded: banded, isCancelled: isCancelled)
    }
    return try renderer.render(startingWith: pixel, reusing: recycler, isCancelled: isCancelled) { context in
      if !prefilled {
        Self.paintBackground(context, bounds: Rect(origin: .zero, size: renderer.size), isOpaque, backgroundColor)
      }
      try operation?.draw(context)
    }
  }

  private static func paintBackground(
    _ context: DrawingContext, bounds: Rect, _ isOpaque: Bool, _ backgroundColor: Color?
  ) {
    if isOpaque, !(backgroundColor?.isOpaque ?? false) { context.clear(to: .white) }
    if let backgroundColor { context.fill(bounds, color: backgroundColor) }
  }

  /// The pixel the background paints, rendered by cairo on one pixel once per background (a
  /// handful per program), then remembered: every draw asks.
  static func backgroundPixel(isOpaque: Bool, backgroundColor: Color?) throws -> UInt32 {
    let key = BackgroundKey(isOpaque: isOpaque, color: backgroundColor)
    if let pixel = backgroundPixels.withLock({ $0[key] }) { return pixel }
    let one = try ImageRenderer(size: Size(width: 1, height: 1))
    let image = try one.render { context in
      paintBackground(context, bounds: Rect(x: 0, y: 0, width: 1, height: 1), isOpaque, backgroundColor)
    }
    let pixel = image.pixels[0]
    backgroundPixels.withLock { pixels in
      if pixels.count >= maximumRememberedBackgrounds { pixels.removeAll() }  // colours computed per draw
      pixels[key] = pixel
    }
    return pixel
  }

  private struct BackgroundKey: Hashable {
    var isOpaque: Bool
    var color: Color?
  }

  private static let maximumRememberedBackgrounds = 256
  private static let backgroundPixels = Mutex<[BackgroundKey: UInt32]>([:])
}
