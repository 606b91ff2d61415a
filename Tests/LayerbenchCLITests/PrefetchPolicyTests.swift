import Testing

@testable import layerbench

/// The scroll benchmark's working ranges and draw order: pure arithmetic, no clock.
@Suite("Prefetch ranges and draw order")
struct PrefetchPolicyTests {
  let height = 600.0

  @Test("moving slowly the ranges reach one screen ahead (display) and two (preload), less behind")
  func slowRanges() {
    var direction = PrefetchPolicy.Direction.down
    let ranges = PrefetchPolicy.adaptive().ranges(top: 1000, height: height, velocity: 500, direction: &direction)
    #expect(ranges.display == 1000..<2200)
    #expect(ranges.preload == 700..<2800)
    #expect(direction == .down)
  }

  @Test("at rest both sides get the leading reach: the next fling may go either way")
  func restingRanges() {
    var direction = PrefetchPolicy.Direction.up
    let ranges = PrefetchPolicy.adaptive().ranges(top: 1000, height: height, velocity: 0, direction: &direction)
    #expect(ranges.display == 400..<2200)
    #expect(ranges.preload == -200..<2800)
    #expect(direction == .up)
  }

  @Test("the leading reach grows with the fling's speed, the trailing one does not")
  func growsWithSpeed() {
    var direction = PrefetchPolicy.Direction.down
    let policy = PrefetchPolicy.adaptive()
    let slow = policy.ranges(top: 1000, height: height, velocity: 2000, direction: &direction)
    let fast = policy.ranges(top: 1000, height: height, velocity: 20000, direction: &direction)
    #expect(slow.display.upperBound == 2200)  // 0.2 s × 2000 pt/s is less than a screen
    #expect(fast.display.upperBound == 1600 + 4000)  // 0.2 s × 20 000 pt/s
    #expect(fast.preload.upperBound == 1600 + 8000)
    #expect(fast.display.lowerBound == slow.display.lowerBound)
  }

  @Test("scrolling up flips the leading side, and a resting list keeps its last direction")
  func directionFlips() {
    var direction = PrefetchPolicy.Direction.down
    let policy = PrefetchPolicy.adaptive()
    let up = policy.ranges(top: 5000, height: height, velocity: -10000, direction: &direction)
    #expect(direction == .up)
    #expect(up.display == (5000 - 2000)..<5600)
    let resting = policy.ranges(top: 5000, height: height, velocity: 30, direction: &direction)
    #expect(direction == .up)
    #expect(resting.display == (5000 - 600)..<(5600 + 600))
    let down = policy.ranges(top: 5000, height: height, velocity: 3000, direction: &direction)
    #expect(direction == .down)
    #expect(down.display == 5000..<(5600 + 600))
  }

  @Test("a non-finite velocity counts as resting", arguments: [Double.nan, .infinity, -.infinity])
  func hostileVelocity(velocity: Double) {
    var direction = PrefetchPolicy.Direction.down
    let ranges = PrefetchPolicy.adaptive().ranges(top: 0, height: height, velocity: velocity, direction: &direction)
    #expect(ranges.display == -600..<1200)
    #expect(direction == .down)
  }

  @Test("a fixed prefetch is the same distance on both sides at any speed")
  func fixedIsSymmetric() {
    var direction = PrefetchPolicy.Direction.down
    let policy = PrefetchPolicy.fixed(points: 300)
    for velocity in [0.0, 45000, -45000] {
      let ranges = policy.ranges(top: 1000, height: height, velocity: velocity, direction: &direction)
      #expect(ranges.display == 700..<1900)
      #expect(ranges.preload == ranges.display)
    }
    #expect(
      PrefetchPolicy.none.ranges(top: 10, height: height, velocity: 9000, direction: &direction).display == 10..<610)
  }

  @Test("the preload range always contains the display range, even when tuned shorter")
  func preloadContainsDisplay() {
    var direction = PrefetchPolicy.Direction.down
    let policy = PrefetchPolicy(
      display: .init(leadingScreens: 3, trailingScreens: 1, lookaheadSeconds: 0.5),
      preload: .init(leadingScreens: 1, trailingScreens: 0, lookaheadSeconds: 0.1))
    for velocity in [0.0, 5000, -5000, 40000] {
      let ranges = policy.ranges(top: 2000, height: height, velocity: velocity, direction: &direction)
      #expect(ranges.preload.lowerBound <= ranges.display.lowerBound)
      #expect(ranges.preload.upperBound >= ranges.display.upperBound)
    }
  }

  @Test("draw priority: visible rows first, then rows ahead by gap, rows behind at twice their gap")
  func drawPriority() {
    let viewport = 1000.0..<1600.0
    func priority(_ top: Double, _ bottom: Double, _ direction: PrefetchPolicy.Direction = .down) -> Double {
      PrefetchPolicy.drawPriority(rowTop: top, rowBottom: bottom, viewport: viewport, direction: direction)
    }
    #expect(priority(900, 1100) == 0)  // partly visible
    #expect(priority(1200, 1300) == 0)
    #expect(priority(1700, 1800) == 100)  // ahead (below, scrolling down)
    #expect(priority(700, 900) == 200)  // behind: 100 pt gap, doubled
    #expect(priority(700, 900, .up) == 100)  // scrolling up, above is ahead
    #expect(priority(1700, 1800, .up) == 200)

    // Ordering a set of rows: the visible one, then the near one ahead, then behind vs far ahead.
    let rows: [(name: String, top: Double, bottom: Double)] = [
      ("far ahead", 2400, 2600), ("behind", 800, 950), ("visible", 1500, 1700), ("near ahead", 1650, 1800),
    ]
    let order = rows.sorted { priority($0.top, $0.bottom) < priority($1.top, $1.bottom) }.map(\.name)
    #expect(order == ["visible", "near ahead", "behind", "far ahead"])
  }

  @Test("scaled fling scripts multiply every velocity and keep the rests")
  func scaledScript() {
    let script = FlingScript.standard.scaled(by: 2)
    #expect(script.flings.map(\.velocity) == FlingScript.standard.flings.map { $0.velocity * 2 })
    #expect(script.flings.map(\.rest) == FlingScript.standard.flings.map(\.rest))
  }
}
