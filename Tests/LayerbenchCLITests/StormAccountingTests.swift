import Testing

@testable import layerbench

/// The storm benchmark's books and the sweep's summaries: pure bookkeeping on given times.
@Suite("Storm accounting and sweep summaries")
struct StormAccountingTests {
  @Test("settle runs from the last change to the last layer's final commit")
  func settle() {
    var books = StormAccounting(layerCount: 2)
    books.recordChange(at: .milliseconds(100))
    books.recordCommit(layer: 0, at: .milliseconds(90), cpu: .milliseconds(5))  // before the last change
    books.recordCommit(layer: 1, at: .milliseconds(120), cpu: .milliseconds(7))
    #expect(!books.isSettled)  // layer 0 still shows an older state
    #expect(books.settle == nil)
    books.recordCommit(layer: 0, at: .milliseconds(150), cpu: .milliseconds(6))
    #expect(books.isSettled)
    #expect(books.settle == .milliseconds(50))
  }

  @Test("CPU against the minimum: the final commits are the minimum; cancelled and discarded CPU is waste")
  func cpuAndWaste() {
    var books = StormAccounting(layerCount: 2)
    books.recordChange(at: .milliseconds(10))
    books.recordCommit(layer: 0, at: .milliseconds(30), cpu: .milliseconds(4))
    books.recordCommit(layer: 1, at: .milliseconds(40), cpu: .milliseconds(6))
    let summary = books.summary(
      cpuCommitted: .milliseconds(20), cpuCancelled: .milliseconds(10), cpuDiscarded: .milliseconds(10))
    #expect(summary.minimumCpuMs == 10)
    #expect(summary.cpuMs == 40)
    #expect(summary.wastedPercent == 50)
    #expect(summary.settleMs == 30)
    #expect(summary.settleFrames == 2)  // 30 ms is a little under two 16.7 ms frames
  }

  @Test("dropped frames count the long turns up to the final pixels, not after")
  func droppedFrames() {
    var books = StormAccounting(layerCount: 1)
    books.recordTurn(end: .milliseconds(10), length: .milliseconds(5))
    books.recordTurn(end: .milliseconds(40), length: .milliseconds(25))  // dropped
    books.recordChange(at: .milliseconds(45))
    books.recordTurn(end: .milliseconds(60), length: .milliseconds(16))  // within budget
    books.recordCommit(layer: 0, at: .milliseconds(70), cpu: .milliseconds(3))
    books.recordTurn(end: .milliseconds(70), length: .milliseconds(17))  // dropped, ends with the commit
    books.recordTurn(end: .milliseconds(200), length: .milliseconds(90))  // after the final pixels
    let summary = books.summary(cpuCommitted: .milliseconds(3), cpuCancelled: .zero, cpuDiscarded: .zero)
    #expect(summary.frames == 4)
    #expect(summary.droppedFrames == 2)
    #expect(summary.wastedPercent == 0)
  }

  @Test("a storm that never settles has no settle time and no minimum, and counts every turn")
  func neverSettles() {
    var books = StormAccounting(layerCount: 3)
    books.recordChange(at: .milliseconds(5))
    books.recordCommit(layer: 0, at: .milliseconds(8), cpu: .milliseconds(1))
    books.recordTurn(end: .milliseconds(500), length: .milliseconds(30))
    let summary = books.summary(cpuCommitted: .milliseconds(1), cpuCancelled: .zero, cpuDiscarded: .zero)
    #expect(summary.settleMs == nil && summary.settleFrames == nil)
    #expect(summary.minimumCpuMs == 0)
    #expect(summary.droppedFrames == 1)
  }

  @Test("a sweep spread is the median, minimum and maximum of the repeats")
  func spread() {
    let spread = Spread([3, 1, 9, 4, 2])
    #expect(spread == Spread([1, 2, 3, 4, 9]))
    #expect(spread.median == 3 && spread.min == 1 && spread.max == 9)
    #expect(spread.text == "3.0 (1.0–9.0)")
    #expect(Spread([2.5]).text == "2.5")
  }

  @Test(
    "sweep axes refuse hostile values with a message naming the option",
    arguments: [
      ("adaptive", "fast", "standard", "0", "--sweep-speeds: 'fast' is not a number"),
      ("adaptive", "nan", "standard", "0", "--sweep-speeds must be a number from 0.1 to 10"),
      ("adaptive", "1e300", "standard", "0", "--sweep-speeds must be a number from 0.1 to 10"),
      ("adaptive", "1", "medium", "0", "--sweep-costs: unknown cost 'medium'"),
      ("adaptive", "1", "light", "-1", "--sweep-loads must be from 0 to 64"),
      ("-5", "1", "light", "0", "--sweep-prefetch must be a number from 0 to 10000"),
      ("soon", "1", "light", "0", "--sweep-prefetch: 'soon' is neither 'adaptive' nor a number"),
    ])
  func sweepRefusals(prefetch: String, speeds: String, costs: String, loads: String, message: String) {
    #expect {
      try ScrollSweep(prefetch: prefetch, speeds: speeds, costs: costs, loads: loads, repeats: 1)
    } throws: { error in
      "\(error)".contains(message)
    }
  }

  @Test("a sweep grid counts its runs and names its charts after the metric")
  func sweepGrid() throws {
    let grid = try ScrollSweep(prefetch: "0,adaptive", speeds: "1,2", costs: "light,heavy", loads: "0,2", repeats: 5)
    #expect(grid.runCount == 2 * 2 * 2 * 2 * 5)
    #expect(ScrollSweep.chartPath("out/sweep.png", metric: "stale") == "out/sweep-stale.png")
    #expect(ScrollSweep.chartPath("sweep.png", metric: "wasted") == "sweep-wasted.png")
  }

  @Test("name lists: parsed in order, empty, unknown and repeated names refused")
  func nameList() throws {
    #expect(try NameList.parse("async, sync", option: "--modes", as: StormMode.self) == [.async, .sync])
    #expect(throws: (any Error).self) { try NameList.parse("typing,typing", option: "--s", as: StormScenario.self) }
    #expect(throws: (any Error).self) { try NameList.parse("", option: "--s", as: StormScenario.self) }
    #expect(throws: (any Error).self) { try NameList.parse("rain", option: "--s", as: StormScenario.self) }
  }
}
