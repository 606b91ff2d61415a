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
    return compositor.needsComposite || compositor.inFlight != nil
      || (!tree.sublayers.isEmpty && hasPendingDisplayInTree)
  }

  /// The composites' counters: ``DisplayStatistics/displays`` counts composites started, and each
  /// ends cancelled, discarded at the commit, committed or failed. Not part of
  /// ``DisplayStatistics/global``.
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
    compositor.generationCounter.advance()
    cancelQueuedComposite()
    guard !compositor.needsComposite else { return }
    compositor.needsComposite = true
    loop.collector.add(self, action: .composite) { $0.compositeIfNeeded() }
    // A request made while the collector flushes waits for the next flush: make sure one comes.
    loop.wakeUp()
  }

  /// The collector's action: composites when the tree has settled. Until then it does nothing —
  /// the end of each pending display asks again.
  func compositeIfNeeded() {
    loop.preconditionInLoop()
    guard let compositor = compositorStorage, compositor.needsComposite else { return }
    compositor.needsComposite = false
    guard tree.superlayer == nil else { return }
    guard !tree.sublayers.isEmpty else {
      compositor.contents = nil
      return
    }
    guard !hasPendingDisplayInTree else { return }
    startComposite(compositor)
  }

  private func startComposite(_ compositor: LayerCompositor) {
    let generation = compositor.generationCounter.advance()
    cancelQueuedComposite()
    let recorder = compositor.recorder
    recorder.record(.displays)
    guard !size.isEmpty else {
      compositor.contents = nil
      compositor.lastError = nil
      recorder.record(.committed)
      return didComposite(finished: true)
    }
    let renderer: ImageRenderer
    do {
      renderer = try ImageRenderer(size: size, scale: contentsScale)
    } catch {
      compositor.lastError = error
      recorder.record(.failed)
      return didComposite(finished: false)
    }
    let snapshot = makeTreeSnapshot()
    let counter = compositor.generationCounter
    let pollHook = compositor.cancellationPollHook
    let renderedHook = compositor.renderedHook
    let loop = loop
    let owner = LoopBound(WeakLayer(self), loop: loop)
    let ticket = pool.enqueue {
      guard counter.current == generation else {
        recorder.record(.cancelledBeforeStart)
        loop.perform { owner.value.layer?.endComposite(generation: generation, outcome: .cancelled) }
        return
      }
      let isCancelled: () -> Bool = {
        pollHook?()
        return counter.current != generation
      }
      let start = ThreadCPUClock.now()
      let outcome: DrawOutcome
      do {
        let image = try snapshot.render(renderer, isCancelled: isCancelled)
        outcome = .rendered(image, cpuTime: ThreadCPUClock.now() - start)
        renderedHook?()
      } catch {
        let cpuTime = ThreadCPUClock.now() - start
        if error is CancellationError || counter.current != generation {
          recorder.record(.cancelledMidDraw, cpuTime: cpuTime)
          outcome = .cancelled
        } else {
          outcome = .failed(error, cpuTime: cpuTime)
        }
      }
      loop.perform { owner.value.layer?.endComposite(generation: generation, outcome: outcome) }
    }
    compositor.inFlight = (generation, ticket)
  }

  // MARK: Ending composites

  /// Takes a composite that has not started off its queue, and reports it as cancelled.
  private func cancelQueuedComposite() {
    guard let compositor = compositorStorage, let composite = compositor.inFlight else { return }
    // A running composite stops by itself at its next check and reports on the loop.
    guard composite.ticket.cancel() else { return }
    compositor.inFlight = nil
    compositor.recorder.record(.cancelledBeforeStart)
    didComposite(finished: false)
  }

  /// The end of a composite, on the loop: the commit, re-checking the generation.
  private func endComposite(generation: UInt64, outcome: DrawOutcome) {
    loop.preconditionInLoop()
    guard let compositor = compositorStorage else { return }
    if compositor.inFlight?.generation == generation { compositor.inFlight = nil }
    let isCurrent = compositor.generationCounter.current == generation
    switch outcome {
    case .rendered(let image, let cpuTime):
      guard isCurrent else {
        compositor.recorder.record(.discardedAtCommit, cpuTime: cpuTime)
        return didComposite(finished: false)
      }
      compositor.contents = image
      compositor.lastError = nil
      compositor.recorder.record(.committed, cpuTime: cpuTime)
      didComposite(finished: true)
    case .cancelled:
      didComposite(finished: false)
    case .failed(let error, let cpuTime):
      if isCurrent { compositor.lastError = error }
      compositor.recorder.record(.failed, cpuTime: cpuTime)
      didComposite(finished: false)
    }
  }

  private func didComposite(finished: Bool) {
    compositorStorage?.onDidComposite?(self, finished)
  }

  /// Stops compositing when the layer stops being a root: the composite in flight goes stale and
  /// the image is dropped.
  func dropComposite() {
    guard let compositor = compositorStorage else { return }
    compositor.generationCounter.advance()
    cancelQueuedComposite()
    compositor.needsComposite = false
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
