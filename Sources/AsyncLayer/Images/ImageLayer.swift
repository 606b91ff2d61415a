public import Foundation

/// A layer that shows the image at a URL: loaded through an ``ImageLoader`` while the layer is
/// visible, drawn off the loop with a content mode and rounded corners.
///
/// The layer asks for its image only while ``isVisible``, and withdraws its wait (not the shared
/// fetch, which other waiters may still want) when it leaves visibility or its URL changes. A
/// result commits only if it is for the layer's current URL and request: a reused cell never
/// shows the previous row's picture. Until the image arrives the layer shows
/// ``placeholderColor`` (the engine's stale-contents policy applies while a draw is pending).
/// The image is clipped to the layer's ``AsyncLayer/cornerRadius`` in its own contents, so a lone
/// image layer is rounded without a tree (changing the radius later needs a `setNeedsDisplay()`).
///
/// ```swift
/// let thumbnail = ImageLayer(loop: loop, loader: loader)
/// thumbnail.size = Size(width: 64, height: 64)
/// thumbnail.contentMode = .fill
/// thumbnail.cornerRadius = 8
/// thumbnail.url = URL(string: "https://example.com/avatar.jpg")
/// thumbnail.isVisible = true   // cell on screen: load
/// ```
open class ImageLayer: AsyncLayer {
  /// How the image fits the layer.
  public enum ContentMode: Sendable, Hashable {
    /// Scaled to fit inside, aspect kept (letterboxed).
    case fit
    /// Scaled to cover, aspect kept (cropped).
    case fill
    /// Unscaled (in points), centred.
    case center
  }

  /// The loader the layer asks; shared with other layers so that fetches are de-duplicated.
  public let loader: ImageLoader

  /// The image's URL; changing it drops the current image and withdraws the wait for the old one.
  public var url: URL? {
    didSet {
      guard url != oldValue else { return }
      withdrawRequest()
      image = nil
      lastLoadError = nil
      setNeedsDisplay()
      requestIfNeeded()
    }
  }

  /// True while the layer is on screen; only a visible layer loads.
  public var isVisible = false {
    didSet {
      guard isVisible != oldValue else { return }
      if isVisible { requestIfNeeded() } else { withdrawRequest() }
    }
  }

  /// How the image fits the layer (``ContentMode/fill`` by default).
  public var contentMode = ContentMode.fill {
    didSet { if contentMode != oldValue { setNeedsDisplay() } }
  }

  /// Shown until the image arrives (and when it fails); nil leaves the layer transparent.
  public var placeholderColor: Color? = Color(red: 0.9, green: 0.9, blue: 0.9) {
    didSet { if placeholderColor != oldValue { setNeedsDisplay() } }
  }

  /// The loaded image for ``url``, once it has arrived.
  public private(set) var image: RenderedImage?
  /// Why the last load failed, if it did.
  public private(set) var lastLoadError: ImageLoadError?
  /// Loads completed for this layer (results for an old URL or request are not counted).
  package private(set) var loadsDelivered = 0

  private var token: ImageLoadToken?
  private var requestNumber: UInt64 = 0

  /// A layer loading through `loader`.
  public init(loop: MainLoop, pool: QueuePool = .shared, loader: ImageLoader) {
    self.loader = loader
    super.init(loop: loop, pool: pool)
  }

  /// True while a load for the current URL is in flight.
  public var isLoading: Bool { token != nil }

  private func requestIfNeeded() {
    guard isVisible, token == nil, image == nil, let url else { return }
    requestNumber += 1
    let request = requestNumber
    let owner = LoopBound(WeakImageLayer(self), loop: loop)
    let loop = loop
    // `fit` never shows more pixels than the layer has: decode straight to that size. `fill` crops
    // by an aspect ratio unknown before decoding, and `center` shows the image at its own size.
    // A side that is not a finite number of pixels that fits an image (a huge size or scale)
    // asks for no downscale rather than trapping in the conversion: the decode is never upscaled.
    func pixels(_ points: Double) -> Int? {
      let value = (points * contentsScale).rounded(.up)
      return value.isFinite && value >= 1 && value <= Double(ImageDecoder.maximumPixelsPerSide) ? Int(value) : nil
    }
    var target: PixelSize? = nil
    if contentMode == .fit, !size.isEmpty, let width = pixels(size.width), let height = pixels(size.height) {
      target = PixelSize(width: width, height: height)
    }
    token = loader.load(
      url, targetPixelSize: target, on: ImageCallbackExecutor { job in loop.perform(job) }
    ) { result in
      owner.value.layer?.finishLoad(url: url, request: request, result: result)
    }
  }

  private func withdrawRequest() {
    token?.cancel()
    token = nil
    requestNumber += 1  // whatever is still on its way is for an old request
  }

  private func finishLoad(url: URL, request: UInt64, result: Result<RenderedImage, ImageLoadError>) {
    loop.preconditionInLoop()
    // Only the current URL's current request may change what the layer shows.
    guard request == requestNumber, url == self.url else { return }
    token = nil
    loadsDelivered += 1
    switch result {
    case .success(let loaded):
      image = loaded
      lastLoadError = nil
      setNeedsDisplay()
    case .failure(.cancelled):
      break
    case .failure(let error):
      lastLoadError = error
    }
  }

  open override func makeDrawOperation() -> DrawOperation? {
    let image = image
    let mode = contentMode
    let radius = cornerRadius
    let placeholder = placeholderColor
    let bounds = Rect(origin: .zero, size: size)
    return DrawOperation { context in
      context.clip(toRoundedRect: bounds, cornerRadius: radius)
      guard let image else {
        if let placeholder { context.fill(bounds, color: placeholder) }
        return
      }
      try context.checkCancellation()
      context.draw(image, in: ImageLayer.frame(of: image.size, in: bounds, mode: mode))
    }
  }

  /// Where an image of `imageSize` points goes in `bounds` for a content mode.
  public static func frame(of imageSize: Size, in bounds: Rect, mode: ContentMode) -> Rect {
    guard imageSize.width > 0, imageSize.height > 0 else { return bounds }
    let scale: Double
    switch mode {
    case .fit: scale = min(bounds.width / imageSize.width, bounds.height / imageSize.height)
    case .fill: scale = max(bounds.width / imageSize.width, bounds.height / imageSize.height)
    case .center: scale = 1
    }
    let width = imageSize.width * scale
    let height = imageSize.height * scale
    return Rect(
      x: bounds.minX + (bounds.width - width) / 2, y: bounds.minY + (bounds.height - height) / 2, width: width,
      height: height)
  }
}

/// Lets a completion reach the layer on the loop without keeping it alive.
final class WeakImageLayer {
  weak var layer: ImageLayer?
  init(_ layer: ImageLayer) { self.layer = layer }
}
