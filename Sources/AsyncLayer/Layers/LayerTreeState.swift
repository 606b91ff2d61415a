/// A layer's place in a tree and how its superlayer composites it: stored on ``AsyncLayer``,
/// read and written on the loop only.
struct LayerTreeState {
  var origin = Point.zero
  var zPosition: Double = 0
  var isHidden = false
  var opacity: Double = 1
  var cornerRadius: Double = 0
  var masksToBounds = false
  /// In insertion order; drawing sorts them by `zPosition` (see `sublayersInDrawingOrder`).
  var sublayers: [AsyncLayer] = []
  /// Weak: a superlayer owns its sublayers, never the other way round.
  weak var superlayer: AsyncLayer?
}
