import AsyncLayer
import Dispatch
import Synchronization
import Testing

@Suite("Measuring text")
struct TextMeasurerTests {
  let style = TextStyle(font: "Sans 14")

  @Test("measuring agrees with rendering and with itself")
  func agreesWithLayout() throws {
    let measurer = TextMeasurer(capacity: 16)
    let text = TextContent.plain("A sentence that wraps across a few lines when the width is small enough.")
    let first = try measurer.size(of: text, style: style, width: 120, scale: 2)
    let second = try measurer.size(of: text, style: style, width: 120, scale: 2)
    #expect(first == second)
    #expect(measurer.statistics.hits == 1)
    let layout = try TextLayout(text, style: style, width: 120, scale: 2)
    #expect(layout.size == first)
    #expect(first.width <= 120)
    // A narrower width means more lines.
    #expect(try measurer.size(of: text, style: style, width: 60, scale: 2).height > first.height)
  }

  @Test("line breaks do not depend on the scale")
  func scaleIndependentBreaks() throws {
    let text = TextContent.plain(String(repeating: "Line breaks stay put across scales. ", count: 6))
    let one = try TextLayout(text, style: style, width: 200, scale: 1).lines.map(\.utf8Offset)
    let two = try TextLayout(text, style: style, width: 200, scale: 2).lines.map(\.utf8Offset)
    let three = try TextLayout(text, style: style, width: 200, scale: 3).lines.map(\.utf8Offset)
    #expect(one.count > 2)
    #expect(one == two)
    #expect(one == three)
  }

  @Test("the cache keeps its capacity")
  func capacity() throws {
    let measurer = TextMeasurer(capacity: 4)
    for index in 0..<10 { _ = try measurer.size(of: .plain("text \(index)"), style: style, width: 100) }
    #expect(measurer.statistics.entries == 4)
  }

  @Test("many threads get equal sizes")
  func concurrentMeasuring() throws {
    let measurer = TextMeasurer(capacity: 64)
    let texts = (0..<8).map { TextContent.plain("Row \($0): " + String(repeating: "word ", count: $0 * 5)) }
    let expected = try texts.map { try TextLayout($0, style: style, width: 150, scale: 2).size }
    let mismatches = Atomic(0)
    DispatchQueue.concurrentPerform(iterations: 64) { _ in
      for (index, text) in texts.enumerated() {
        let size = try? measurer.size(of: text, style: style, width: 150, scale: 2)
        if size != expected[index] {
          mismatches.add(1, ordering: .relaxed)
        }
      }
    }
    #expect(mismatches.load(ordering: .relaxed) == 0)
    #expect(measurer.statistics.entries == texts.count)
  }
}
