internal import CCairo
public import Foundation
import Synchronization

extension ReportLayout {
  // MARK: PNG

  /// Renders page `index` (from 0) on a white background into a new image at `scale` device
  /// pixels per point.
  ///
  /// ```swift
  /// let first = try layout.renderPage(0, scale: 2)
  /// try first.writePNG(to: "report-1.png")
  /// ```
  public func renderPage(
    _ index: Int, scale: Double = 1, isCancelled: @escaping () -> Bool = { false }
  ) throws -> RenderedImage {
    try ImageRenderer(size: pageSize, scale: scale).render(isCancelled: isCancelled) { context in
      context.clear(to: .white)
      try draw(page: index, in: context)
    }
  }

  /// Renders every page on ``QueuePool/shared`` and returns the images in page order: the same as
  /// ``renderPages(scale:on:)`` with the shared pool.
  ///
  /// ```swift
  /// for (index, image) in try await layout.renderPages(scale: 2).enumerated() {
  ///   try image.writePNG(to: "report-\(index + 1).png")
  /// }
  /// ```
  public func renderPages(scale: Double = 1) async throws -> [RenderedImage] {
    try await renderPages(scale: scale, on: .shared)
  }

  // MARK: PDF and SVG

  /// A multi-page PDF of the report. Text stays text: it can be selected, searched and extracted
  /// (for example with `pdftotext`).
  ///
  /// ```swift
  /// try layout.pdfData().write(to: URL(fileURLWithPath: "report.pdf"))
  /// ```
  public func pdfData() throws -> Data {
    try pdfData(isCancelled: { false })
  }

  /// The PDF, checking `isCancelled` between pages and between a page's elements.
  func pdfData(isCancelled: @escaping () -> Bool) throws -> Data {
    try pdfData(isCancelled: isCancelled, ownStructure: Self.writesOwnStructureTree)
  }

  /// Whether a tagged PDF gets our own marked content and structure tree
  /// (``ownTaggedPDFData(isCancelled:)``) instead of cairo's tags: the internal switch of issue
  /// 29's goal 6.
  static let writesOwnStructureTree = true

  /// How many tagged PDFs this process drew a second time, with cairo's tags, because the library's
  /// own structure tree did not add up for them (a glyph count, a link or a page it could not match).
  ///
  /// Such a PDF is correct and tagged; it only cost a second drawing. The count should stay 0: compare
  /// it before and after writing a PDF to learn whether that one fell back.
  ///
  /// ```swift
  /// let before = ReportLayout.ownStructureFallbackCount
  /// let pdf = try layout.pdfData()
  /// if ReportLayout.ownStructureFallbackCount != before { print("drawn twice (cairo's tags)") }
  /// ```
  public static var ownStructureFallbackCount: Int { ownStructureFallbacks.load(ordering: .relaxed) }

  /// The count behind ``ownStructureFallbackCount``.
  static let ownStructureFallbacks = Atomic<Int>(0)

  /// The PDF; a tagged one with our own structure tree when `ownStructure` is true, else with
  /// cairo's tags. Should our tree not add
  /// up (a ``ReportOwnMarking/Failure``), the PDF is drawn again with cairo's tags: never a
  /// wrong tree.
  func pdfData(isCancelled: @escaping () -> Bool, ownStructure: Bool) throws -> Data {
    if ownStructure, metadata.tagged {
      do {
        return try ownTaggedPDFData(isCancelled: isCancelled)
      } catch is ReportOwnMarking.Failure {
        // Drawn again below with cairo's tags; counted, so that a caller (and layerbench) can tell.
        Self.ownStructureFallbacks.add(1, ordering: .relaxed)
      }
    }
    return try pdfData(isCancelled: isCancelled, record: nil)
  }

  /// The PDF; with `record`, drawn without cairo's tags (as for an untagged report) and with each
  /// page's runs and drawing noted in `record`, for marking the content ourselves.
  func pdfData(isCancelled: @escaping () -> Bool, record: ReportDrawingRecord?) throws -> Data {
    if isCancelled() { throw CancellationError() }
    let tagged = metadata.tagged && record == nil
    var fields: [VectorDocument.PDFMetadataField: String] = [:]
    fields[.author] = metadata.author
    fields[.subject] = metadata.subject
    if !metadata.keywords.isEmpty { fields[.keywords] = metadata.keywords.joined(separator: ", ") }
    fields[.createDate] = Self.pdfDate(date)
    let document = try VectorDocument(format: .pdf, size: pageSize, title: title, metadata: fields)
    let context = try CairoContext(surface: document.surface)
    let drawing = DrawingContext(context: context, size: pageSize, scale: 1, isCancelled: isCancelled)
    // On the thread that paginated, the texts are drawn with the layouts pagination made.
    let layouts = ReportRunLayouts(prepared: ReportPreparedLayouts.take(for: preparedLayouts))
    layouts.colorGlyphs = VectorColorGlyphs(writesText: true)
    let navigation = ReportNavigation(self)
    let structure = ReportStructure(drawing)
    // One Document element holds the pages' elements (cairo continues it on each page). Untagged,
    // a NonStruct root still holds the Link elements cairo makes for link tags: without a root
    // that is a structure element, cairo 1.16 numbers those elements but never writes them, and
    // the xref points at missing objects (qpdf: "file is damaged"). NonStruct is not a document
    // root type, so cairo leaves /MarkInfo out and the PDF is not tagged.
    structure.openRoot(tagged ? .document : .nonStruct)
    let pageStructure = tagged ? structure : nil
    for index in pages.indices {
      try drawing.checkCancellation()
      try drawing.withSavedState {
        try draw(
          page: index, in: drawing, layouts: layouts, navigation: navigation, structure: pageStructure, record: record)
      }
      if index == pages.count - 1 { structure.closeAll() }
      FontCacheLock.withLock { cairo_show_page(context.raw) }  // emits the page: cairo's glyph cache
      try context.check("drawing PDF page \(index + 1)")
    }
    structure.closeAll()
    navigation.addOutline(to: document.surface.raw)
    var data = try document.finish()
    // cairo 1.16 lists an image XObject in a page's resources once per paint: a colour glyph drawn
    // twice on a page repeats its key, which qpdf and pypdf flag.
    if let colorGlyphs = layouts.colorGlyphs, colorGlyphs.paintedCount > colorGlyphs.imageCount {
      data = PDFResourceCleanup.removingDuplicateXObjectKeys(from: data)
    }
    // Drawn for our own tags: cairo's layout (the cleanup above keeps every offset), which our
    // rewrite reads as cairo writes it; an incremental update would hide the table it reads.
    if record != nil, metadata.tagged { return data }
    // cairo 1.16 has no call for the document language nor attributes on structure elements: an
    // incremental update adds /Lang, the figures' /Alt and the header cells' /Scope. A tagged PDF
    // is written again instead, its structure tree (a plain object per table cell from cairo, 1.7
    // of the 1.8 MB of a 2,000-row table) in compressed object streams.
    var additions = PDFCatalogUpdate.Additions(language: metadata.language)
    if tagged {
      additions.figureAlternativeTexts = structure.figureAlternativeTexts
      additions.columnHeaderScope = structure.hasColumnHeaders
      additions.packsStructure = true
    }
    do {
      data = try PDFCatalogUpdate.applying(additions, to: data)
    } catch {
      throw RenderError.cairo(operation: "adding /Lang, /Alt and /Scope to the PDF", status: error.description)
    }
    return data
  }

  /// `date` as cairo takes it for the PDF: ISO 8601 in UTC.
  static func pdfDate(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: date)
  }

  /// One SVG file with the pages stacked vertically, top to bottom, `pageGap` points apart; each
  /// page has a white background and the gaps are transparent.
  ///
  /// cairo's SVG surface writes glyphs as outlines (`<symbol>` paths placed with `<use>`), so the
  /// SVG looks like the PDF but its text cannot be selected or searched; use ``pdfData()`` for that.
  public func svgData(pageGap: Double = 20) throws -> Data {
    try svgData(pageGap: pageGap, isCancelled: { false })
  }

  /// The SVG, checking `isCancelled` between pages and between a page's elements.
  func svgData(pageGap: Double, isCancelled: @escaping () -> Bool) throws -> Data {
    if isCancelled() { throw CancellationError() }
    let gap = max(0, pageGap.isFinite ? pageGap : 0)
    let count = max(1, pages.count)
    let total = Size(width: pageSize.width, height: Double(count) * pageSize.height + Double(count - 1) * gap)
    let document = try VectorDocument(format: .svg, size: total)
    let context = try CairoContext(surface: document.surface)
    let drawing = DrawingContext(context: context, size: total, scale: 1, isCancelled: isCancelled)
    // On the thread that paginated, the texts are drawn with the layouts pagination made.
    let layouts = ReportRunLayouts(prepared: ReportPreparedLayouts.take(for: preparedLayouts))
    layouts.colorGlyphs = VectorColorGlyphs(writesText: false)
    for index in pages.indices {
      try drawing.checkCancellation()
      try drawing.withSavedState {
        drawing.translateBy(x: 0, y: Double(index) * (pageSize.height + gap))
        let page = Rect(origin: .zero, size: pageSize)
        drawing.fill(page, color: .white)
        drawing.clip(to: page)
        try draw(page: index, in: drawing, layouts: layouts)
      }
      try context.check("drawing SVG page \(index + 1)")
    }
    return try document.finish()
  }
}
