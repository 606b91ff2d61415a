import Synchronization

/// A thread-safe, least-recently-used cache of decoded images with a byte budget.
///
/// An image costs `pixelWidth * pixelHeight * 4` bytes. Inserting past the budget evicts the least
/// recently used images; an image larger than the whole budget is not stored. Lookups, inserts and
/// evictions are O(1) amortised.
///
/// ```swift
/// let cache = ImageMemoryCache(byteLimit: 64 << 20)
/// cache.insert(image, for: ImageCacheKey(url: url))
/// cache.image(for: ImageCacheKey(url: url))  // the image, now most recently used
/// ```
public final class ImageMemoryCache: Sendable {
  /// The budget in bytes.
  public let byteLimit: Int
  private let index: Mutex<LRUIndex<ImageCacheKey, RenderedImage>>

  /// A cache holding at most `byteLimit` bytes of pixels.
  public init(byteLimit: Int) {
    self.byteLimit = max(0, byteLimit)
    self.index = Mutex(LRUIndex())
  }

  /// The bytes an image occupies in the cache.
  public static func cost(of image: RenderedImage) -> Int { image.pixelWidth * image.pixelHeight * 4 }

  /// The image for `key`, marking it most recently used; `nil` on a miss.
  public func image(for key: ImageCacheKey) -> RenderedImage? {
    index.withLock { $0.touch(key) }
  }

  /// Stores `image` as the most recently used entry, then evicts least recently used entries until
  /// the cache is within budget. Returns `false` (and stores nothing) if the image alone exceeds it.
  @discardableResult
  public func insert(_ image: RenderedImage, for key: ImageCacheKey) -> Bool {
    let cost = Self.cost(of: image)
    // Evicted images are released after the lock is dropped (freeing large arrays is not free).
    let evicted: [(key: ImageCacheKey, value: RenderedImage)] = index.withLock { index in
      guard cost <= byteLimit else {
        index.remove(key)
        return []
      }
      index.insert(image, cost: cost, for: key)
      return index.evict(toFit: byteLimit)
    }
    _ = evicted
    return cost <= byteLimit
  }

  /// Removes the image for `key`.
  public func removeImage(for key: ImageCacheKey) {
    _ = index.withLock { $0.remove(key) }
  }

  /// Removes every image.
  public func removeAll() {
    index.withLock { $0.removeAll() }
  }

  /// The bytes currently held (always `<= byteLimit`).
  public var totalCost: Int { index.withLock { $0.totalCost } }

  /// The number of images currently held.
  public var count: Int { index.withLock { $0.count } }

  /// The keys from least to most recently used (for diagnostics and tests; O(n)).
  package var keysByRecency: [ImageCacheKey] { index.withLock { $0.keysByRecency } }
}
