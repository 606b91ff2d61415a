import AsyncLayer
import Dispatch
import Synchronization
import Testing

/// DispatchTimer runs on real time, so these tests use loose bounds and semaphores with generous
/// time-outs; nothing here depends on the machine being fast.
@Suite("Dispatch timers")
struct DispatchTimerTests {
  @Test("a one-shot timer fires once and stops itself")
  func oneShot() {
    let fired = DispatchSemaphore(value: 0)
    let queue = DispatchQueue(label: "test.oneshot")
    let timer = DispatchTimer(interval: .milliseconds(5), repeats: false, queue: queue) { fired.signal() }
    #expect(timer.currentState == .idle)
    timer.start()
    #expect(fired.wait(timeout: .now() + 5) == .success)
    queue.sync {}  // the handler has returned
    #expect(timer.fireCount == 1)
    #expect(!timer.isValid)
    // No second fire within many intervals.
    #expect(fired.wait(timeout: .now() + .milliseconds(60)) == .timedOut)
    #expect(timer.fireCount == 1)
  }

  @Test("a repeating timer fires about N times in its window, and not after stop")
  func repeating() {
    let fifth = DispatchSemaphore(value: 0)
    let queue = DispatchQueue(label: "test.repeating")
    let count = Atomic(0)
    let start = ContinuousClock.now
    let timer = DispatchTimer(interval: .milliseconds(10), repeats: true, queue: queue) {
      if count.add(1, ordering: .relaxed).newValue == 5 { fifth.signal() }
    }
    timer.start()
    #expect(fifth.wait(timeout: .now() + 10) == .success)
    let elapsed = ContinuousClock.now - start
    timer.stop()
    queue.sync {}
    let atStop = timer.fireCount
    // Five 10 ms intervals cannot pass in less than ~50 ms (1 ms leeway each way).
    #expect(elapsed >= .milliseconds(45))
    #expect(atStop >= 5)
    #expect(fifth.wait(timeout: .now() + .milliseconds(50)) == .timedOut)
    queue.sync {}
    #expect(timer.fireCount == atStop)
    #expect(timer.currentState == .stopped)
  }

  @Test("suspend pauses fires and resume restarts them")
  func suspendResume() {
    let queue = DispatchQueue(label: "test.suspend")
    let fired = DispatchSemaphore(value: 0)
    let timer = DispatchTimer(interval: .milliseconds(5), repeats: true, queue: queue) { fired.signal() }
    timer.start()
    #expect(fired.wait(timeout: .now() + 5) == .success)
    timer.suspend()
    #expect(timer.currentState == .suspended)
    queue.sync {}
    let paused = timer.fireCount
    #expect(fired.wait(timeout: .now() + .milliseconds(40)) == .timedOut || timer.fireCount == paused)
    while fired.wait(timeout: .now()) == .success {}  // drain signals from before the suspension
    #expect(timer.fireCount == paused)
    timer.resume()
    #expect(fired.wait(timeout: .now() + 5) == .success)
    #expect(timer.fireCount > paused)
    timer.stop()
  }

  @Test("dropping a timer is safe in every state")
  func teardown() {
    let queue = DispatchQueue(label: "test.teardown")
    for state in [DispatchTimer.State.idle, .running, .suspended, .stopped] {
      var timer: DispatchTimer? = DispatchTimer(interval: .milliseconds(1), queue: queue) {}
      switch state {
      case .idle: break
      case .running: timer?.start()
      case .suspended:
        timer?.start()
        timer?.suspend()
      case .stopped:
        timer?.start()
        timer?.stop()
        timer?.stop()  // twice is fine
      }
      #expect(timer?.currentState == state)
      timer = nil  // a suspended dispatch source released as-is would crash the process
      #expect(timer == nil)
    }
    queue.sync {}
  }
}
