// Compositing a layer tree into its root's `compositedContents`.
extension AsyncLayer {
  // MARK: Results

  /// The root's picture of its whole tree: its own ``contents``, then its visible sublayers back to
  /// front, each moved to its ``frame``, clipped to its rounded bounds when it ``masksToBounds``
  /// and drawn with its ``opacity`` — recursively.
  ///
  /// Each layer draws its own contents with its own display on the pool (so siblings draw in
  /// parallel). Once every visible layer's display has ended, the root snapshots the tree on the
  /// loop and composites it on the pool; the result commits on the loop only if nothing in the
  /// tree changed meanwhile (a composite's generation, like a draw's). Nil for a layer without
  /// sublayers (its ``contents`` are the whole picture), for a sublayer (its root composites it),
  /// for a zero size, and before the first composite.
  ///
  /// ```swift
  /// try card.addSublayer(avatar)
  /// try card.addSublayer(title)
  /// loop.run(until: { !card.isCompositePending })
  /// card.compositedContents   // card, avatar and title in one image
  /// ```
  public var compositedContents: RenderedImage? {
    loop.preconditionInLoop()
    return compositorStorage?.contents
  }

  /// True while the root's ``compositedContents`` are out of date: a display in the tree has not
  /// ended, or a composite is requested or in flight. False for a sublayer and a lone layer.
  public var isCompositePending: Bool {
    loop.preconditionInLoop()
    guard let compositor = compositorStorage, tree.superlayer == nil else { return false }
    return compositor.state.isPending || (!tree.sublayers.isEmpty && hasPendingDisplayInTree)
  }

  /// The composites' counters: ``DisplayStatistics/displays`` counts composites started, and each
  /// ends cancelled, discarded at the commit, committed or failed. Not part of
  /// ``MainLoop/layerStatistics``.
  public var compositeStatistics: DisplayStatistics { compositorStorage?.recorder.snapshot ?? DisplayStatistics() }

  /// The error of the last failed composite, cleared by the next commit.
  public var lastCompositeError: (any Error)? {
    loop.preconditionInLoop()
    return compositorStorage?.lastError
  }

  /// Called on the loop when a composite ends: `true` when its result is now
  /// ``compositedContents``, `false` when it was cancelled, discarded as stale, or failed.
  public var onDidComposite: ((AsyncLayer, _ finished: Bool) -> Void)? {
    get { compositorStorage?.onDidComposite }
    set {
      loop.preconditionInLoop()
      compositor.onDidComposite = newValue
    }
  }

  /// Composites the tree now, on the calling (loop) thread, from the contents committed so far —
  /// even while draws are pending. Given the same contents, the asynchronous composite makes the
  /// same pixels. Nil for a zero size.
  /// - Throws: ``RenderError`` for a size or scale that cannot be rendered.
  public func renderTree() throws -> RenderedImage? {
    loop.preconditionInLoop()
    guard !size.isEmpty else { return nil }
    return try makeTreeSnapshot().render(ImageRenderer(size: size, scale: contentsScale), isCancelled: { false })
  }

  // MARK: Requesting and starting composites

  /// The compositor, made on first use: only roots of trees need one.
  var compositor: LayerCompositor {
    if let compositorStorage { return compositorStorage }
    let compositor = LayerCompositor()
    compositorStorage = compositor
    return compositor
  }

  /// Cancels the composite in flight and asks for one at the end of the turn. Call on a root.
  func setNeedsComposite() {
    let compositor = compositor
    // Every change makes the composite in flight stale, even when one is already requested.
    cancelComposite(compositor)
    guard case .schedule = compositor.state.requestDisplay(policy: .cancelRunning) else { return }
    compositor.generationCounter.publish(compositor.state.generation)
    loop.collector.add(self, action: .composite) { $0.compositeIfNeeded() }
    // A request made while the collector flushes waits for the next flush: make sure one comes.
    loop.wakeUp()
  }

  /// The collector's action: composites when the tree has settled. Until then it does nothing —
  /// the end of each pending display asks again.
  func compositeIfNeeded() {
    loop.preconditionInLoop()
    guard let compositor = compositorStorage, compositor.state.needsDisplay else { return }
    guard tree.superlayer == nil, !tree.sublayers.isEmpty, !hasPendingDisplayInTree else {
      compositor.state.withdrawRequest()
      if tree.superlayer == nil, tree.sublayers.isEmpty { compositor.contents = nil }
      return
    }
    guard case .start(let generation, let ticket) = compositor.state.startDisplay(policy: .cancelRunning) else {
      return
    }
    compositor.generationCounter.publish(generation)
    cancelQueuedComposite(compositor, ticket: ticket)
    startComposite(compositor, generation: generation)
  }

  private func startComposite(_ compositor: LayerCompositor, generation: UInt64) {
    let recorder = compositor.recorder
    recorder.record(.displays)
    guard !size.isEmpty else { return endComposite(compositor, .rendered(nil, cpuTime: .zero), as: .commit) }
    let renderer: ImageRenderer
    do {
      renderer = try ImageRenderer(size: size, scale: contentsScale)
    } catch {
      return endComposite(compositor, .failed(error, cpuTime: .zero), as: .fail(isCurrent: true))
    }
    let job = DrawJob(
      renderer: renderer, drawing: .tree(makeTreeSnapshot()), generation: generation,
      counter: compositor.generationCounter, isCancellable: true, recorder: recorder,
      pollHook: compositor.cancellationPollHook, renderedHook: compositor.renderedHook)
    let owner = LoopBound(WeakLayer(self), loop: loop)
    let loop = loop
    let ticket = job.enqueue(on: pool) { outcome in
      loop.perform { owner.value.layer?.compositeEnded(generation: generation, outcome: outcome) }
    }
    compositor.state.drawEnqueued(generation: generation, ticket: ticket)
  }

  // MARK: Ending composites

  /// Makes the composite in flight stale; one still queued leaves its queue and ends at once.
  private func cancelComposite(_ compositor: LayerCompositor) {
    let ticket = compositor.state.cancel()
    compositor.generationCounter.publish(compositor.state.generation)
    cancelQueuedComposite(compositor, ticket: ticket)
  }

  /// Takes a composite that has not started off its queue, and reports it as cancelled.
  private func cancelQueuedComposite(_ compositor: LayerCompositor, ticket: PoolTicket?) {
    // A running composite stops by itself at its next check and reports on the loop.
    guard let ticket, let generation = compositor.state.inFlight?.generation, ticket.cancel() else { return }
    compositor.recorder.record(.cancelledBeforeStart)
    compositeEnded(generation: generation, outcome: .cancelled)
  }

  /// The end of a composite, on the loop: the machine re-checks the generation before the commit.
  private func compositeEnded(generation: UInt64, outcome: DrawOutcome) {
    loop.preconditionInLoop()
    guard let compositor = compositorStorage else { return }
    let action = compositor.state.drawEnded(generation: generation, outcome: outcome.kind)
    endComposite(compositor, outcome, as: action.result)
  }

  /// Does what the machine answered (`result`; a composite that ends at once is current), updates
  /// the results and calls ``onDidComposite`` — once per composite.
  private func endComposite(
    _ compositor: LayerCompositor, _ outcome: DrawOutcome, as result: DisplayStateMachine<PoolTicket>.EndAction.Result
  ) {
    let finished = outcome.apply(
      result, to: &compositor.contents, lastError: &compositor.lastError, recorder: compositor.recorder)
    compositor.onDidComposite?(self, finished)
  }

  /// Stops compositing when the layer stops being a root: the composite in flight goes stale and
  /// the image is dropped.
  func dropComposite() {
    guard let compositor = compositorStorage else { return }
    cancelComposite(compositor)
    compositor.state.withdrawRequest()
    compositor.contents = nil
  }

  // MARK: Snapshots

  /// True while a display of this layer or of a visible descendant has not ended.
  var hasPendingDisplayInTree: Bool {
    isDisplayPending || tree.sublayers.contains { !$0.tree.isHidden && $0.hasPendingDisplayInTree }
  }

  /// The tree's contents and geometry as they are now, hidden and fully transparent layers left out.
  func makeTreeSnapshot() -> LayerTreeSnapshot {
    LayerTreeSnapshot(
      contents: contents, size: size, origin: tree.origin, opacity: tree.opacity,
      maskCornerRadius: tree.masksToBounds ? tree.cornerRadius : nil,
      sublayers: sublayersInDrawingOrder.filter { !$0.tree.isHidden && $0.tree.opacity > 0 }.map {
        $0.makeTreeSnapshot()
      })
  }
}

extension Collector.Action {
  /// A root layer's composite of its tree.
  public static let composite = Collector.Action("composite")
}
