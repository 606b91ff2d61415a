// The per-request cost of the two ways the tile route has cancelled a draw, alone (no HTTP, no
// drawing): a model with the server's own code for both, around a stand-in for QueuePool.run (one
// worker thread that resumes the caller's continuation at once, as a pool with nothing to draw).
//   group:  commit 635f9e7's DrawRunner.within: a task group racing the run against a sleeping
//           deadline task and a task waiting on the connection's hang-up (ConnectionHangUp.wait)
//   switch: one cancel switch per request, an entry in a shared deadline timer and a watch on the
//           connection (DeadlineTimer, ConnectionHangUp.watch), the run awaited by the request's task
//   bare:   the stand-in run alone
// Prints process CPU (user + system, getrusage) and wall time per request, interleaved rounds.
// Build and run: swiftc -O -parse-as-library bench/server/cancel_mechanism.swift -o /tmp/cancel_mechanism
//   /tmp/cancel_mechanism [REQUESTS=20000] [CONCURRENT LOOPS=1]
import Dispatch
import Foundation
import Synchronization

/// The stand-in pool: one thread that runs submitted closures in order.
final class Worker: Sendable {
  private let items = Mutex<[@Sendable () -> Void]>([])
  private let wake = DispatchSemaphore(value: 0)
  init() { Thread { [self] in loop() }.start() }
  func submit(_ item: @escaping @Sendable () -> Void) {
    items.withLock { $0.append(item) }
    wake.signal()
  }
  private func loop() {
    while true {
      wake.wait()
      let batch = items.withLock { items -> [@Sendable () -> Void] in
        defer { items.removeAll(keepingCapacity: true) }
        return items
      }
      for item in batch { item() }
    }
  }
}

/// What a run does with a cancel: here only a flag (the real PoolRun also takes a queued item off).
final class Run: Sendable {
  let cancelled = Atomic<Bool>(false)
  func cancel() { cancelled.store(true, ordering: .relaxed) }
}

let worker = Worker()

func poolRun(_ run: Run = Run()) async throws -> Int {
  try await withTaskCancellationHandler {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
      worker.submit {
        if run.cancelled.load(ordering: .relaxed) {
          continuation.resume(throwing: CancellationError())
        } else {
          continuation.resume(returning: 1)
        }
      }
    }
  } onCancel: {
    run.cancel()
  }
}

// MARK: group (the code of commit 635f9e7)

final class HangUpWaiters: Sendable {
  private struct State {
    var hungUp = false
    var nextID = 0
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var watchers: [Int: Switch] = [:]
  }
  private let state = Mutex(State())

  func wait() async {
    let id = state.withLock { state in
      state.nextID &+= 1
      return state.nextID
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = state.withLock { state in
          if state.hungUp || Task.isCancelled { return true }
          state.waiters[id] = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
  }

  func watch(_ cancellation: Switch) -> Int {
    let (id, hungUp) = state.withLock { state -> (Int, Bool) in
      state.nextID &+= 1
      if !state.hungUp { state.watchers[state.nextID] = cancellation }
      return (state.nextID, state.hungUp)
    }
    if hungUp { cancellation.cancel() }
    return id
  }

  func stopWatching(_ id: Int) {
    _ = state.withLock { $0.watchers.removeValue(forKey: id) }
  }
}

struct DeadlineExceeded: Error {}

func groupRequest(_ hangUp: HangUpWaiters) async throws -> Int {
  try await withThrowingTaskGroup(of: Int.self) { group in
    group.addTask { try await poolRun() }
    group.addTask {
      try await Task.sleep(for: .seconds(10))
      throw DeadlineExceeded()
    }
    group.addTask {
      await hangUp.wait()
      throw CancellationError()
    }
    defer { group.cancelAll() }
    guard let value = try await group.next() else { throw CancellationError() }
    return value
  }
}

// MARK: switch (this commit's code: PoolCancellation, DeadlineTimer, ConnectionHangUp.watch)

final class Switch: Sendable {
  private struct State {
    var isCancelled = false
    var action: (@Sendable () -> Void)?
  }
  private let state = Mutex(State())
  func cancel() {
    let action = state.withLock { state -> (@Sendable () -> Void)? in
      guard !state.isCancelled else { return nil }
      state.isCancelled = true
      defer { state.action = nil }
      return state.action
    }
    action?()
  }
  func attach(_ action: @escaping @Sendable () -> Void) -> Bool {
    state.withLock { state in
      guard !state.isCancelled else { return false }
      state.action = action
      return true
    }
  }
  func detach() { state.withLock { $0.action = nil } }
}

final class Timer: Sendable {
  private struct Entry {
    var deadline: ContinuousClock.Instant
    var action: @Sendable () -> Void
  }
  private struct State {
    var entries: [Int: Entry] = [:]
    var nextID = 0
    var wakeAt: ContinuousClock.Instant?
  }
  private let state = Mutex(State())
  private let wake = DispatchSemaphore(value: 0)
  init() { Thread { [self] in run() }.start() }
  func add(_ deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> Int {
    let (id, wakeEarlier) = state.withLock { state -> (Int, Bool) in
      state.nextID &+= 1
      state.entries[state.nextID] = Entry(deadline: deadline, action: action)
      guard state.wakeAt.map({ deadline < $0 }) ?? true else { return (state.nextID, false) }
      state.wakeAt = deadline
      return (state.nextID, true)
    }
    if wakeEarlier { wake.signal() }
    return id
  }
  func remove(_ id: Int) { _ = state.withLock { $0.entries.removeValue(forKey: id) } }
  private func run() {
    while true {
      let now = ContinuousClock.now
      let (due, next) = state.withLock { state -> ([@Sendable () -> Void], ContinuousClock.Instant?) in
        var dueIDs: [Int] = []
        var next: ContinuousClock.Instant?
        for (id, entry) in state.entries {
          if entry.deadline <= now {
            dueIDs.append(id)
          } else if next.map({ entry.deadline < $0 }) ?? true {
            next = entry.deadline
          }
        }
        let due = dueIDs.compactMap { state.entries.removeValue(forKey: $0)?.action }
        state.wakeAt = next
        return (due, next)
      }
      for action in due { action() }
      if let next {
        let (seconds, attoseconds) = (next - now).components
        _ = wake.wait(timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
      } else {
        wake.wait()
      }
    }
  }
}

let timer = Timer()

func switchRequest(_ hangUp: HangUpWaiters) async throws -> Int {
  let cancellation = Switch()
  let expired = Atomic<Bool>(false)
  let timerID = timer.add(ContinuousClock.now + .seconds(10)) {
    expired.store(true, ordering: .releasing)
    cancellation.cancel()
  }
  let watchID = hangUp.watch(cancellation)
  defer {
    timer.remove(timerID)
    hangUp.stopWatching(watchID)
  }
  let run = Run()
  if !cancellation.attach({ run.cancel() }) { run.cancel() }
  defer { cancellation.detach() }
  return try await poolRun(run)
}

// MARK: measurement

func cpuSeconds() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
    + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

@main struct CancelMechanism {
  static func main() async throws {
    let requests = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 20_000
    // Concurrent request loops, like wrk's connections (each loop's requests one after another).
    let connections = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 1
    let rounds = 5
    let hangUp = HangUpWaiters()
    let variants: [(String, @Sendable () async throws -> Int)] = [
      ("bare", { try await poolRun() }), ("group", { try await groupRequest(hangUp) }),
      ("switch", { try await switchRequest(hangUp) }),
    ]
    var cpu: [String: [Double]] = [:]
    var wall: [String: [Double]] = [:]
    for (_, body) in variants { for _ in 0..<1_000 { _ = try await body() } }  // warm-up
    for _ in 0..<rounds {
      for (name, body) in variants {
        let c0 = cpuSeconds()
        let w0 = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
          for _ in 0..<connections {
            group.addTask { for _ in 0..<(requests / connections) { _ = try await body() } }
          }
          try await group.waitForAll()
        }
        let w = (ContinuousClock.now - w0) / .seconds(1)
        cpu[name, default: []].append((cpuSeconds() - c0) / Double(requests) * 1e6)
        wall[name, default: []].append(w / Double(requests) * 1e6)
      }
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first ?? "?"
    print(
      "\(requests) requests per variant on \(connections) concurrent loops, \(rounds) interleaved rounds, medians; "
        + "load \(load)")
    print("variant  CPU µs/request  wall µs/request  (CPU rounds)")
    for (name, _) in variants {
      let rounds = cpu[name]!.map { String(format: "%.1f", $0) }.joined(separator: ", ")
      print(
        String(format: "%-7@  %14.1f  %15.1f  ", name as NSString, median(cpu[name]!), median(wall[name]!))
          + "(\(rounds))")
    }
  }
}
