internal import CCairo

/// One pixman glyph cache of a thread's ``GlyphCompositor``, with the colour glyph images of the
/// same fonts.
///
/// pixman evicts from a cache by itself once it holds more than 16 384 glyphs, which would leave
/// the compositor's glyph pointers dangling. So a generation never takes more than
/// ``GlyphCompositor/Limits/glyphsPerCache`` glyphs, and the compositor makes room by dropping
/// whole generations, the least recently used first. Dropping one costs only its fonts' glyphs:
/// those fonts start again in the newest generation when next drawn.
final class GlyphCacheGeneration {
  let cache: OpaquePointer
  private(set) var glyphCount = 0
  private(set) var imageBytes = 0
  private(set) var colorBytes = 0
  var fontCount = 0
  /// The last layout (the compositor's count) that drew with one of its fonts.
  var lastUse = 0
  private var colorImages: [OpaquePointer] = []
  /// The bytes of every ``GlyphMask`` handed out.
  private var maskBits: [UnsafeMutableRawPointer] = []

  init() {
    cache = pixman_glyph_cache_create()
  }

  deinit {
    for image in colorImages { pixman_image_unref(image) }
    for bits in maskBits { bits.deallocate() }
    pixman_glyph_cache_destroy(cache)
  }

  /// Copies an alpha glyph into the cache under (font, index); nil when pixman has no memory.
  func insert(_ image: RenderedGlyph.Image, font: OpaquePointer, index: UInt32) -> (
    glyph: UnsafeRawPointer, mask: GlyphMask
  )? {
    var alpha = image.alpha
    let glyph = alpha.withUnsafeMutableBytes { bytes -> UnsafeRawPointer? in
      guard
        let pixman = pixman_image_create_bits(
          PIXMAN_a8, Int32(image.width), Int32(image.height),
          bytes.baseAddress?.assumingMemoryBound(to: UInt32.self), Int32(image.stride))
      else { return nil }
      defer { pixman_image_unref(pixman) }
      // pixman copies the image into the cache. Glyph 0 (.notdef) must not be a null key: + 1.
      return pixman_glyph_cache_insert(
        cache, UnsafeMutableRawPointer(font), UnsafeMutableRawPointer(bitPattern: UInt(index) + 1),
        Int32(image.originX), Int32(image.originY), pixman)
    }
    guard let glyph else { return nil }
    // A copy of our own for the A8 mode (pixman's is out of reach), counted with the images.
    // Rows padded with zeros to a multiple of 16 bytes: asynclayer_a8_glyph then composites whole
    // 16-byte blocks (coverage 0 changes nothing).
    let stride = (image.width + 15) & ~15
    let byteCount = stride * image.height
    let bits = UnsafeMutableRawPointer.allocate(byteCount: max(1, byteCount), alignment: 16)
    bits.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
    image.alpha.withUnsafeBytes { alpha in
      for row in 0..<image.height {
        (bits + row * stride).copyMemory(from: alpha.baseAddress! + row * image.stride, byteCount: image.width)
      }
    }
    maskBits.append(bits)
    glyphCount += 1
    imageBytes += 2 * byteCount
    let mask = GlyphMask(
      bits: UnsafePointer(bits.assumingMemoryBound(to: UInt8.self)), stride: Int32(stride),
      width: Int32(image.width), height: Int32(image.height), originX: Int32(image.originX),
      originY: Int32(image.originY))
    return (glyph, mask)
  }

  /// Copies a colour glyph into a pixman image this generation owns.
  func insert(_ color: RenderedGlyph.ColorImage) -> ColorGlyph? {
    guard let image = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(color.width), Int32(color.height), nil, 0),
      let bits = pixman_image_get_data(image)
    else { return nil }
    let stride = Int(pixman_image_get_stride(image)) / 4
    color.pixels.withUnsafeBufferPointer { pixels in
      for row in 0..<color.height {
        (bits + row * stride).update(from: pixels.baseAddress! + row * color.width, count: color.width)
      }
    }
    colorImages.append(image)
    glyphCount += 1
    imageBytes += color.width * color.height * 4
    colorBytes += color.width * color.height * 4
    return ColorGlyph(
      image: image, offsetX: Int32(-color.originX), offsetY: Int32(-color.originY), width: Int32(color.width),
      height: Int32(color.height))
  }
}
