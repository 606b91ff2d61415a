import AsyncLayer
import Synchronization

private let nextThreadNumber = Atomic<Int>(1)
private let threadNumbers = ThreadLocal { nextThreadNumber.add(1, ordering: .relaxed).oldValue }

/// A number unique to the calling thread for the life of the process (pthread ids are recycled as
/// soon as a thread exits, which would undercount thread-per-task).
func currentThreadNumber() -> Int { threadNumbers.value }
