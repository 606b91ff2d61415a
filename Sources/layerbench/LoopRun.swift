import AsyncLayer
import Foundation

/// Runs one wall-clock simulation on a fresh 60 Hz-capable loop thread and waits for its result,
/// with `backgroundLoad` busy threads competing for the CPU meanwhile.
///
/// ```swift
/// let result = try LoopRun.run(name: "layerbench.storm", backgroundLoad: 0) { loop, finish in
///   let simulation = StormSimulation(loop: loop, setup: setup, finish: finish)
///   try simulation.start(on: loop)
///   return simulation
/// }
/// ```
enum LoopRun {
  /// `start` runs on the loop's thread, builds the simulation, starts it and returns it (kept alive
  /// until the run ends: the loop's observers hold it weakly); the simulation calls `finish` once.
  static func run<Result: Sendable>(
    name: String, backgroundLoad: Int,
    start: @escaping (MainLoop, @escaping @Sendable (Result) -> Void) throws -> AnyObject
  ) throws -> Result {
    let load = BackgroundLoad(threads: backgroundLoad)
    defer { load.stop() }
    let outcome = Mutex<Result?>(nil)
    let failure = Mutex<String?>(nil)
    let done = DispatchSemaphore(value: 0)
    // `start` only ever runs on the loop's thread, inside the closure below.
    nonisolated(unsafe) let start = start
    let loop = MainLoop.startOnNewThread(name: name) { loop in
      do {
        let simulation = try start(loop) { result in
          outcome.withLock { $0 = result }
          done.signal()
        }
        SimulationKeeper.keep(simulation, on: loop)
      } catch {
        failure.withLock { $0 = "\(error)" }
        done.signal()
      }
    }
    done.wait()
    // Free the simulation (its layers and their images, a few hundred MB) on its own loop before
    // the loop stops: a sweep of forty runs kept them all and grew to about 10 GB, which slowed
    // the later runs' draws (page faults on fresh memory) and inflated their wasted CPU.
    let released = DispatchSemaphore(value: 0)
    loop.perform {
      SimulationKeeper.release(on: loop)
      released.signal()
    }
    released.wait()
    loop.stop()
    load.stop()
    drainPool()
    if let message = failure.withLock({ $0 }) { throw ValidationErrorMessage(message) }
    return outcome.withLock { $0! }
  }
}

extension LoopRun {
  /// The longest wait for the shared pool to run out of work between two runs.
  static let drainLimit = Duration.seconds(300)

  /// Waits until the shared pool has nothing queued or running. Draws a run leaves behind (a
  /// no-cancel backlog never shrinks by itself) would otherwise delay the next run's draws and land
  /// in its statistics.
  static func drainPool() {
    let start = ContinuousClock.now
    while QueuePool.shared.statistics.contains(where: { $0.pending > 0 }), ContinuousClock.now - start < drainLimit {
      Thread.sleep(forTimeInterval: 0.01)
    }
  }
}

/// Holds each loop's simulation while it runs: the loop's observers hold it only weakly.
enum SimulationKeeper {
  private static let kept = Mutex<[ObjectIdentifier: LoopBound<AnyObject>]>([:])

  static func keep(_ simulation: AnyObject, on loop: MainLoop) {
    kept.withLock { $0[ObjectIdentifier(loop)] = LoopBound(simulation, loop: loop) }
  }

  /// Drops the loop's simulation; call it on that loop's thread, where the simulation (and its
  /// layers) must be freed.
  static func release(on loop: MainLoop) {
    loop.preconditionInLoop()
    let simulation = kept.withLock { $0.removeValue(forKey: ObjectIdentifier(loop)) }
    withExtendedLifetime(simulation) {}  // freed here, on the loop, not inside the lock
  }
}
