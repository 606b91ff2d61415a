import Testing

/// Thrown by ``eventually(_:sourceLocation:_:)`` when its condition is still false after the bound.
struct ConditionNeverHeld: Error, CustomStringConvertible {
  var description: String
}

/// Returns as soon as `condition` holds; records an issue and throws if it still does not after 60 s,
/// a bound against a bug (a lost hang-up, a draw that never reaches its queue), not a wait the test
/// relies on.
///
/// What a server test waits for here is a state the server reaches on its own threads (a draw in its
/// queue, a counter in the metrics), so it polls: first with `Task.yield()`, then, once the state is
/// plainly not there yet, 1 ms apart — an endless yield loop would hold a cooperative thread, and on
/// two cores the server it waits for would crawl. Wait only for states that stay once reached (a
/// counter that only grows, a draw still held by a gate), never for a passing one that a poll can
/// miss: a queued draw that a deadline takes off again is seen in `enqueued`, not `pendingCount`.
func eventually(
  _ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: () -> Bool
) async throws {
  let bound = ContinuousClock.now + .seconds(60)
  var polls = 0
  while !condition() {
    guard ContinuousClock.now < bound else {
      let failure = ConditionNeverHeld(description: "still not true after 60 s: \(what())")
      Issue.record(failure, sourceLocation: sourceLocation)
      throw failure
    }
    polls += 1
    if polls < 100 { await Task.yield() } else { try await Task.sleep(for: .milliseconds(1)) }
  }
}
