/// Why a change to a layer tree was refused; the tree is left as it was.
///
/// ```swift
/// do {
///   try card.addSublayer(card)
/// } catch {
///   print(error)  // "a layer cannot become a sublayer of itself or of one of its sublayers"
/// }
/// ```
public enum LayerTreeError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The layer would become its own ancestor.
  case cycle
  /// The two layers live on different loops.
  case differentLoops
  /// An insertion index outside `0...count`.
  case indexOutOfRange(index: Int, count: Int)

  /// A sentence a person understands.
  public var description: String {
    switch self {
    case .cycle:
      return "a layer cannot become a sublayer of itself or of one of its sublayers"
    case .differentLoops:
      return "a layer and its sublayers must live on the same loop"
    case .indexOutOfRange(let index, let count):
      return "sublayer index \(index) is outside 0...\(count)"
    }
  }
}
