/// An immutable bitmap: what a render produces and what a layer shows.
///
/// Pixels are premultiplied ARGB32 in native byte order, row by row with no padding — the layout
/// cairo draws into, so a render hands its buffer over without a copy. (A text tile of black or
/// white text on gray keeps one byte per pixel and makes the ARGB32 values on first use.) It is `Sendable` and can
/// cross from the draw queue to the loop freely.
///
/// ```swift
/// let image = try ImageRenderer(size: Size(width: 20, height: 10), scale: 2).render { context in
///   context.fill(Rect(x: 0, y: 0, width: 20, height: 10), color: .red)
/// }
/// image.pixelWidth  // 40
/// image.color(x: 0, y: 0)  // red
/// ```
public struct RenderedImage: Sendable, Hashable {
  /// Width in device pixels.
  public let pixelWidth: Int
  /// Height in device pixels.
  public let pixelHeight: Int
  /// Device pixels per point.
  public let scale: Double
  /// Premultiplied ARGB32 values, `pixelWidth * pixelHeight` of them, row-major.
  ///
  /// A text tile drawn in gray (black or white text on an opaque gray background) keeps one byte
  /// per pixel and makes these on first use, once.
  public var pixels: [UInt32] { gray?.argbPixels ?? argbPixels }
  /// The pixels of an image made from ARGB32 values (empty for a gray image).
  private let argbPixels: [UInt32]
  /// One byte per pixel, for a gray text tile; nil for other images.
  let gray: GrayPixels?
  /// Where a banded draw put its lines (see ``BandRecord``), so that the next draw over these
  /// pixels redraws only what changed; nil for other images. Not part of equality: two images with
  /// the same pixels are equal however they were drawn.
  var bands: BandRecord? = nil

  /// Wraps existing pixels. `pixels.count` must be `pixelWidth * pixelHeight`.
  public init(pixelWidth: Int, pixelHeight: Int, scale: Double = 1, pixels: [UInt32]) {
    precondition(
      pixelWidth >= 0 && pixelHeight >= 0 && pixels.count == pixelWidth * pixelHeight,
      "pixel count does not match the dimensions")
    self.pixelWidth = pixelWidth
    self.pixelHeight = pixelHeight
    self.scale = scale
    self.argbPixels = pixels
    self.gray = nil
  }

  /// Wraps gray pixels (a gray text tile).
  init(gray: GrayPixels, scale: Double) {
    self.pixelWidth = gray.width
    self.pixelHeight = gray.height
    self.scale = scale
    self.argbPixels = []
    self.gray = gray
  }

  /// The size in points.
  public var size: Size { Size(width: Double(pixelWidth) / scale, height: Double(pixelHeight) / scale) }

  /// The raw premultiplied ARGB32 value at a pixel.
  public func pixel(x: Int, y: Int) -> UInt32 {
    if let gray {
      precondition(x >= 0 && x < pixelWidth && y >= 0 && y < pixelHeight, "pixel outside the image")
      return GrayPixels.argb(gray.gray(x: x, y: y))
    }
    return argbPixels[y * pixelWidth + x]
  }

  /// The straight (un-premultiplied) colour at a pixel.
  public func color(x: Int, y: Int) -> Color {
    let argb = pixel(x: x, y: y)
    let alpha = Double(argb >> 24) / 255
    guard alpha > 0 else { return .clear }
    func channel(_ shift: UInt32) -> Double { min(1, Double((argb >> shift) & 0xff) / 255 / alpha) }
    return Color(red: channel(16), green: channel(8), blue: channel(0), alpha: alpha)
  }

  public static func == (lhs: RenderedImage, rhs: RenderedImage) -> Bool {
    lhs.pixelWidth == rhs.pixelWidth && lhs.pixelHeight == rhs.pixelHeight && lhs.scale == rhs.scale
      && lhs.pixels == rhs.pixels
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(pixelWidth)
    hasher.combine(pixelHeight)
    hasher.combine(scale)
    hasher.combine(pixels)
  }

  /// True when every pixel is fully opaque.
  public var isFullyOpaque: Bool { gray != nil || pixels.allSatisfy { $0 >> 24 == 0xff } }
}
