// Layer trees: sublayers, their geometry and how a superlayer composites them.
extension AsyncLayer {
  // MARK: Geometry and appearance in the superlayer

  /// The layer's rectangle in its superlayer's coordinates. Setting it sets ``size`` (which
  /// redisplays the layer when it changes) and the origin (which only recomposites the tree).
  /// A root layer's origin has no effect on its ``compositedContents``.
  public var frame: Rect {
    get { Rect(origin: tree.origin, size: size) }
    set {
      loop.preconditionInLoop()
      if newValue.origin != tree.origin {
        tree.origin = newValue.origin
        treeDidChange()
      }
      size = newValue.size
    }
  }

  /// The drawing order among siblings: higher values draw on top; equal values draw in
  /// ``sublayers`` order (later on top). NaN counts as 0.
  public var zPosition: Double {
    get { tree.zPosition }
    set { updateTree(\.zPosition, to: newValue.isNaN ? 0 : newValue) }
  }

  /// A hidden layer and its sublayers are left out of the composite.
  public var isHidden: Bool {
    get { tree.isHidden }
    set { updateTree(\.isHidden, to: newValue) }
  }

  /// How opaque the layer and its sublayers are, as one group, in its superlayer's composite:
  /// clamped to 0…1 (NaN counts as 0). A root's own opacity does not apply to its composite.
  public var opacity: Double {
    get { tree.opacity }
    set { updateTree(\.opacity, to: newValue.isNaN ? 0 : min(max(newValue, 0), 1)) }
  }

  /// The radius of the rounded clip that ``masksToBounds`` applies; at least 0 (NaN counts as 0).
  public var cornerRadius: Double {
    get { tree.cornerRadius }
    set { updateTree(\.cornerRadius, to: newValue.isNaN ? 0 : max(newValue, 0)) }
  }

  /// Whether the layer's contents and sublayers are clipped to its bounds, with rounded corners
  /// of ``cornerRadius``.
  public var masksToBounds: Bool {
    get { tree.masksToBounds }
    set { updateTree(\.masksToBounds, to: newValue) }
  }

  // MARK: The tree

  /// The sublayers in insertion order (see ``zPosition`` for the drawing order).
  public var sublayers: [AsyncLayer] {
    loop.preconditionInLoop()
    return tree.sublayers
  }

  /// The layer this one is a sublayer of, if any.
  public var superlayer: AsyncLayer? {
    loop.preconditionInLoop()
    return tree.superlayer
  }

  /// The topmost ancestor: the layer whose ``compositedContents`` shows this one (itself for a root).
  public var rootLayer: AsyncLayer {
    loop.preconditionInLoop()
    var root = self
    while let parent = root.tree.superlayer { root = parent }
    return root
  }

  /// Appends `layer` to the sublayers, taking it out of its previous superlayer first.
  ///
  /// ```swift
  /// let card = AsyncLayer(loop: loop)
  /// card.frame = Rect(x: 0, y: 0, width: 320, height: 120)
  /// let avatar = AsyncLayer(loop: loop)
  /// avatar.frame = Rect(x: 12, y: 12, width: 40, height: 40)
  /// avatar.cornerRadius = 20
  /// avatar.masksToBounds = true
  /// try card.addSublayer(avatar)
  /// ```
  /// - Throws: ``LayerTreeError`` when `layer` is this layer or one of its ancestors, or lives on
  ///   another loop.
  public func addSublayer(_ layer: AsyncLayer) throws(LayerTreeError) {
    loop.preconditionInLoop()
    let index = layer.tree.superlayer === self ? tree.sublayers.count - 1 : tree.sublayers.count
    try insertSublayer(layer, at: index)
  }

  /// Inserts `layer` among the sublayers at `index` (0 is the back among equal ``zPosition``s),
  /// taking it out of its previous superlayer first. When `layer` already is a sublayer of this
  /// layer, `index` counts the sublayers without it.
  /// - Throws: ``LayerTreeError`` when `layer` is this layer or one of its ancestors, lives on
  ///   another loop, or `index` is outside `0...count`.
  public func insertSublayer(_ layer: AsyncLayer, at index: Int) throws(LayerTreeError) {
    loop.preconditionInLoop()
    guard layer.loop === loop else { throw .differentLoops }
    var ancestor: AsyncLayer? = self
    while let current = ancestor {
      if current === layer { throw .cycle }
      ancestor = current.tree.superlayer
    }
    let remaining = tree.sublayers.count - (layer.tree.superlayer === self ? 1 : 0)
    guard (0...remaining).contains(index) else { throw .indexOutOfRange(index: index, count: remaining) }

    layer.removeFromSuperlayer()
    layer.dropComposite()
    tree.sublayers.insert(layer, at: index)
    layer.tree.superlayer = self
    treeDidChange()
  }

  /// Takes the layer out of its superlayer; it becomes the root of its own subtree. Does nothing
  /// for a root.
  public func removeFromSuperlayer() {
    loop.preconditionInLoop()
    guard let parent = tree.superlayer else { return }
    parent.tree.sublayers.removeAll { $0 === self }
    tree.superlayer = nil
    // The old tree loses this subtree (its root may now have no sublayers left).
    parent.rootLayer.setNeedsComposite()
    if !tree.sublayers.isEmpty { setNeedsComposite() }
  }

  // MARK: Internals

  /// Sublayers back to front: by ``zPosition``, then by insertion order.
  var sublayersInDrawingOrder: [AsyncLayer] {
    tree.sublayers.enumerated()
      .sorted { ($0.element.tree.zPosition, $0.offset) < ($1.element.tree.zPosition, $1.offset) }
      .map(\.element)
  }

  private func updateTree<Value: Equatable>(_ property: WritableKeyPath<LayerTreeState, Value>, to value: Value) {
    loop.preconditionInLoop()
    guard tree[keyPath: property] != value else { return }
    tree[keyPath: property] = value
    treeDidChange()
  }

  /// Something the composite shows changed (geometry, visibility, the sublayers): the root
  /// composites again.
  func treeDidChange() {
    guard tree.superlayer != nil || !tree.sublayers.isEmpty else { return }
    rootLayer.setNeedsComposite()
  }

  /// Called by each display transition (AsyncLayer+Display.swift): a display was requested,
  /// started, or ended. For a layer in a tree, the root's composite in flight is stale and a
  /// new one is due once every display has ended.
  func displayStateDidChange() {
    guard tree.superlayer != nil || !tree.sublayers.isEmpty else { return }
    rootLayer.setNeedsComposite()
  }
}
