/// The texts laid out lately for drawing, kept for the next run of the same text: a paragraph that
/// spans 60 pages is laid out once for a PDF, not once per page (a 256 KiB paragraph took 24 s).
/// One per output, on its drawing thread (layouts are not `Sendable`).
final class ReportRunLayouts {
  /// What a run's layout is found by: the run's text, style, width and limits, and the scale.
  struct Key: Hashable {
    let content: TextContent
    let style: TextStyle
    let width: Double
    let limits: TextLimits
    let scale: Double

    init(_ run: ReportTextRun, scale: Double) {
      content = run.content
      style = run.style
      width = run.width
      limits = run.limits
      self.scale = scale
    }

    /// The key of the runs placed from `layout` (a run takes its text, style, width and limits
    /// from the layout it was placed from).
    init(_ layout: TextLayout) {
      content = layout.content
      style = layout.style
      width = layout.width ?? 0
      limits = layout.limits
      scale = layout.scale
    }

    /// The text and width only: what tells a table's cells apart, without hashing a whole style
    /// per run (equal keys still compare every field).
    func hash(into hasher: inout Hasher) {
      hasher.combine(content)
      hasher.combine(width)
    }
  }

  /// The layouts pagination made on this thread (``ReportPreparedLayouts``), or none.
  private let prepared: [Key: TextLayout]
  /// Most recent last; a few, because a page's footer and table cells come between the slices of
  /// a paragraph.
  private var recent: [(key: Key, layout: TextLayout)] = []
  private static let capacity = 8
  /// A PDF or SVG output's colour glyphs (emoji), stored once each; nil for PNG pages.
  var colorGlyphs: VectorColorGlyphs?

  init(prepared: [Key: TextLayout] = [:]) { self.prepared = prepared }

  /// `layouts` by the key their runs are drawn with. Layouts with equal keys lay out the same text
  /// the same way, so either one serves.
  static func byKey(_ layouts: some Collection<TextLayout>) -> [Key: TextLayout] {
    var byKey: [Key: TextLayout] = [:]
    byKey.reserveCapacity(layouts.count)
    for layout in layouts { byKey[Key(layout)] = layout }
    return byKey
  }

  func layout(for run: ReportTextRun, scale: Double) throws -> TextLayout {
    let key = Key(run, scale: scale)
    if let layout = prepared[key], run.breaksLikePagination(layout) { return layout }
    if let index = recent.lastIndex(where: { $0.key == key }), run.breaksLikePagination(recent[index].layout) {
      return recent[index].layout
    }
    let layout = try run.makeLayout(scale: scale)
    recent.append((key, layout))
    if recent.count > Self.capacity { recent.removeFirst() }
    return layout
  }
}
