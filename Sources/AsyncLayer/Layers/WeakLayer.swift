/// A weak reference, so that a queued draw does not keep its layer alive.
final class WeakLayer {
  weak var layer: AsyncLayer?
  init(_ layer: AsyncLayer) { self.layer = layer }
}
