import Dispatch

// Images as a layer's contents: the solid placeholder and freeing replaced contents off the loop.
extension RenderedImage {
  /// Images at least this large are freed off the loop when replaced.
  static let offLoopReleaseBytes = 1 << 20

  /// Lets go of a replaced image on a background thread when it is large: freeing tens of
  /// megabytes (a long document at 2×) returns its pages to the kernel, which would take a frame's
  /// time on the loop. If someone else still holds the image, it is freed wherever they let go.
  /// Call with the last reference, moved in (`consume`), so that the background thread's is the
  /// last one.
  static func releaseOffLoop(_ image: consuming RenderedImage?) {
    guard let count = image?.pixels.count, count >= offLoopReleaseBytes / 4 else { return }
    let box = ReleaseBox(image)
    DispatchQueue.global(qos: .utility).async { box.image = nil }
  }

  /// Carries an image to the thread that frees it.
  // @unchecked: written on the loop before the dispatch and then only by the dispatched block,
  // which the dispatch orders after it.
  private final class ReleaseBox: @unchecked Sendable {
    var image: RenderedImage?
    init(_ image: consuming RenderedImage?) { self.image = image }
  }

  /// A solid image of `color` at the renderer's pixel size.
  init(solid color: Color, renderer: ImageRenderer) {
    // Clamped (NaN as 0) first: a channel outside 0…1 would not fit its byte.
    let color = color.clamped
    func channel(_ value: Double) -> UInt32 { UInt32((value * color.alpha * 255).rounded()) }
    let alpha = UInt32((color.alpha * 255).rounded())
    let pixel = alpha << 24 | channel(color.red) << 16 | channel(color.green) << 8 | channel(color.blue)
    self.init(
      pixelWidth: renderer.pixelWidth, pixelHeight: renderer.pixelHeight, scale: renderer.scale,
      pixels: [UInt32](repeating: pixel, count: renderer.pixelWidth * renderer.pixelHeight))
  }
}
