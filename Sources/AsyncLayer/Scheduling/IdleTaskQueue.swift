import OrderedCollections

/// Identified tasks that run on the loop one per turn, just before it waits — work that must
/// happen on the loop but can wait until the current turn's real work is done.
///
/// A task returns ``Progress/done`` or ``Progress/notDone``; a task that is not done runs again on
/// a later turn (never again in the same call-out, so it cannot spin the loop). It runs in the
/// common modes by default, so it keeps working while a list is tracking a scroll. At most
/// `maximumCount` tasks are kept (10 by default): adding one more drops the oldest, and
/// `onDropped` hears of it. Adding, removing, suspending and resuming are safe from any thread,
/// and from inside a running task.
///
/// ```swift
/// let idle = IdleTaskQueue(loop: loop)
/// idle.add(id: "prefetch-42") {
///   prefetchNextRows()
///   return .done
/// }
/// idle.executeNow()  // run the next task in the turn this wakes, without waiting for idle
/// ```
public final class IdleTaskQueue: Sendable {
  /// What a task says when it returns.
  public enum Progress: Sendable, Hashable {
    /// Finished: the task leaves the queue.
    case done
    /// Run me again on a later turn.
    case notDone
  }

  /// A task: runs on the loop and says whether it is done.
  public typealias Task = @Sendable () -> Progress

  /// The loop the tasks run on.
  public let loop: MainLoop
  /// The modes the tasks run in.
  public let modes: LoopModes
  private let state: Mutex<IdleTaskQueueState<Task>>
  private let onDropped: (@Sendable (String) -> Void)?
  private let registration = Mutex<(observer: LoopObserver, source: LoopSource)?>(nil)

  /// Creates the queue and registers it with `loop`. Call on the loop's thread.
  public init(
    loop: MainLoop, maximumCount: Int = 10, modes: LoopModes = .common,
    onDropped: (@Sendable (String) -> Void)? = nil
  ) {
    loop.preconditionInLoop()
    self.loop = loop
    self.modes = modes
    self.onDropped = onDropped
    state = Mutex(IdleTaskQueueState(maximumCount: maximumCount))
    // Registered after init so the callbacks can hold the queue weakly.
    let observer = loop.addObserver(.beforeWaiting, order: LoopObserverOrder.collector + 1_000, modes: modes) {
      [weak self] _ in self?.runOne()
    }
    let source = loop.addSource(modes: modes) { [weak self] in self?.runOne() }
    registration.withLock { $0 = (observer, source) }
  }

  deinit {
    guard let (observer, source) = registration.withLock({ $0 }) else { return }
    // Registrations belong to the loop's thread; a queue released elsewhere unregisters there.
    if loop.isInLoopThread {
      observer.invalidate()
      source.invalidate()
    } else {
      loop.perform {
        observer.invalidate()
        source.invalidate()
      }
    }
  }

  /// Adds a task (replacing a pending one with the same id) and wakes the loop. Any thread.
  public func add(id: String, _ task: @escaping Task) {
    let dropped = state.withLock { $0.add(id: id, task: task) }
    report(dropped)
    loop.wakeUp()
  }

  /// Removes a pending task; a running one is not put back even if it says not done.
  /// Returns false when no such task was waiting or running.
  @discardableResult
  public func remove(id: String) -> Bool {
    state.withLock { $0.remove(id: id) }
  }

  /// Removes every task.
  public func removeAll() {
    _ = state.withLock { $0.removeAll() }
  }

  /// Stops running tasks until ``resume()``.
  public func suspend() {
    state.withLock { $0.isSuspended = true }
  }

  /// Runs tasks again, waking the loop so that it does not sleep on a waiting task.
  public func resume() {
    state.withLock { $0.isSuspended = false }
    loop.wakeUp()
  }

  /// Signals the queue's source and wakes the loop: the next task runs in the turn that wakes,
  /// in the sources phase, instead of waiting for the loop to be about to sleep.
  public func executeNow() {
    registration.withLock { $0?.source }?.signal()
  }

  /// Ids of the waiting tasks, oldest first.
  package var pendingIDs: [String] {
    state.withLock { Array($0.tasks.keys) }
  }

  /// Runs the oldest task, on the loop.
  private func runOne() {
    guard let (id, task) = state.withLock({ $0.take() }) else { return }
    let progress = task()
    let (dropped, more) = state.withLock { state in
      (state.finish(id: id, task: task, done: progress == .done), state.hasRunnableTasks)
    }
    report(dropped)
    // Another turn soon for the next task — but not for a task that is not done, which waits
    // for the loop's next natural turn rather than keep it awake.
    if progress == .done && more { loop.wakeUp() }
  }

  private func report(_ dropped: [String]) {
    guard let onDropped else { return }
    for id in dropped { onDropped(id) }
  }
}
