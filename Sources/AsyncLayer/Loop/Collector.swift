import OrderedCollections

/// Batches work requested during a loop turn and runs it once, at the end of the turn — the
/// engine's `CATransaction`.
///
/// Work is a (target, action) pair; adding a pair already pending does nothing, so a layer told
/// `setNeedsDisplay()` 100 times in one turn displays once. The collector flushes on
/// ``LoopActivity/beforeWaiting`` and ``LoopActivity/exit`` at order
/// ``LoopObserverOrder/collector``, after layout observers (``LoopObserverOrder/layout``), in
/// every mode. Pairs run in the order they were first added; a pair added while flushing waits
/// for the next flush. Targets are retained until their pair has run.
///
/// ```swift
/// loop.collector.add(layer, action: .display) { $0.displayIfNeeded() }
/// ```
public final class Collector {
  /// What to do with a target; pairs with equal targets and actions coalesce.
  public struct Action: Sendable, Hashable {
    /// A name unique among the actions of one kind of target.
    public let name: String
    /// Creates an action.
    public init(_ name: String) { self.name = name }
    /// A layer's display.
    public static let display = Action("display")
  }

  private struct Key: Hashable {
    let target: ObjectIdentifier
    let action: Action
  }

  /// The loop the collector flushes on.
  public unowned let loop: MainLoop
  private var pending: OrderedDictionary<Key, () -> Void> = [:]
  /// The batch being flushed; kept between flushes so that neither table regrows every turn.
  private var flushing: OrderedDictionary<Key, () -> Void> = [:]
  private var isFlushing = false
  /// How many flushes ran at least one pair.
  package private(set) var flushCount = 0

  init(loop: MainLoop) {
    self.loop = loop
    loop.addObserver([.beforeWaiting, .exit], order: LoopObserverOrder.collector, modes: .common) { [unowned self] _ in
      self.flush()
    }
  }

  /// Adds a pair to run at the next flush; false (and nothing changes) when it is already pending.
  @discardableResult
  public func add<Target: AnyObject>(_ target: Target, action: Action, _ perform: @escaping (Target) -> Void) -> Bool {
    loop.preconditionInLoop()
    let key = Key(target: ObjectIdentifier(target), action: action)
    guard pending[key] == nil else { return false }
    // The closure holds the target strongly, which also keeps its ObjectIdentifier unique.
    pending[key] = { perform(target) }
    return true
  }

  /// Pairs waiting for the next flush.
  public var pendingCount: Int { pending.count }

  /// Runs the pending pairs now. The loop calls this; call it directly to commit early.
  public func flush() {
    loop.preconditionInLoop()
    // A flush started from inside a flush leaves the new pairs for the next one.
    guard !pending.isEmpty, !isFlushing else { return }
    isFlushing = true
    defer { isFlushing = false }
    swap(&pending, &flushing)
    flushCount += 1
    for perform in flushing.values { perform() }
    flushing.removeAll(keepingCapacity: true)
  }
}

extension MainLoop {
  /// The loop's collector. Call on the loop's thread.
  public var collector: Collector {
    preconditionInLoop()
    return confined.collector!
  }
}
