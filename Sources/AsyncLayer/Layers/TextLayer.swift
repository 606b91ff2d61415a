import Synchronization

/// An ``AsyncLayer`` that draws text: plain or markup, in a ``TextStyle``, inside ``padding``.
///
/// The draw lays the text out on the draw queue, checks for cancellation between layout and
/// rendering, and then draws line by line, checking between lines, so a redisplay stops a long
/// paragraph part-way.
///
/// ```swift
/// let label = TextLayer(loop: loop)
/// label.size = Size(width: 320, height: 80)
/// label.contentsScale = 2
/// label.style = TextStyle(fontSize: 15)
/// label.text = .markup("<b>Ada</b> replied to your post")
/// ```
open class TextLayer: AsyncLayer {
  /// The text to show.
  public var text: TextContent = .plain("") {
    didSet { if text != oldValue { setNeedsDisplay() } }
  }

  /// How the text looks.
  public var style = TextStyle() {
    didSet { if style != oldValue { setNeedsDisplay() } }
  }

  /// Space between the layer's edges and the text.
  public var padding = EdgeInsets.zero {
    didSet { if padding != oldValue { setNeedsDisplay() } }
  }

  /// How much text the layer accepts (see ``TextLimits``); more fails the draw with a
  /// ``RenderError`` in ``AsyncLayer/lastError``.
  public var limits = TextLimits.default {
    didSet { if limits != oldValue { setNeedsDisplay() } }
  }

  /// Called on the draw thread after each text draw, finished or cancelled part-way.
  package var drawReportHandler: (@Sendable (TextDrawReport) -> Void)?

  /// Captures text, style, padding, size and scale; the layout itself happens on the draw queue.
  open override func makeDrawOperation() -> DrawOperation? {
    let text = text
    let style = style
    let padding = padding
    let size = size
    let scale = contentsScale
    let report = drawReportHandler
    let limits = limits
    let origin = Point(x: padding.left, y: padding.top)
    let bounds = Rect(x: 0, y: 0, width: size.width, height: size.height)
    // A long text is laid out in pieces, checking for cancellation between them, and only as far
    // as the layer shows it.
    @Sendable func makeLayout(isCancelled: @escaping () -> Bool) throws -> TextLayout? {
      let width = size.width - padding.left - padding.right
      let height = size.height - padding.top - padding.bottom
      guard width > 0, height > 0 else { return nil }
      return try TextLayout(
        text, style: style, width: width, height: height, scale: scale, limits: limits,
        splitting: TextLayout.Splitting(isCancelled: isCancelled, stopsAfterShownLines: true))
    }
    return DrawOperation(
      { context in
        guard let layout = try makeLayout(isCancelled: { context.isCancelled }) else { return }
        try context.checkCancellation()
        let lineCount = layout.lines.count
        let drawn = context.withSavedState {
          context.clip(toPixelsCovering: bounds)
          return context.draw(layout, at: origin)
        }
        report?(TextDrawReport(lineCount: lineCount, linesToDraw: lineCount, linesDrawn: drawn))
        if drawn < lineCount { throw CancellationError() }
      },
      banded: { isCancelled in
        // The style's background is one rectangle under the whole text, not a band per line.
        guard style.backgroundColor == nil else { return nil }
        // The check is used only while the layout is computed, inside this call.
        let made = try withoutActuallyEscaping(isCancelled) { isCancelled in try makeLayout(isCancelled: isCancelled) }
        guard let layout = made else {
          return BandedDrawing(record: BandRecord(key: 0, bands: [])) { _, _ in }
        }
        if isCancelled() { throw CancellationError() }
        var key = Hasher()
        key.combine(ObjectIdentifier(TextLayer.self))
        key.combine(style)
        key.combine(padding)
        key.combine(size)
        key.combine(FontFiles.generation.load(ordering: .acquiring))  // registered fonts change fallbacks
        let record = BandRecord(key: key.finalize(), bands: layout.bands(origin: origin, scale: scale))
        return BandedDrawing(record: record) { context, lines in
          let drawn = context.withSavedState {
            context.clip(toPixelsCovering: bounds)
            return context.draw(layout, at: origin, lines: lines)
          }
          report?(TextDrawReport(lineCount: layout.lines.count, linesToDraw: lines.count, linesDrawn: drawn))
          if drawn < lines.count { throw CancellationError() }
        }
      })
  }
}

extension TextLayer {
  /// A new layer on the same loop with this one's drawing state (size, scale, background, padding,
  /// style, text) that draws synchronously: benchmarks and tests compare its full draw with this
  /// layer's contents.
  package func synchronousTwin() -> TextLayer {
    let twin = TextLayer(loop: loop)
    twin.size = size
    twin.contentsScale = contentsScale
    twin.isOpaque = isOpaque
    twin.backgroundColor = backgroundColor
    twin.padding = padding
    twin.style = style
    twin.limits = limits
    twin.text = text
    twin.displaysAsynchronously = false
    return twin
  }
}

/// What one text draw did.
package struct TextDrawReport: Sendable, Hashable {
  /// Lines the layout shows.
  package var lineCount: Int
  /// Lines this draw had to draw: all of them, or those that changed since the pixels it drew over.
  package var linesToDraw: Int
  /// Lines drawn: fewer than ``linesToDraw`` when the draw was cancelled part-way.
  package var linesDrawn: Int

  /// Creates a report.
  package init(lineCount: Int, linesToDraw: Int, linesDrawn: Int) {
    self.lineCount = lineCount
    self.linesToDraw = linesToDraw
    self.linesDrawn = linesDrawn
  }

  /// True when the draw stopped before its last line.
  package var wasCancelled: Bool { linesDrawn < linesToDraw }
}
