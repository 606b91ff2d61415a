internal import CCairo
import Foundation

extension ReportLayout {
  /// Draws page `index` (from 0) into `context`, whose origin is the page's top-left corner; the
  /// page background is left as it is. Throws ``ReportError/pageOutOfRange(index:count:)`` for an
  /// index beyond the pages.
  ///
  /// Text is laid out again on this thread at the context's scale and drawn line by line, only the
  /// lines pagination put on this page. Cancellation is checked between elements.
  ///
  /// ```swift
  /// let image = try ImageRenderer(size: layout.pageSize, scale: 2).render { context in
  ///   context.clear(to: .white)
  ///   try layout.draw(page: 0, in: context)
  /// }
  /// ```
  public func draw(page index: Int, in context: DrawingContext) throws {
    try draw(page: index, in: context, layouts: ReportRunLayouts())
  }

  /// Draws page `index`, reusing `layouts` across the pages of one output.
  /// A PDF pass adds `navigation` (named destinations for in-document links) and `structure`
  /// (the tagged-PDF elements); both nil for PNG and SVG. `record` (an untagged PDF pass only)
  /// notes what each element drew, for marking the content afterwards (``ReportDrawingRecord``).
  func draw(
    page index: Int, in context: DrawingContext, layouts: ReportRunLayouts, navigation: ReportNavigation? = nil,
    structure: ReportStructure? = nil, record: ReportDrawingRecord? = nil
  ) throws {
    guard pages.indices.contains(index) else { throw ReportError.pageOutOfRange(index: index, count: pages.count) }
    navigation?.declareDestinations(onPage: index, in: context.cairo.raw)
    record?.beginPage()
    for (number, element) in pages[index].elements.enumerated() {
      try context.checkCancellation()
      structure?.enter(element, index: number)
      switch element {
      case .text(let run):
        let painted = layouts.colorGlyphs?.paintedCount ?? 0
        let layout = try context.draw(run, layouts: layouts)
        if let record {
          record.addText(
            run, element: number, path: ReportStructure.path(for: element, index: number), layout: layout,
            paintedColourGlyphs: (layouts.colorGlyphs?.paintedCount ?? 0) - painted)
        }
      case .image(let image, let frame):
        record?.beginFigure(alternativeText: nil, in: context.cairo.raw)
        context.draw(image, in: frame)
        record?.endFigure(in: context.cairo.raw)
      case .fill(let rect, let color):
        context.fill(rect, color: color)
        record?.noteRule()
      case .stroke(let rect, let color, let lineWidth):
        context.stroke(rect, color: color, lineWidth: lineWidth)
        record?.noteRule()
      case .link(let rect, let target):
        context.addLink(rect, to: target, named: navigation)
        record?.noteLink()
      case .figure(let figure, let frame):
        record?.beginFigure(alternativeText: figure.alternativeText, in: context.cairo.raw)
        try context.draw(figure, in: frame)
        record?.endFigure(in: context.cairo.raw)
      }
    }
    structure?.closePage()
  }
}

extension ReportTextRun {
  /// Lays the run's text out on this thread at `scale`, with the lines breaking where pagination
  /// broke them.
  ///
  /// Pango's contexts have metrics hinting off, so a layout at any scale breaks like the scale-1
  /// layout pagination used. Should a font still break differently, the run falls back to a
  /// layout at scale 1 (drawn scaled), so the page never loses or repeats a line.
  func makeLayout(scale: Double) throws -> TextLayout {
    let layout = try TextLayout(content, style: style, width: width, scale: scale, limits: limits)
    if scale != 1, !breaksLikePagination(layout) {
      return try TextLayout(content, style: style, width: width, scale: 1, limits: limits)
    }
    return layout
  }

  /// True when `layout` has this run's lines starting at the offsets pagination recorded.
  func breaksLikePagination(_ layout: TextLayout) -> Bool {
    let lines = layout.lines
    guard lines.count >= self.lines.upperBound else { return false }
    // Compared in place: this runs for each of a table's 10,000 runs when it is drawn.
    return lines[self.lines].lazy.map(\.utf8Offset).elementsEqual(lineOffsets)
  }
}

extension DrawingContext {
  /// Marks `rect` as a link to `target` (cairo's link tag: PDF surfaces write a link annotation,
  /// others ignore it).
  /// A place in the document links to its named destination in `navigation` when it has one
  /// (resolved when the PDF finishes, forward or backward), else to its page number.
  func addLink(_ rect: Rect, to target: ReportLinkTarget, named navigation: ReportNavigation? = nil) {
    let area = "rect=[\(Self.linkArea(rect))]"
    let attributes: String
    switch target {
    case .url(let url): attributes = "uri='\(Self.tagString(url))' " + area
    case .page(let page, let y):
      if let name = navigation?.names[target] {
        attributes = "dest='\(Self.tagString(name))' " + area
      } else {
        attributes = "page=\(page) pos=[0 \(y)] " + area
      }
    }
    cairo_tag_begin(cairo.raw, CAIRO_TAG_LINK, attributes)
    cairo_tag_end(cairo.raw, CAIRO_TAG_LINK)
  }

  /// `rect` rounded inward to whole points, as cairo's link tag wants it: cairo rounds a link's
  /// area outward to whole points, so two links on touching lines (contents entries) would overlap
  /// by up to a point and a click there could go to either. A rect too small to round inward is
  /// kept as it is.
  static func linkArea(_ rect: Rect) -> String {
    let left = rect.minX.rounded(.up)
    let top = rect.minY.rounded(.up)
    let right = rect.maxX.rounded(.down)
    let bottom = rect.maxY.rounded(.down)
    guard right > left, bottom > top else { return "\(rect.minX) \(rect.minY) \(rect.width) \(rect.height)" }
    return "\(left) \(top) \(right - left) \(bottom - top)"
  }

  /// `text` quoted for a cairo tag attribute string: backslash and single quote escaped.
  static func tagString(_ text: String) -> String {
    text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
  }

  /// Draws the lines of `run`, the first one's top at the run's frame top; returns the layout
  /// drawn (the drawing record counts its glyphs).
  @discardableResult
  func draw(_ run: ReportTextRun, layouts: ReportRunLayouts) throws -> TextLayout {
    let layout = try layouts.layout(for: run, scale: scale)
    let lines = layout.lines
    let origin = Point(x: run.frame.minX, y: run.frame.minY - lines[run.lines.lowerBound].frame.minY)
    let color = run.style.color.clamped
    let cr = cairo.raw
    cairo_set_source_rgba(cr, color.red, color.green, color.blue, color.alpha)
    // PNG pages: this thread's glyph compositor, so that pages rendered in parallel do not queue
    // on cairo's glyph cache. It declines vector surfaces (PDF, SVG), which take cairo's path: a
    // vector output (the one kind with `colorGlyphs`) does not ask it for each of its runs.
    if glyphCompositing == .threadCache, layouts.colorGlyphs == nil {
      let placed = lines[run.lines].compactMap { line -> GlyphCompositor.PlacedLine? in
        guard let pangoLine = layout.pangoLine(line.index) else { return nil }
        let lineOrigin = Point(x: origin.x + line.frame.minX, y: origin.y + line.baseline)
        return GlyphCompositor.PlacedLine(line: pangoLine, origin: lineOrigin, offsetX: 0, offsetY: 0)
      }
      if PangoThreadState.current.glyphCompositor.show(lines: placed, in: cr, isCancelled: { false }) != nil {
        return layout
      }
    }
    for line in lines[run.lines] {
      guard let pangoLine = layout.pangoLine(line.index) else { break }
      if let colorGlyphs = layouts.colorGlyphs {
        colorGlyphs.show(pangoLine, x: origin.x + line.frame.minX, y: origin.y + line.baseline, in: cr)
        continue
      }
      cairo_move_to(cr, origin.x + line.frame.minX, origin.y + line.baseline)
      // Vector surfaces draw through cairo's glyph cache, shared by every thread (FontCacheLock).
      FontCacheLock.withLock { pango_cairo_show_layout_line(cr, pangoLine) }
    }
    return layout
  }
}
