public import Foundation

extension ReportLayout {
  /// Paginates `document` on a queue of `pool` (off the cooperative pool).
  ///
  /// Cancelling the calling task takes a queued pagination off its queue, and stops a running one
  /// before its next block; the call then throws `CancellationError`. Other errors are those of
  /// ``init(_:)``, and ``QueuePoolError`` when the pool refuses the work.
  ///
  /// ```swift
  /// let layout = try await ReportLayout.make(report, on: .shared)
  /// let pdf = try await layout.pdfData(on: .shared)
  /// ```
  public static func make(_ document: ReportDocument, on pool: QueuePool = .shared) async throws -> ReportLayout {
    try await pool.run { isCancelled in try ReportLayout(document, isCancelled: isCancelled) }
  }

  /// Renders page `index` (from 0) on a white background at `scale`, on a queue of `pool`.
  ///
  /// Cancelling the calling task takes a queued page off its queue, and stops a running one at its
  /// next element or text line; the call then throws `CancellationError`, never a partly drawn page.
  ///
  /// ```swift
  /// let first = try await layout.renderPage(0, scale: 2, on: .shared)
  /// ```
  public func renderPage(_ index: Int, scale: Double = 1, on pool: QueuePool = .shared) async throws -> RenderedImage {
    let layout = self
    return try await pool.run { isCancelled in try layout.renderPage(index, scale: scale, isCancelled: isCancelled) }
  }

  /// Renders every page on `pool`, one run per page (so the pool's queues draw pages side by side),
  /// and returns the images in page order.
  ///
  /// Cancelling the calling task takes the pages still queued off their queues and stops the
  /// running ones at their next check; the call then throws `CancellationError`, with no images.
  /// The first page that fails cancels the others.
  ///
  /// ```swift
  /// let pool = QueuePool(queueCount: 2)
  /// for (index, image) in try await layout.renderPages(scale: 2, on: pool).enumerated() {
  ///   try image.writePNG(to: "report-\(index + 1).png")
  /// }
  /// ```
  public func renderPages(scale: Double = 1, on pool: QueuePool) async throws -> [RenderedImage] {
    // Validate once so a bad scale fails before any page is queued.
    _ = try ImageRenderer(size: pageSize, scale: scale)
    let layout = self
    return try await withThrowingTaskGroup(of: (Int, RenderedImage).self) { group in
      // The child tasks only wait for their runs: the drawing happens on the pool's threads.
      for index in pages.indices {
        group.addTask { (index, try await layout.renderPage(index, scale: scale, on: pool)) }
      }
      var images = [RenderedImage?](repeating: nil, count: pages.count)
      for try await (index, image) in group { images[index] = image }
      try Task.checkCancellation()
      return images.map { $0! }
    }
  }

  /// The report as a multi-page PDF (see ``pdfData()``), written on a queue of `pool`.
  ///
  /// Cancelling the calling task takes the queued work off its queue, or stops the writing at the
  /// next page or element; the call then throws `CancellationError`, never a truncated PDF.
  ///
  /// ```swift
  /// let pdf = try await layout.pdfData(on: .shared)
  /// ```
  public func pdfData(on pool: QueuePool = .shared) async throws -> Data {
    let layout = self
    return try await pool.run { isCancelled in try layout.pdfData(isCancelled: isCancelled) }
  }

  /// The report as one SVG of stacked pages (see ``svgData(pageGap:)``), written on a queue of `pool`.
  ///
  /// Cancelling the calling task takes the queued work off its queue, or stops the writing at the
  /// next page or element; the call then throws `CancellationError`, never a truncated SVG.
  ///
  /// ```swift
  /// let svg = try await layout.svgData(pageGap: 20, on: .shared)
  /// ```
  public func svgData(pageGap: Double = 20, on pool: QueuePool = .shared) async throws -> Data {
    let layout = self
    return try await pool.run { isCancelled in try layout.svgData(pageGap: pageGap, isCancelled: isCancelled) }
  }
}
