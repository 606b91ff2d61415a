public import Dispatch

/// Defers work into run-loop turns, a few tasks at a time, newest first, oldest first or by
/// priority — and sheds what no longer matters.
///
/// In a fast-scrolling list the cell that just appeared matters most: with ``Strategy/lifo`` and a
/// ``Configuration/maximumTaskCount`` the scheduler runs the newest requests first and evicts the
/// oldest, telling `onEvicted` about each one so its owner can clean up. Rate control runs
/// ``Configuration/executeNumber`` tasks every ``Configuration/executeFrequency`` turns, and a
/// per-turn time budget stops taking tasks once it is spent.
///
/// ```swift
/// let scheduler = TaskScheduler(
///   configuration: .init(strategy: .lifo, maximumTaskCount: 30, executeNumber: 2, executeFrequency: 1))
/// scheduler.attach(to: loop)          // runs tasks before the loop waits
/// scheduler.add { decodeThumbnail(row) }
/// ```
public final class TaskScheduler: Sendable {
  /// The order tasks run in.
  public enum Strategy: Sendable, Hashable {
    /// Newest first; evicts the oldest.
    case lifo
    /// Oldest first; evicts the newest.
    case fifo
    /// Highest priority first (ties: oldest first); evicts the lowest priority (ties: newest).
    case priority
  }

  /// Identifies a task added to the scheduler.
  public struct TaskID: Sendable, Hashable, Comparable {
    /// The scheduler's counter when the task was added: later tasks have larger values.
    public let rawValue: UInt64
    /// Orders tasks by when they were added.
    public static func < (a: TaskID, b: TaskID) -> Bool { a.rawValue < b.rawValue }
  }

  /// How the scheduler takes tasks.
  public struct Configuration: Sendable {
    /// The order tasks run in, and which one an overfull scheduler evicts.
    public var strategy: Strategy
    /// The most tasks kept; adding beyond it evicts by strategy. nil: unbounded.
    public var maximumTaskCount: Int?
    /// Tasks run per executing turn.
    public var executeNumber: Int
    /// Execute every this many turns (1: every turn).
    public var executeFrequency: Int
    /// Stop taking tasks in a turn once this much time has gone on them. nil: no budget.
    public var turnBudget: Duration?

    /// A configuration; the defaults run one task per turn, newest first, unbounded, without a
    /// time budget.
    ///
    /// ```swift
    /// let configuration = TaskScheduler.Configuration(strategy: .lifo, maximumTaskCount: 30, executeNumber: 2)
    /// ```
    public init(
      strategy: Strategy = .lifo, maximumTaskCount: Int? = nil, executeNumber: Int = 1, executeFrequency: Int = 1,
      turnBudget: Duration? = nil
    ) {
      self.strategy = strategy
      self.maximumTaskCount = maximumTaskCount
      self.executeNumber = executeNumber
      self.executeFrequency = executeFrequency
      self.turnBudget = turnBudget
    }
  }

  /// Where a task's work runs once the scheduler takes it.
  public enum Target: Sendable {
    /// On the loop thread, inside the turn.
    case loop
    /// Handed to a dispatch queue (the turn only dispatches it).
    case queue(DispatchQueue)
  }

  /// A task's work.
  public typealias Work = @Sendable () -> Void

  /// How the scheduler takes tasks.
  public let configuration: Configuration
  /// Where taken tasks run.
  public let target: Target
  private let state: Mutex<TaskSchedulerState<Work>>
  private let onEvicted: (@Sendable (TaskID) -> Void)?
  private let statistics = Mutex(Statistics())

  /// Counts of what happened to tasks.
  public struct Statistics: Sendable, Hashable {
    /// Tasks added.
    public var added = 0
    /// Tasks taken and run (or dispatched to the target queue).
    public var executed = 0
    /// Tasks dropped to keep within the maximum count.
    public var evicted = 0
    /// Tasks removed by their owner before they ran.
    public var removed = 0
    /// Executing turns that stopped early because the time budget was spent.
    public var budgetStops = 0
  }

  /// Creates a scheduler. `onEvicted` is called (on the thread that added the task that caused
  /// the eviction) with each task dropped to keep within the maximum count.
  public init(
    configuration: Configuration = Configuration(), target: Target = .loop,
    onEvicted: (@Sendable (TaskID) -> Void)? = nil
  ) {
    self.configuration = configuration
    self.target = target
    self.onEvicted = onEvicted
    state = Mutex(
      TaskSchedulerState(
        strategy: configuration.strategy, maximumTaskCount: configuration.maximumTaskCount,
        executeNumber: configuration.executeNumber, executeFrequency: configuration.executeFrequency))
  }

  /// Adds a task from any thread. `priority` matters in ``Strategy/priority`` only.
  @discardableResult
  public func add(priority: Int = 0, _ work: @escaping Work) -> TaskID {
    let added = state.withLock { state in
      let result = state.add(work, priority: priority)
      return AddResult(id: result.id, evicted: result.evicted.map(\.id))
    }
    let (id, evicted) = (added.id, added.evicted)
    statistics.withLock {
      $0.added += 1
      $0.evicted += evicted.count
    }
    if let onEvicted { for evictedID in evicted { onEvicted(evictedID) } }
    return id
  }

  private struct AddResult: Sendable {
    let id: TaskID
    let evicted: [TaskID]
  }

  /// Tasks waiting.
  public var pendingCount: Int { state.withLock { $0.count } }

  /// What has happened so far.
  public var currentStatistics: Statistics { statistics.withLock { $0 } }

  /// Stops taking tasks until ``resume()``; adding still works.
  public func suspend() { state.withLock { $0.isSuspended = true } }

  /// Takes tasks again from the next turn.
  public func resume() { state.withLock { $0.isSuspended = false } }

  /// Drops every pending task (they are not reported as evicted).
  public func removeAll() {
    let removed = state.withLock { $0.removeAll().count }
    statistics.withLock { $0.removed += removed }
  }

  /// Runs one turn's share of tasks: called by the loop observer, or by hand.
  ///
  /// `now` reads the loop's clock, so a manual clock makes the time budget deterministic.
  /// Returns the number of tasks taken.
  @discardableResult
  public func runTurn(now: () -> Duration) -> Int {
    guard state.withLock({ $0.beginTurn() }) else { return 0 }
    let start = now()
    var taken = 0
    var budgetStop = false
    while taken < configuration.executeNumber {
      if let budget = configuration.turnBudget, taken > 0, now() - start >= budget {
        budgetStop = true
        break
      }
      guard let entry = state.withLock({ $0.next() }) else { break }
      taken += 1
      switch target {
      case .loop: entry.task()
      case .queue(let queue): queue.async(execute: entry.task)
      }
    }
    statistics.withLock {
      $0.executed += taken
      if budgetStop { $0.budgetStops += 1 }
    }
    return taken
  }
}

extension TaskScheduler {
  /// Runs the scheduler's turns on `loop`: an observer takes tasks just before the loop waits
  /// (after layout and the collector's flush), in `modes` (common by default, so work continues
  /// while a list is tracking). Call on the loop's thread; keep the observer to detach.
  ///
  /// Adding a task does not wake a sleeping loop: tasks wait for its next turn (a frame timer
  /// turns it 60 times a second), so rate control never keeps an idle loop spinning.
  @discardableResult
  public func attach(
    to loop: MainLoop, modes: LoopModes = .common, order: Int = LoopObserverOrder.collector + 500
  ) -> LoopObserver {
    loop.addObserver(.beforeWaiting, order: order, modes: modes) { [weak self] _ in
      self?.runTurn(now: { loop.now })
    }
  }
}
