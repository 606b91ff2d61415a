import AsyncLayer
import Synchronization

/// Records the order tasks ran in.
final class RunLog: Sendable {
  private let entries = Mutex<[Int]>([])
  func record(_ value: Int) { entries.withLock { $0.append(value) } }
  var values: [Int] { entries.withLock { $0 } }
}

/// A clock the tests move by hand.
final class FakeTime: Sendable {
  private let elapsed = Mutex(Duration.zero)
  var now: Duration { elapsed.withLock { $0 } }
  func advance(_ by: Duration) { elapsed.withLock { $0 += by } }
}
