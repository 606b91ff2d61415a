import DequeModule

/// Recency order and byte accounting for a cache, with O(1) amortised lookups, touches and evictions.
///
/// Each entry carries a stamp; a touch gives it a new stamp and appends `(key, stamp)` to the
/// recency queue, leaving the old queue element stale. Eviction pops from the front and skips stale
/// elements. The queue is compacted when stale elements outnumber live ones, so it stays O(count).
/// This avoids the O(n) removal an `OrderedDictionary`-based LRU pays on every hit.
struct LRUIndex<Key: Hashable, Value> {
  private struct Entry {
    var value: Value
    var cost: Int
    var stamp: UInt64
  }

  private var entries: [Key: Entry] = [:]
  private var recency: Deque<(key: Key, stamp: UInt64)> = []
  private var nextStamp: UInt64 = 0
  /// The sum of the costs of all entries.
  private(set) var totalCost = 0

  var count: Int { entries.count }

  /// The value for `key`, marking it most recently used.
  mutating func touch(_ key: Key) -> Value? {
    guard var entry = entries[key] else { return nil }
    entry.stamp = stamp()
    entries[key] = entry
    recency.append((key, entry.stamp))
    compactIfNeeded()
    return entry.value
  }

  /// The value for `key` without changing the order.
  func peek(_ key: Key) -> Value? { entries[key]?.value }

  /// Inserts or replaces `key` as the most recently used entry.
  mutating func insert(_ value: Value, cost: Int, for key: Key) {
    if let old = entries[key] { totalCost -= old.cost }
    let entry = Entry(value: value, cost: cost, stamp: stamp())
    entries[key] = entry
    totalCost += cost
    recency.append((key, entry.stamp))
    compactIfNeeded()
  }

  /// Removes `key`; returns its value if it was present.
  @discardableResult
  mutating func remove(_ key: Key) -> Value? {
    guard let entry = entries.removeValue(forKey: key) else { return nil }
    totalCost -= entry.cost
    return entry.value
  }

  /// Removes least recently used entries until `totalCost <= budget`; returns them, oldest first.
  mutating func evict(toFit budget: Int) -> [(key: Key, value: Value)] {
    var evicted: [(key: Key, value: Value)] = []
    while totalCost > budget, let oldest = recency.popFirst() {
      guard let entry = entries[oldest.key], entry.stamp == oldest.stamp else { continue }
      entries.removeValue(forKey: oldest.key)
      totalCost -= entry.cost
      evicted.append((oldest.key, entry.value))
    }
    return evicted
  }

  /// Keys from least to most recently used.
  var keysByRecency: [Key] {
    recency.filter { entries[$0.key]?.stamp == $0.stamp }.map(\.key)
  }

  mutating func removeAll() {
    entries.removeAll()
    recency.removeAll()
    totalCost = 0
  }

  private mutating func stamp() -> UInt64 {
    nextStamp += 1
    return nextStamp
  }

  private mutating func compactIfNeeded() {
    guard recency.count > 2 * entries.count + 16 else { return }
    recency = Deque(recency.filter { entries[$0.key]?.stamp == $0.stamp })
  }
}
