import AsyncLayer
import Foundation
import Testing

/// Text too large for one Pango layout is refused with an error naming the limit, quickly, and a
/// report never draws lines over each other.
@Suite("Text limits")
struct TextLimitTests {
  static func elapsed(_ body: () throws -> Void) -> Duration {
    let start = ContinuousClock.now
    _ = try? body()
    return ContinuousClock.now - start
  }

  @Test("a 10 MB line is refused before layout, in milliseconds, naming the limit")
  func hugeLine() throws {
    let text = String(repeating: "lorem ipsum ", count: 10_000_000 / 12)
    let bytes = text.utf8.count
    let limit = TextLimits.default.maximumBytes
    #expect(limit == 256 << 10)
    #expect(throws: RenderError.textTooLong(bytes: bytes, limit: limit)) {
      try TextTile(.plain(text), width: 375).render()
    }
    #expect(throws: RenderError.textTooLong(bytes: bytes, limit: limit)) {
      try TextMeasurer(capacity: 1).size(of: .markup(text), style: TextStyle(), width: 375)
    }
    #expect("\(RenderError.textTooLong(bytes: bytes, limit: limit))".contains("TextLimits.maximumBytes"))
    // Counting bytes is all it costs (the bound is loose: this machine may be busy).
    #expect(Self.elapsed { _ = try TextTile(.plain(text), width: 375).render() } < .milliseconds(500))
  }

  @Test("more paragraphs than the limit are refused; the limits are configurable")
  func paragraphsAndConfiguration() throws {
    let lines = String(repeating: "a\n", count: 1000)  // 1001 paragraphs, the last one empty
    #expect(throws: RenderError.tooManyParagraphs(count: 1001, limit: 1000)) {
      try TextLayout(.plain(lines), style: TextStyle(), width: 100)
    }
    #expect(throws: RenderError.tooManyParagraphs(count: 3, limit: 2)) {
      try TextLayout(
        .plain("a\r\nb\u{2029}c"), style: TextStyle(), width: 100, limits: TextLimits(maximumParagraphs: 2))
    }
    let layout = try TextLayout(
      .plain(lines), style: TextStyle(), width: 100, limits: TextLimits(maximumParagraphs: 1001))
    #expect(layout.lines.count == 1001)

    var tile = TextTile(.plain("twelve bytes"), width: 100)
    tile.limits = TextLimits(maximumBytes: 11)
    #expect(throws: RenderError.textTooLong(bytes: 12, limit: 11)) { try tile.render() }
    tile.limits.maximumBytes = 12
    #expect(throws: Never.self) { try tile.render() }
  }

  @Test("a paragraph too wide for Pango's widths is refused instead of collapsing to an empty line")
  func tooWideParagraph() throws {
    // 64 KiB of 72-point words: about 3 million points before wrapping, past Pango's 2 097 151.
    // Unwrapped, it is one line that wide.
    let text = String(repeating: "lorem ipsum dolor sit amet, ", count: 65536 / 28)
    #expect {
      try TextLayout(.plain(text), style: TextStyle(fontSize: 72), width: nil)
    } throws: { error in
      guard case RenderError.layoutTooLarge(let dimension, let points, let limit) = error else { return false }
      return dimension.hasPrefix("wide") && points > limit && limit == TextLayout.maximumLength
    }
    // Wrapped, a text this long is laid out in pieces of a few kilobytes, none too wide for Pango:
    // it wraps instead of collapsing.
    let wrapped = try TextLayout(.plain(text), style: TextStyle(fontSize: 72), width: 375)
    #expect(wrapped.lines.count > 1000)
    #expect(wrapped.lines.allSatisfy { $0.frame.width > 0 && $0.frame.width <= 375 })
    // The same text at 14 points wraps normally.
    let layout = try TextLayout(.plain(text), style: TextStyle(fontSize: 14), width: 375)
    #expect(layout.lines.count > 1000)
    #expect(layout.lines.allSatisfy { $0.frame.width > 300 || $0.index == layout.lines.count - 1 })
  }

  @Test("a layout taller than Pango's coordinates is refused instead of drawing lines over earlier ones")
  func tooTallLayout() throws {
    var style = TextStyle()
    style.lineSpacing = 3000
    let text = String(repeating: "a\n", count: 999)  // 1000 lines, about 3 million points tall
    #expect {
      try TextLayout(.plain(text), style: style, width: 100)
    } throws: { error in
      guard case RenderError.layoutTooLarge("tall", let points, _) = error else { return false }
      return points > 2_900_000
    }
  }

  @Test("a report paragraph over the limit is refused; a paragraph Pango cannot place is refused, not overprinted")
  func reportParagraphs() throws {
    var document = ReportDocument()
    document.addParagraph(String(repeating: "lorem ipsum ", count: 25_000))
    #expect(throws: RenderError.textTooLong(bytes: 300_000, limit: 256 << 10)) { try ReportLayout(document) }
    document.textLimits.maximumBytes = 300_000
    // Raised limits carry through pagination to drawing.
    let layout = try ReportLayout(document)
    #expect(layout.pages.count > 50)
    #expect(layout.pages[0].textRuns.allSatisfy { $0.limits.maximumBytes == 300_000 })

    var tall = ReportDocument()
    tall.style.body.lineSpacing = 3000
    tall.addParagraph(String(repeating: "a\n", count: 999))
    #expect(throws: RenderError.self) { try ReportLayout(tall) }
  }

  @Test("a long report paragraph paginates: every line once, in order, inside the content area, none overlapping")
  func longReportParagraph() throws {
    let text = (1...12_000).map { "w\($0)" }.joined(separator: " ")
    var document = ReportDocument(showsPageNumbers: false)
    document.addParagraph(text)
    let layout = try ReportLayout(document)
    let runs = layout.pages.flatMap(\.textRuns)
    let whole = try TextLayout(.plain(text), style: document.style.body, width: layout.contentRect.width)
    #expect(runs.first?.lines.lowerBound == 0)
    #expect(runs.last?.lines.upperBound == whole.lines.count)
    for (previous, next) in zip(runs, runs.dropFirst()) { #expect(previous.lines.upperBound == next.lines.lowerBound) }
    for page in layout.pages {
      let frames = page.textRuns.flatMap(\.lineFrames)
      for frame in frames {
        #expect(frame.minY >= layout.contentRect.minY - 0.01 && frame.maxY <= layout.contentRect.maxY + 0.01)
      }
      for (above, below) in zip(frames, frames.dropFirst()) { #expect(above.maxY <= below.minY + 0.01) }
    }
  }
}
