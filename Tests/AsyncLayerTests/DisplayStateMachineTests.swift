import Testing

@testable import AsyncLayer

/// Every transition of a layer's display state machine, driven by hand with numbers for tickets:
/// the table in `docs/architecture.md`, checked row by row.
@Suite struct DisplayStateMachineTests {
  typealias Machine = DisplayStateMachine<Int>

  /// A machine with a draw of the current display in flight (ticket 1).
  private func drawing(_ policy: Machine.Policy = .cancelRunning) -> (Machine, UInt64) {
    var machine = Machine()
    _ = machine.requestDisplay(policy: policy)
    guard case .start(let generation, nil) = machine.startDisplay(policy: policy) else {
      Issue.record("an idle machine starts at once")
      return (machine, 0)
    }
    machine.drawEnqueued(generation: generation, ticket: 1)
    return (machine, generation)
  }

  @Test func idleRequestSchedulesOnceThenCoalesces() {
    var machine = Machine()
    #expect(!machine.isPending)
    guard case .schedule(nil) = machine.requestDisplay(policy: .cancelRunning) else {
      Issue.record("first request schedules")
      return
    }
    #expect(machine.needsDisplay && machine.isPending)
    guard case .coalesced = machine.requestDisplay(policy: .cancelRunning) else {
      Issue.record("second request coalesces")
      return
    }
  }

  @Test func startMovesTheGenerationOnAndEndsInACommit() {
    var (machine, generation) = drawing()
    #expect(!machine.needsDisplay && machine.isPending)
    #expect(machine.inFlight?.generation == generation)
    let end = machine.drawEnded(generation: generation, outcome: .rendered)
    #expect(end == .init(result: .commit, startsWaitingDisplay: false))
    #expect(!machine.isPending && machine.inFlight == nil)
  }

  @Test func requestWhileDrawingCancelsTheDraw() {
    var (machine, generation) = drawing()
    guard case .schedule(cancel: 1) = machine.requestDisplay(policy: .cancelRunning) else {
      Issue.record("the running draw's ticket is cancelled")
      return
    }
    #expect(machine.generation > generation)
    // The stale draw finishes anyway (it ignored its checks): discarded, and the request stays.
    #expect(machine.drawEnded(generation: generation, outcome: .rendered).result == .discard)
    #expect(machine.needsDisplay && machine.isPending && machine.inFlight == nil)
  }

  @Test func displayWhileDrawingReplacesTheDraw() {
    var (machine, old) = drawing()
    _ = machine.requestDisplay(policy: .cancelRunning)
    guard case .start(let new, cancel: 1) = machine.startDisplay(policy: .cancelRunning) else {
      Issue.record("a new display cancels the old draw")
      return
    }
    machine.drawEnqueued(generation: new, ticket: 2)
    // The old draw ends cancelled; the new one is still in flight.
    #expect(machine.drawEnded(generation: old, outcome: .cancelled).result == .cancelled)
    #expect(machine.inFlight?.generation == new && machine.isPending)
    #expect(machine.drawEnded(generation: new, outcome: .rendered).result == .commit)
    #expect(!machine.isPending)
  }

  @Test func neverCancelStartsBesideTheOldDrawAndDiscardsItLater() {
    var (machine, old) = drawing(.neverCancel)
    guard case .schedule(cancel: nil) = machine.requestDisplay(policy: .neverCancel) else {
      Issue.record("no cancellation under neverCancel")
      return
    }
    guard case .start(let new, cancel: nil) = machine.startDisplay(policy: .neverCancel) else {
      Issue.record("starts without cancelling")
      return
    }
    machine.drawEnqueued(generation: new, ticket: 2)
    #expect(machine.drawEnded(generation: old, outcome: .rendered).result == .discard)
    #expect(machine.drawEnded(generation: new, outcome: .rendered).result == .commit)
  }

  @Test func finishRunningWaitsAndTheDrawsEndStartsTheDisplay() {
    var (machine, generation) = drawing(.finishRunning)
    guard case .schedule(cancel: nil) = machine.requestDisplay(policy: .finishRunning) else {
      Issue.record("a request does not cancel under finishRunning")
      return
    }
    #expect(machine.generation == generation)
    guard case .wait(cancelIfQueued: 1) = machine.startDisplay(policy: .finishRunning) else {
      Issue.record("the display waits for the running draw")
      return
    }
    #expect(machine.isPending && !machine.needsDisplay)
    // More requests meanwhile coalesce into the waiting display's next collector pass.
    let end = machine.drawEnded(generation: generation, outcome: .rendered)
    #expect(end == .init(result: .commit, startsWaitingDisplay: true))
    #expect(machine.isPending == false)
    guard case .start(let next, nil) = machine.startDisplay(policy: .finishRunning) else {
      Issue.record("the waiting display starts")
      return
    }
    #expect(next > generation)
  }

  @Test func finishRunningQueuedDrawCancelledStartsTheWaitingDisplay() {
    var (machine, generation) = drawing(.finishRunning)
    _ = machine.requestDisplay(policy: .finishRunning)
    _ = machine.startDisplay(policy: .finishRunning)
    // The layer took the queued draw off its queue: it ends cancelled, and the display starts.
    let end = machine.drawEnded(generation: generation, outcome: .cancelled)
    #expect(end == .init(result: .cancelled, startsWaitingDisplay: true))
  }

  @Test func cancelMakesTheDrawStaleAndDropsAWaitingDisplay() {
    var (machine, generation) = drawing(.finishRunning)
    _ = machine.requestDisplay(policy: .finishRunning)
    _ = machine.startDisplay(policy: .finishRunning)
    #expect(machine.cancel() == 1)
    let end = machine.drawEnded(generation: generation, outcome: .rendered)
    #expect(end == .init(result: .discard, startsWaitingDisplay: false))
    #expect(!machine.isPending)
  }

  @Test func failuresKeepTheirErrorOnlyWhenCurrent() {
    var (machine, generation) = drawing()
    #expect(machine.drawEnded(generation: generation, outcome: .failed).result == .fail(isCurrent: true))
    var (stale, old) = drawing()
    _ = stale.cancel()
    #expect(stale.drawEnded(generation: old, outcome: .failed).result == .fail(isCurrent: false))
  }

  @Test func withdrawnRequestIsNoLongerPending() {
    var machine = Machine()
    _ = machine.requestDisplay(policy: .cancelRunning)
    machine.withdrawRequest()
    #expect(!machine.isPending)
  }

  @Test func aLateEnqueueOfAStaleGenerationIsIgnored() {
    var machine = Machine()
    _ = machine.requestDisplay(policy: .cancelRunning)
    guard case .start(let generation, _) = machine.startDisplay(policy: .cancelRunning) else { return }
    _ = machine.cancel()
    machine.drawEnqueued(generation: generation, ticket: 7)
    #expect(machine.inFlight == nil)
  }
}
