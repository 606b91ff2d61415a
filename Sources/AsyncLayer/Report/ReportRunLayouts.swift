/// The texts laid out lately for drawing, kept for the next run of the same text: a paragraph that
/// spans 60 pages is laid out once for a PDF, not once per page (a 256 KiB paragraph took 24 s).
/// One per output, on its drawing thread (layouts are not `Sendable`).
final class ReportRunLayouts {
  private struct Key: Equatable {
    let content: TextContent
    let style: TextStyle
    let width: Double
    let limits: TextLimits
    let scale: Double
  }

  /// Most recent last; a few, because a page's footer and table cells come between the slices of
  /// a paragraph.
  private var recent: [(key: Key, layout: TextLayout)] = []
  private static let capacity = 8

  func layout(for run: ReportTextRun, scale: Double) throws -> TextLayout {
    let key = Key(content: run.content, style: run.style, width: run.width, limits: run.limits, scale: scale)
    if let index = recent.lastIndex(where: { $0.key == key }), run.breaksLikePagination(recent[index].layout) {
      return recent[index].layout
    }
    let layout = try run.makeLayout(scale: scale)
    recent.append((key, layout))
    if recent.count > Self.capacity { recent.removeFirst() }
    return layout
  }
}
