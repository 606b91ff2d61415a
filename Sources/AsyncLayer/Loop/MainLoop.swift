import DequeModule
import Foundation
import HeapModule
import Synchronization

/// A run loop owned by one thread, modelled on `CFRunLoop`: the "main thread" of the engine.
///
/// Each turn fires the due timers, runs blocks handed in with ``perform(_:)`` and the signalled
/// sources, and notifies observers of its activities (``LoopActivity``) in ascending order; then
/// it waits for the next timer, a signal, or ``wakeUp()`` from any thread.
///
/// Layers, the ``Collector`` and the registration APIs belong to the loop's thread (the thread that
/// created the loop) and check it with a precondition, as `NIOLoopBound` does. Other threads talk
/// to the loop only through ``perform(_:)``, ``wakeUp()``, ``stop()`` and ``LoopSource/signal()``.
///
/// Two clocks:
/// - ``Clock/realTime``: time passes; ``run(in:)`` sleeps until the next timer or signal. For the
///   CLI and benchmarks, with a frame timer from ``addFrameTimer(rate:modes:_:)``.
/// - ``Clock/manual``: a virtual clock that only ``advance(by:in:)`` moves. A test thread owns the
///   loop and steps it with ``runOnce(in:)``; ``run(in:until:timeout:)`` sleeps only on the wake-up
///   signal (a draw finishing on the pool and performing its commit), never on time.
///
/// ```swift
/// let loop = MainLoop(clock: .manual)
/// let layer = TextLayer(loop: loop)
/// layer.size = Size(width: 200, height: 40)
/// layer.text = .plain("Hello")
/// loop.runOnce()                                   // the collector flushes: the draw starts
/// loop.run(until: { layer.contents != nil })       // returns when the commit has run
/// ```
public final class MainLoop: Sendable {
  /// Where the loop's time comes from.
  public enum Clock: Sendable, Hashable {
    /// Real time (`ContinuousClock`); the loop sleeps until its next timer.
    case realTime
    /// A virtual clock moved only by ``MainLoop/advance(by:in:)``; for deterministic tests.
    case manual
  }

  /// The clock this loop runs on.
  public let clock: Clock
  let ownerThread: UInt
  let start = ContinuousClock.now
  let waker = LoopWaker()
  let performQueue = Mutex(Deque<@Sendable () -> Void>())
  let stopRequested = Atomic<Bool>(false)
  let confined = LoopConfinedState()
  /// Counts the displays of every layer on this loop (``layerStatistics``).
  let layerStatisticsRecorder = StatisticsRecorder(parent: nil)

  /// Creates a loop owned by the calling thread.
  public init(clock: Clock = .realTime) {
    self.clock = clock
    self.ownerThread = currentThreadID()
    // Created now so that its observer is in place before any other code registers or runs.
    confined.collector = Collector(loop: self)
  }

  // MARK: Thread confinement

  /// True on the thread that owns the loop.
  public var isInLoopThread: Bool { currentThreadID() == ownerThread }

  /// Stops the program when called off the loop's thread: layer APIs call this first.
  public func preconditionInLoop(file: StaticString = #fileID, line: UInt = #line) {
    precondition(isInLoopThread, "this must be called on the loop's thread", file: file, line: line)
  }

  // MARK: Cross-thread API

  /// Enqueues `work` to run on the loop's thread during its next turn and wakes the loop.
  /// Callable from any thread; blocks run in the order they were performed, in every mode.
  public func perform(_ work: @escaping @Sendable () -> Void) {
    performQueue.withLock { $0.append(work) }
    waker.wake()
  }

  /// Wakes the loop if it sleeps, so that it runs another turn. Callable from any thread.
  public func wakeUp() { waker.wake() }

  /// Makes the current (or next) ``run(in:)`` return after its turn. Callable from any thread.
  public func stop() {
    stopRequested.store(true, ordering: .sequentiallyConsistent)
    waker.wake()
  }

  // MARK: Time

  /// Time since the loop was created: real time, or the virtual time of a manual clock.
  public var now: Duration {
    preconditionInLoop()
    switch clock {
    case .realTime: return ContinuousClock.now - start
    case .manual: return confined.virtualNow
    }
  }

  /// The mode of the innermost run in progress, or nil between runs.
  public var currentMode: LoopMode? {
    preconditionInLoop()
    return confined.modeStack.last
  }

  // MARK: Running

  /// Runs one turn in `mode` and returns without waiting: entry, timers, blocks and sources,
  /// beforeWaiting (the collector flushes), exit.
  public func runOnce(in mode: LoopMode = .default) {
    preconditionInLoop()
    _ = runLoop(mode: mode, blocking: false, safetyTimeout: nil) { true }
  }

  /// Runs turns in `mode` until `condition` holds after a turn, sleeping between turns on the
  /// wake-up signal (and, on the real clock, until the next timer).
  ///
  /// On a manual clock this is how a test "runs until idle": it sleeps only until a pool draw
  /// performs its commit. `timeout` (real time) is a safety net against a bug that would otherwise
  /// hang the test; reaching it returns false.
  @discardableResult
  public func run(in mode: LoopMode = .default, until condition: () -> Bool, timeout: Duration = .seconds(60)) -> Bool {
    preconditionInLoop()
    return runLoop(mode: mode, blocking: true, safetyTimeout: timeout, condition)
  }

  /// Runs turns in `mode` until ``stop()`` is called.
  public func run(in mode: LoopMode = .default) {
    preconditionInLoop()
    _ = runLoop(mode: mode, blocking: true, safetyTimeout: nil) {
      self.stopRequested.exchange(false, ordering: .sequentiallyConsistent)
    }
  }

  /// The longest timer delay, interval, tolerance or ``advance(by:in:)`` step, about 100 years.
  /// Timers clamp longer ones to it; `advance(by:)` refuses them. The loop's clock is a `Duration`,
  /// whose arithmetic traps on overflow: bounded steps keep every deadline sum far from it.
  public static let maximumTimeInterval = Duration.seconds(100 * 365 * 86_400)

  /// Moves a manual clock forward by `duration`, running a turn at every timer deadline on the
  /// way (so a repeating timer fires once per interval) and one at the end.
  public func advance(by duration: Duration, in mode: LoopMode = .default) throws(LoopError) {
    preconditionInLoop()
    guard clock == .manual else { throw .cannotAdvance("the loop runs on the real-time clock") }
    guard duration >= .zero else { throw .cannotAdvance("the duration \(duration) is negative") }
    guard duration <= Self.maximumTimeInterval else {
      throw .cannotAdvance(
        "the duration \(duration) exceeds the limit of \(Self.maximumTimeInterval) (about 100 years)")
    }
    let target = confined.virtualNow + duration
    enter(mode)
    defer { leave() }
    while let deadline = nextTimerDeadline(in: mode), deadline <= target {
      confined.virtualNow = max(confined.virtualNow, deadline)
      turn(in: mode)
      notify(.afterWaiting, in: mode)
    }
    confined.virtualNow = target
    turn(in: mode)
  }

  /// Starts a real-time loop on a new thread named `name` and returns it once it runs.
  /// `setUp` runs first on that thread (register timers and observers there). Stop it with ``stop()``.
  public static func startOnNewThread(
    name: String = "asynclayer.mainloop", setUp: @escaping @Sendable (MainLoop) -> Void = { _ in }
  ) -> MainLoop {
    let handOver = Mutex<MainLoop?>(nil)
    // Signalled once the new thread has created its loop: a one-shot hand-over, no polling.
    let ready = DispatchSemaphore(value: 0)
    let thread = Thread {
      let loop = MainLoop(clock: .realTime)
      handOver.withLock { $0 = loop }
      setUp(loop)
      ready.signal()
      loop.run()
    }
    thread.name = name
    thread.start()
    ready.wait()
    return handOver.withLock { $0! }
  }
}

/// Wakes a sleeping loop. Shared by the loop and its sources, so that a source does not keep the
/// loop alive.
///
/// `Synchronization` has no condition variable, so the sleep is a `DispatchSemaphore`; the atomic
/// flag keeps the semaphore's count at most one, so a burst of `perform`s costs one wake-up.
final class LoopWaker: Sendable {
  private let semaphore = DispatchSemaphore(value: 0)
  private let pending = Atomic<Bool>(false)

  func wake() {
    if !pending.exchange(true, ordering: .sequentiallyConsistent) { semaphore.signal() }
  }

  /// Sleeps until a wake-up or `deadline` (nil: forever). True when woken.
  func sleep(until deadline: DispatchTime?) -> Bool {
    let woken: Bool
    if let deadline {
      woken = semaphore.wait(timeout: deadline) == .success
    } else {
      semaphore.wait()
      woken = true
    }
    // Cleared before the loop looks for work, so a wake-up sent while it works is not lost.
    if woken { pending.store(false, ordering: .sequentiallyConsistent) }
    return woken
  }
}

/// The loop's own state, touched only on its thread.
// Mutated only on the loop's thread: every MainLoop entry point that reaches it calls preconditionInLoop().
final class LoopConfinedState: @unchecked Sendable {
  var virtualNow: Duration = .zero
  var modeStack: [LoopMode] = []
  var nextID = 0
  var observers: [ObserverEntry] = []
  var timerQueue = Heap<TimerKey>()
  var timers: [Int: TimerEntry] = [:]
  var sources: [SourceEntry] = []
  var collector: Collector?

  func makeID() -> Int {
    nextID += 1
    return nextID
  }
}

/// The calling thread's identity (`pthread_self`).
func currentThreadID() -> UInt {
  #if canImport(Glibc)
    return UInt(pthread_self())
  #else
    return UInt(bitPattern: pthread_self())
  #endif
}
