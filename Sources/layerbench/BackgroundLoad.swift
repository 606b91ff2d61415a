import Foundation
import Synchronization

/// Threads that spin until stopped, so that the loop and the draw queues compete for the CPU.
final class BackgroundLoad: Sendable {
  private let running = Atomic<Bool>(true)
  private let stopped = DispatchSemaphore(value: 0)
  private let threads: Int

  init(threads: Int) {
    self.threads = threads
    for index in 0..<threads {
      let thread = Thread { [self] in
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        while running.load(ordering: .relaxed) {
          for _ in 0..<10_000 { x = x &* 6_364_136_223_846_793_005 &+ 1 }
        }
        if x == 42 { print("") }  // keeps the arithmetic from being optimised away
        stopped.signal()
      }
      thread.name = "layerbench.load.\(index)"
      thread.start()
    }
  }

  func stop() {
    guard running.exchange(false, ordering: .relaxed) else { return }
    for _ in 0..<threads { stopped.wait() }
  }
}
