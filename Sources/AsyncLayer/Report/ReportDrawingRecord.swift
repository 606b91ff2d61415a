internal import CCairo

/// What a report's PDF pages draw, in drawing order, for marking the content ourselves
/// (``PDFContentMarker``) instead of through cairo's tags: per page, each text run with its
/// structure path and the glyphs cairo is given for it, and whether non-text drawing (fills, rules,
/// images, figures) came between two runs; and, for our structure tree (``ReportStructureTree``),
/// the order of runs, fills and rules, links and figures. Figures are the one thing cairo still
/// tags: each is drawn inside a `Figure` tag of its own (``beginFigure(alternativeText:in:)``).
/// Made only when asked for (``ReportLayout/pdfData(isCancelled:record:)``).
///
/// The glyph count is what `pango_cairo_show_layout_line` hands cairo for the run's lines, as
/// ``VectorColorGlyphs`` draws them: every glyph but pango's empty ones (`PANGO_GLYPH_EMPTY`,
/// which pango's cairo renderer skips), the colour glyphs blanked and painted as images, and for
/// each colour glyph that starts a cluster one inkless glyph carrying its text. A line with a glyph
/// pango has no font for (`PANGO_GLYPH_UNKNOWN_FLAG`: pango draws a box with the code point in
/// a font of its own) has a count that is not known here: the run records nil, and marking the
/// page fails rather than guess.
final class ReportDrawingRecord {
  /// One page: the runs in drawing order, and each run's structure path and page element index.
  struct Page {
    var runs: [PDFContentMarker.Run] = []
    var paths: [ReportStructure.Path] = []
    var elements: [Int] = []
    /// What changes the open structure elements, in drawing order (``ReportStructureTree`` replays
    /// it as ``ReportStructure`` moves cairo's tags).
    var events: [Event] = []
  }

  /// One step of a page's structure, as ``ReportStructure/enter(_:index:)`` takes it.
  enum Event: Equatable {
    /// Text run `index` (of the page's runs) moves to its path (an empty path closes the leaves).
    case run(Int)
    /// A fill or rule: closes the open elements inside the innermost open container.
    case closeLeaves
    /// A link annotation, a `Link` element inside whatever is open.
    case link
    /// A figure (image, chart, SVG, QR code) drawn inside a cairo `Figure` tag of its own, with
    /// its alternative text.
    case figure(String?)
  }

  private(set) var pages: [Page] = []
  private var drewSinceRun = false
  /// Per cairo scaled font: whether its face has colour bitmaps (``VectorColorGlyphs`` paints those).
  private var colourFonts: [UInt: Bool] = [:]

  func beginPage() {
    pages.append(Page())
    drewSinceRun = false
  }

  /// Non-text drawing since the last run.
  func noteDrawing() { drewSinceRun = true }

  /// A fill or a rule (non-text drawing that closes the open leaves, as ``ReportStructure`` does).
  func noteRule() {
    if pages.isEmpty { beginPage() }
    drewSinceRun = true
    pages[pages.count - 1].events.append(.closeLeaves)
  }

  /// A link annotation (cairo writes it and an empty `/Link` marked content).
  func noteLink() {
    if pages.isEmpty { beginPage() }
    pages[pages.count - 1].events.append(.link)
  }

  /// Begins a figure's drawing. cairo marks it (`/Figure << /MCID n >> BDC … EMC`, a few tags
  /// per report, not per cell): everything a figure draws, a chart's or an SVG's text included, is
  /// the figure's content without counting it, and our tree takes that MCID as its `Figure`'s.
  func beginFigure(alternativeText: String?, in cr: OpaquePointer) {
    if pages.isEmpty { beginPage() }
    pages[pages.count - 1].events.append(.figure(alternativeText))
    drewSinceRun = true
    cairo_tag_begin(cr, Self.figureTag, "")
  }

  func endFigure(in cr: OpaquePointer) {
    cairo_tag_end(cr, Self.figureTag)
    drewSinceRun = true
  }

  private static let figureTag = "Figure"

  /// Text run `run`, drawn from `layout`; `paintedColourGlyphs`: the colour glyphs
  /// ``VectorColorGlyphs`` painted for it.
  func addText(
    _ run: ReportTextRun, element: Int, path: ReportStructure.Path?, layout: TextLayout, paintedColourGlyphs: Int
  ) {
    let path = path ?? .empty
    // The name's bytes as a String (a small string: no allocation, no dynamic cast).
    // A contents line's leader dots are an artifact (they stay in its TOCI's place in the page).
    var type: String? =
      path.count == 0 ? nil : path[path.count - 1].tag.name.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
    if case .contentsLeader = run.role { type = nil }
    var count: Int? = nil
    if let glyphs = glyphs(of: layout, lines: run.lines), glyphs.colour == paintedColourGlyphs {
      count = glyphs.count
    }
    // Markup and attributed text may have backgrounds, underlines and strikethroughs, which
    // pango's cairo renderer paints as rectangles among the glyphs.
    var styled = true
    if case .plain = run.content { styled = false }
    append(
      PDFContentMarker.Run(structureType: type, glyphCount: count, paintsInside: paintedColourGlyphs > 0 || styled),
      element: element, path: path)
  }

  private func append(_ run: PDFContentMarker.Run, element: Int, path: ReportStructure.Path) {
    if pages.isEmpty { beginPage() }
    var run = run
    run.drawingBefore = drewSinceRun
    drewSinceRun = false
    pages[pages.count - 1].events.append(.run(pages[pages.count - 1].runs.count))
    pages[pages.count - 1].runs.append(run)
    pages[pages.count - 1].paths.append(path)
    pages[pages.count - 1].elements.append(element)
  }

  /// The glyphs cairo is given for `lines` of `layout`, and how many of them are colour glyphs
  /// painted as images; nil when a line has a glyph pango has no font for.
  private func glyphs(of layout: TextLayout, lines: Range<Int>) -> (count: Int, colour: Int)? {
    var count = 0
    var colour = 0
    for index in lines {
      guard let line = layout.pangoLine(index) else { break }
      var node = line.pointee.runs
      while let current = node {
        node = current.pointee.next
        guard let run = current.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self).pointee,
          let glyphs = run.glyphs?.pointee
        else { continue }
        let isColour =
          run.item?.pointee.analysis.font.flatMap { isColourFont(OpaquePointer($0)) } ?? false
        for position in 0..<Int(glyphs.num_glyphs) {
          let glyph = glyphs.glyphs[position].glyph
          if glyph == PANGO_GLYPH_EMPTY { continue }
          if glyph & PANGO_GLYPH_UNKNOWN_FLAG != 0 { return nil }
          guard isColour else {
            count += 1
            continue
          }
          colour += 1
          // The inkless glyph that carries the text: one per cluster, on its first glyph.
          if let clusters = glyphs.log_clusters, position > 0, clusters[position - 1] == clusters[position] {
            continue
          }
          count += 1
        }
      }
    }
    return (count, colour)
  }

  /// Whether `font` (a PangoFont) draws through a face with colour bitmaps, as
  /// ``VectorColorGlyphs`` decides it (a bitmap strike of at most 1,024 pixels per em).
  private func isColourFont(_ pangoFont: OpaquePointer) -> Bool {
    guard let font = pango_cairo_font_get_scaled_font(pangoFont) else { return false }
    let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(font)))
    if let known = colourFonts[key] { return known }
    let found = VectorColorGlyphs.colourStrike(of: font) != nil
    colourFonts[key] = found
    return found
  }
}
