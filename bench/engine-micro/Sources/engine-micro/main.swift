import AsyncLayer
import Dispatch

/// Runs `body` `repeats` times and returns the best time per operation in nanoseconds.
func measure(_ operations: Int, repeats: Int = 5, _ body: () -> Void) -> Double {
  var best = Double.infinity
  for _ in 0..<repeats {
    let start = ContinuousClock.now
    body()
    let elapsed = ContinuousClock.now - start
    let (seconds, attoseconds) = elapsed.components
    best = min(best, (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(operations))
  }
  return best
}

func report(_ name: String, _ nanoseconds: Double) {
  print("\(name): \(String(format: "%.1f", nanoseconds)) ns")
}

let loop = MainLoop(clock: .manual)
let pool = QueuePool(queueCount: 2)

// 1. setNeedsDisplay on the loop, coalescing included.
do {
  let layer = AsyncLayer(loop: loop, pool: pool)  // zero size: the display itself is trivial
  loop.runOnce()
  let calls = 1_000_000
  report(
    "setNeedsDisplay, repeated in one turn (coalesced)",
    measure(calls) {
      for _ in 0..<calls { layer.setNeedsDisplay() }
    })
  loop.runOnce()
  let layers = (0..<10_000).map { _ in AsyncLayer(loop: loop, pool: pool) }
  loop.runOnce()
  var firstCall = Double.infinity
  for _ in 0..<5 {
    firstCall = min(
      firstCall,
      measure(layers.count, repeats: 1) {
        for layer in layers { layer.setNeedsDisplay() }
      })
    loop.runOnce()
  }
  report("setNeedsDisplay, first call per layer and turn (10k layers)", firstCall)
  let calls100 = 100
  var hundred = Double.infinity
  for _ in 0..<5 {
    hundred = min(
      hundred,
      measure(layers.count * calls100, repeats: 1) {
        for layer in layers { for _ in 0..<calls100 { layer.setNeedsDisplay() } }
      })
    loop.runOnce()
  }
  report("setNeedsDisplay, 100 calls per layer and turn (10k layers), per call", hundred)
}

// 2. Cancelling a queued draw: the cost must not grow with the queue length.
do {
  let blocked = DispatchSemaphore(value: 0)
  let started = DispatchSemaphore(value: 0)
  let single = QueuePool(queueCount: 1)
  single.enqueue {
    started.signal()
    blocked.wait()
  }
  started.wait()
  for length in [1_000, 10_000, 100_000] {
    let tickets = (0..<length).map { _ in single.enqueue {} }
    let perCancel = measure(length, repeats: 1) {
      for ticket in tickets.reversed() { _ = ticket.cancel() }
    }
    report("cancel a queued draw, queue length \(length)", perCancel)
  }
  blocked.signal()
}

// 3. The loop's own overhead per idle turn (collector observer registered, nothing to do).
do {
  let turns = 200_000
  report(
    "idle turn (runOnce, manual clock)",
    measure(turns) {
      for _ in 0..<turns { loop.runOnce() }
    })
  let realTime = MainLoop(clock: .realTime)
  report(
    "idle turn (runOnce, real-time clock)",
    measure(turns) {
      for _ in 0..<turns { realTime.runOnce() }
    })
  // run(until:) sleeps when idle; a block performed each turn keeps it turning without sleeping.
  var count = 0
  report(
    "turn inside run(until:) with one performed block",
    measure(turns) {
      count = 0
      loop.run(until: {
        count += 1
        if count < turns { loop.perform {} }
        return count == turns
      })
    })
}
