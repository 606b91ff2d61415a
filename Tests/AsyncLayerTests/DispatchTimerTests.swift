import AsyncLayer
import Dispatch
import Synchronization
import Testing

/// DispatchTimer's life cycle on a `ManualTimerSource`: time moves only by `advance(by:)`, so every
/// fire is counted exactly and nothing waits for real time. One test runs the real dispatch source.
@Suite("Dispatch timers")
struct DispatchTimerTests {
  /// A timer on a manual source that counts its handler's runs.
  private struct Fixture {
    /// Counts the handler's runs (a class, so the handler can share it).
    private final class Runs: Sendable {
      let count = Atomic(0)
    }

    let source = ManualTimerSource()
    private let runs = Runs()
    let timer: DispatchTimer

    init(interval: Duration = .milliseconds(10), repeats: Bool = true) {
      let runs = self.runs
      timer = DispatchTimer(interval: interval, repeats: repeats, source: source) {
        runs.count.add(1, ordering: .relaxed)
      }
    }

    var handlerRuns: Int { runs.count.load(ordering: .relaxed) }
  }

  @Test("a one-shot timer fires once, one interval after start, and stops itself")
  func oneShot() {
    let fixture = Fixture(repeats: false)
    let timer = fixture.timer
    #expect(timer.currentState == .idle)
    fixture.source.advance(by: .milliseconds(50))
    #expect(fixture.handlerRuns == 0)  // not started: no fire however long
    timer.start()
    fixture.source.advance(by: .milliseconds(9))
    #expect(fixture.handlerRuns == 0)
    fixture.source.advance(by: .milliseconds(1))
    #expect(fixture.handlerRuns == 1 && timer.fireCount == 1)
    #expect(!timer.isValid && timer.currentState == .stopped && fixture.source.isCancelled)
    fixture.source.advance(by: .milliseconds(100))
    #expect(fixture.handlerRuns == 1 && timer.fireCount == 1)
  }

  @Test("a repeating timer fires once per interval, and not after stop")
  func repeating() {
    let fixture = Fixture(interval: .milliseconds(10))
    let timer = fixture.timer
    timer.start()
    #expect(
      fixture.source.schedule == .init(intervalNanoseconds: 10_000_000, repeats: true, leewayNanoseconds: 1_000_000))
    for expected in 1...5 {
      fixture.source.advance(by: .milliseconds(10))
      #expect(timer.fireCount == expected)
    }
    fixture.source.advance(by: .milliseconds(5))
    #expect(timer.fireCount == 5)  // half an interval: no fire
    timer.stop()
    #expect(timer.currentState == .stopped)
    fixture.source.advance(by: .milliseconds(50))
    #expect(timer.fireCount == 5 && fixture.handlerRuns == 5)
  }

  @Test("suspend holds fires back; resume delivers the missed ones as one, then the timer goes on")
  func suspendResume() {
    let fixture = Fixture(interval: .milliseconds(5))
    let timer = fixture.timer
    timer.start()
    fixture.source.advance(by: .milliseconds(5))
    #expect(timer.fireCount == 1)
    timer.suspend()
    timer.suspend()  // a second suspend does nothing (and needs no second resume)
    #expect(timer.currentState == .suspended)
    for _ in 0..<8 { fixture.source.advance(by: .milliseconds(5)) }
    #expect(timer.fireCount == 1)
    timer.resume()
    #expect(timer.currentState == .running)
    fixture.source.advance(by: .zero)
    #expect(timer.fireCount == 2)  // eight missed fires coalesce into one
    fixture.source.advance(by: .milliseconds(5))
    #expect(timer.fireCount == 3)
    timer.resume()  // not suspended: nothing to balance
    #expect(fixture.source.misuses.isEmpty)
    timer.stop()
  }

  @Test("dropping a timer is safe in every state: the source is cancelled, activated and not suspended")
  func teardown() {
    for state in [DispatchTimer.State.idle, .running, .suspended, .stopped] {
      let source = ManualTimerSource()
      var timer: DispatchTimer? = DispatchTimer(interval: .milliseconds(1), source: source) {}
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
      #expect(source.isSafeToRelease == (state == .running || state == .stopped))
      timer = nil  // libdispatch traps on releasing a suspended or never-activated source
      #expect(timer == nil)
      #expect(source.isCancelled && source.isSafeToRelease && source.misuses.isEmpty, "after release in \(state)")
      source.advance(by: .seconds(1))  // a fire after release would reach a dead timer: none comes
    }
  }

  @Test("hostile intervals and leeways are clamped to 1 ns … about 100 years when the timer starts")
  func clampsIntervals() {
    let maximum = Int(DispatchTimer.maximumInterval.components.seconds) * 1_000_000_000
    let cases: [(interval: Duration, leeway: Duration, expected: ManualTimerSource.Schedule)] = [
      (
        .seconds(1 << 40), .seconds(1 << 40),
        .init(intervalNanoseconds: maximum, repeats: true, leewayNanoseconds: maximum)
      ),
      (.seconds(Int64.max), .zero, .init(intervalNanoseconds: maximum, repeats: true, leewayNanoseconds: 1)),
      (.seconds(-(1 << 40)), .seconds(-1), .init(intervalNanoseconds: 1, repeats: true, leewayNanoseconds: 1)),
      (.zero, .nanoseconds(7), .init(intervalNanoseconds: 1, repeats: true, leewayNanoseconds: 7)),
    ]
    for (interval, leeway, expected) in cases {
      let source = ManualTimerSource()
      let timer = DispatchTimer(interval: interval, leeway: leeway, source: source) {}
      #expect(timer.interval == interval && timer.leeway == leeway)  // kept as given
      timer.start()
      #expect(source.schedule == expected, "interval \(interval), leeway \(leeway)")
      timer.stop()
    }
  }

  /// The one test on the real `DispatchSourceTimer`: the semaphore's time-out is only a safety net,
  /// nothing waits for a fixed time.
  @Test("on a real dispatch queue, a one-shot timer fires its handler on that queue and stops")
  func realDispatchSource() {
    let fired = DispatchSemaphore(value: 0)
    let queue = DispatchQueue(label: "test.dispatch-timer")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 1)
    let onQueue = Atomic(false)
    let timer = DispatchTimer(interval: .milliseconds(1), repeats: false, queue: queue) {
      onQueue.store(DispatchQueue.getSpecific(key: key) == 1, ordering: .relaxed)
      fired.signal()
    }
    timer.start()
    #expect(fired.wait(timeout: .now() + 60) == .success)
    queue.sync {}  // the handler has returned
    let ranOnQueue = onQueue.load(ordering: .relaxed)
    #expect(ranOnQueue)
    #expect(timer.fireCount == 1 && timer.currentState == .stopped)
  }
}
