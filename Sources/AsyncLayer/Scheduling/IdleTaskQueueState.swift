import OrderedCollections

/// The pure bookkeeping behind ``IdleTaskQueue``: identified tasks in arrival order, at most
/// `maximumCount` of them, one taken per turn. The task being run is out of the dictionary while it
/// runs, so removing it (or everything) from inside a task is safe and is remembered.
struct IdleTaskQueueState<Task> {
  let maximumCount: Int
  private(set) var tasks: OrderedDictionary<String, Task> = [:]
  private(set) var running: String?
  private var runningWasRemoved = false
  var isSuspended = false

  init(maximumCount: Int) {
    self.maximumCount = max(1, maximumCount)
  }

  /// Adds (or replaces, moving it to the newest place) a task; returns the ids dropped, oldest first.
  mutating func add(id: String, task: Task) -> [String] {
    tasks.removeValue(forKey: id)
    tasks[id] = task
    if id == running { runningWasRemoved = true }  // the new task supersedes the running one
    var dropped: [String] = []
    while tasks.count > maximumCount { dropped.append(tasks.removeFirst().key) }
    return dropped
  }

  /// Removes a pending task, or marks the running one so that it is not put back.
  mutating func remove(id: String) -> Bool {
    if id == running {
      runningWasRemoved = true
      return true
    }
    return tasks.removeValue(forKey: id) != nil
  }

  mutating func removeAll() -> Int {
    defer { tasks.removeAll() }
    if running != nil { runningWasRemoved = true }
    return tasks.count
  }

  /// Takes the oldest task for this turn, or nil when suspended, empty or already running one.
  mutating func take() -> (id: String, task: Task)? {
    guard !isSuspended, running == nil, !tasks.isEmpty else { return nil }
    let (id, task) = tasks.removeFirst()
    running = id
    runningWasRemoved = false
    return (id, task)
  }

  /// Records the end of the running task. A task that is not done goes to the back (it runs again
  /// on a later turn) unless it was removed or replaced while it ran.
  /// Returns the ids dropped to stay within the maximum count.
  mutating func finish(id: String, task: Task, done: Bool) -> [String] {
    guard running == id else { return [] }
    running = nil
    defer { runningWasRemoved = false }
    guard !done && !runningWasRemoved && tasks[id] == nil else { return [] }
    tasks[id] = task
    var dropped: [String] = []
    while tasks.count > maximumCount { dropped.append(tasks.removeFirst().key) }
    return dropped
  }

  var hasRunnableTasks: Bool { !isSuspended && !tasks.isEmpty }
}
