import DequeModule
import Synchronization

/// Measures text without drawing it, with a cache shared by all threads that use this measurer.
///
/// Lists size their rows from it: measuring is a layout, which costs a large part of a render,
/// and the same cell text is measured again and again while scrolling. The cache lives as long as
/// the measurer: keep one per list or screen, and let it go with them.
///
/// ```swift
/// let measurer = TextMeasurer(capacity: 4096)
/// let size = try measurer.size(of: .plain("Hello"), style: TextStyle(), width: 300, scale: 2)
/// ```
public final class TextMeasurer: Sendable {
  struct Key: Hashable, Sendable {
    let content: TextContent
    let style: TextStyle
    let width: Double?
    let scale: Double
  }

  private struct Cache {
    var sizes: [Key: Size] = [:]
    var order: Deque<Key> = []
    var hits = 0
    var misses = 0
  }

  private let cache = Mutex(Cache())
  /// How many sizes the cache keeps; the oldest entry leaves first.
  public let capacity: Int
  /// How much text one measurement accepts (see ``TextLimits``).
  public let limits: TextLimits

  /// A measurer that keeps `capacity` sizes (at least one) and refuses text over `limits`.
  public init(capacity: Int, limits: TextLimits = .default) {
    self.capacity = max(1, capacity)
    self.limits = limits
  }

  /// The size in points of `content` laid out at `width` (nil: unwrapped) and `scale`.
  public func size(of content: TextContent, style: TextStyle, width: Double?, scale: Double = 1) throws -> Size {
    let key = Key(content: content, style: style, width: width, scale: scale)
    let cached = cache.withLock { cache -> Size? in
      let size = cache.sizes[key]
      if size != nil { cache.hits += 1 } else { cache.misses += 1 }
      return size
    }
    if let cached { return cached }
    // Layout happens outside the lock: two threads may measure the same text once each, which is
    // cheaper than making every other measurement wait.
    let size = try TextLayout(content, style: style, width: width, scale: scale, limits: limits).size
    cache.withLock { cache in
      guard cache.sizes.updateValue(size, forKey: key) == nil else { return }
      cache.order.append(key)
      if cache.order.count > capacity, let oldest = cache.order.popFirst() {
        cache.sizes[oldest] = nil
      }
    }
    return size
  }

  /// Cache hits and misses so far.
  public var statistics: (hits: Int, misses: Int, entries: Int) {
    cache.withLock { ($0.hits, $0.misses, $0.sizes.count) }
  }

  /// Forgets every cached size.
  public func removeAll() {
    cache.withLock { $0 = Cache() }
  }
}
