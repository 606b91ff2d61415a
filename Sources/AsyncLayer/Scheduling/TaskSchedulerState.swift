import DequeModule
import HeapModule

/// The pure bookkeeping behind ``TaskScheduler``: which task runs next, which one is evicted, and
/// which turns execute. No locks, no clocks, no side effects — the scheduler holds it in a mutex
/// and acts on what its transitions return.
struct TaskSchedulerState<Task> {
  struct Entry {
    let id: TaskScheduler.TaskID
    let priority: Int
    let task: Task
  }

  /// Orders the priority heap: higher priority first, and among equals the older task first.
  /// Its minimum is therefore the lowest-priority, newest task — the one to evict.
  struct Ranked: Comparable {
    let entry: Entry
    static func < (a: Ranked, b: Ranked) -> Bool {
      if a.entry.priority != b.entry.priority { return a.entry.priority < b.entry.priority }
      return a.entry.id.rawValue > b.entry.id.rawValue
    }
    static func == (a: Ranked, b: Ranked) -> Bool { a.entry.id == b.entry.id }
  }

  let strategy: TaskScheduler.Strategy
  let maximumTaskCount: Int?
  let executeNumber: Int
  let executeFrequency: Int

  private var queue: Deque<Entry> = []
  private var heap: Heap<Ranked> = []
  private var nextID: UInt64 = 0
  private var turnsSinceExecution = 0
  var isSuspended = false

  init(strategy: TaskScheduler.Strategy, maximumTaskCount: Int?, executeNumber: Int, executeFrequency: Int) {
    self.strategy = strategy
    self.maximumTaskCount = maximumTaskCount.map { max(1, $0) }
    self.executeNumber = max(1, executeNumber)
    self.executeFrequency = max(1, executeFrequency)
  }

  var count: Int { strategy == .priority ? heap.count : queue.count }

  /// Adds a task and returns the tasks evicted to keep within ``maximumTaskCount``.
  ///
  /// LIFO evicts the oldest (in a fast scroll the cells that left long ago matter least), FIFO the
  /// newest (first come, first served: the latecomer is turned away), priority the lowest ranked.
  mutating func add(_ task: Task, priority: Int) -> (id: TaskScheduler.TaskID, evicted: [Entry]) {
    nextID += 1
    let entry = Entry(id: TaskScheduler.TaskID(rawValue: nextID), priority: priority, task: task)
    var evicted: [Entry] = []
    switch strategy {
    case .lifo, .fifo: queue.append(entry)
    case .priority: heap.insert(Ranked(entry: entry))
    }
    if let maximumTaskCount {
      while count > maximumTaskCount {
        switch strategy {
        case .lifo: evicted.append(queue.removeFirst())
        case .fifo: evicted.append(queue.removeLast())
        case .priority: evicted.append(heap.removeMin().entry)
        }
      }
    }
    return (entry.id, evicted)
  }

  /// Called once per loop turn: true when this turn executes tasks (every
  /// ``executeFrequency``-th turn, and never while suspended or empty).
  mutating func beginTurn() -> Bool {
    guard !isSuspended, count > 0 else { return false }
    turnsSinceExecution += 1
    guard turnsSinceExecution >= executeFrequency else { return false }
    turnsSinceExecution = 0
    return true
  }

  /// The next task by strategy, removed from the queue.
  mutating func next() -> Entry? {
    guard !isSuspended else { return nil }
    switch strategy {
    case .lifo: return queue.popLast()
    case .fifo: return queue.popFirst()
    case .priority: return heap.popMax()?.entry
    }
  }

  /// Removes every pending task and returns them.
  mutating func removeAll() -> [Entry] {
    defer {
      queue.removeAll()
      heap = []
    }
    return strategy == .priority ? heap.unordered.map(\.entry) : Array(queue)
  }
}
