internal import CCairo
import DequeModule

/// Strong references to the last `limit` distinct GObjects handed in, oldest released first.
///
/// A thread keeps its recent Pango fonts and fontsets alive with these (see
/// ``PangoThreadState``): Pango's own caches drop them sooner than a thread that cycles through
/// many styles needs them again. Not thread-safe: one per thread.
struct RetainedObjects: ~Copyable {
  private var order: Deque<OpaquePointer> = []
  private var members: Set<OpaquePointer> = []
  let limit: Int

  init(limit: Int) { self.limit = limit }

  deinit {
    for object in order { g_object_unref(UnsafeMutableRawPointer(object)) }
  }

  /// Releases every reference held (the owner calls this before it frees what they point into).
  mutating func releaseAll() {
    for object in order { g_object_unref(UnsafeMutableRawPointer(object)) }
    order.removeAll()
    members.removeAll()
  }

  var count: Int { order.count }

  /// Takes a reference to `object` unless one is held already.
  mutating func retain(_ object: UnsafeMutableRawPointer) {
    let handle = OpaquePointer(object)
    guard members.insert(handle).inserted else { return }
    g_object_ref(object)
    order.append(handle)
    if order.count > limit, let oldest = order.popFirst() {
      members.remove(oldest)
      g_object_unref(UnsafeMutableRawPointer(oldest))
    }
  }
}
