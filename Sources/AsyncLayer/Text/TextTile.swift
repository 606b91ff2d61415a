/// A rectangle of text: the unit `layerbench render` writes and lists draw per row.
///
/// ```swift
/// let tile = TextTile(.plain("Hello, 世界"), style: TextStyle(font: "Sans 14"), width: 375, scale: 2)
/// let result = try tile.render()
/// try result.image.writePNG(to: "hello.png")
/// if result.unknownGlyphCount > 0 { print("a font is missing") }
/// ```
public struct TextTile: Sendable, Hashable {
  /// The text: plain, markup or attributed.
  public var content: TextContent
  /// Font, colour, alignment, wrapping and line limits.
  public var style: TextStyle
  /// The tile width in points, padding included (vertical text: the columns' length, the image's
  /// height; see ``TextOrientation``).
  public var width: Double
  /// The tile height in points, padding included; nil fits the text (vertical text: the extent
  /// across the columns, the image's width).
  public var height: Double?
  /// Device pixels per point.
  public var scale: Double
  /// Space between the tile's edges and the text.
  public var padding: EdgeInsets
  /// The tile's background; nil leaves it transparent.
  public var background: Color?
  /// How glyphs are composited; the default scales across threads (see ``GlyphCompositing``).
  @_spi(Benchmarks) public var glyphCompositing: GlyphCompositing = .threadCache
  /// False lays a long text out in one Pango layout instead of pieces (benchmarks compare them).
  @_spi(Benchmarks) public var laysOutLongTextInPieces = true
  /// False keeps black or white text on a gray background in ARGB32 instead of one byte per pixel
  /// (tests and benchmarks compare the two; the pixels are the same).
  @_spi(Benchmarks) public var drawsGray = true
  /// How much text the tile accepts (see ``TextLimits``).
  public var limits = TextLimits.default
  /// The most bytes the tile's pixels may take (see ``ImageRenderer/init(size:scale:memoryCap:)``).
  public var memoryCap = ImageRenderer.defaultMemoryCap
  /// True: ``render(isCancelled:)`` also returns the glyph-cluster, word and line boxes of the
  /// shown text in the tile's device pixels (``RenderedText/boxes``). Off by default: the walk
  /// over every character costs about as much as a short line's layout.
  public var collectsBoxes = false
  /// With ``collectsBoxes``: an untransformed, horizontal tile returns its boxes as plain values
  /// (`RenderedText.boxValues`, the same numbers, no `TextBox` or `String` per box) instead of
  /// ``RenderedText/boxes``; `layerbench batch` writes its sidecar from them. A vertical or
  /// transformed tile still returns ``RenderedText/boxes``.
  package var collectsBoxValues = false
  /// True: ``render(isCancelled:)`` also returns the text as laid out (``RenderedText/text``): the
  /// label of an OCR dataset, markup removed. Implied by ``collectsBoxes``.
  public var collectsText = false
  /// True: the tile is only as wide as its text (the widest shown line's advance) plus the
  /// padding, rounded up to whole pixels, at most ``width``, which stays the wrapping width. A
  /// dataset's tight crop: no empty band beside a short line, whatever its alignment.
  public var fitsWidth = false
  /// An outline drawn along the glyphs' contours (see ``TextStroke``); nil draws none.
  public var stroke: TextStroke? = nil
  /// Rotation, skew and scale of the drawing, by cairo (see ``TileTransform``; the tile grows to
  /// hold it).
  public var transform = TileTransform.identity

  /// A tile `width` points wide; `height` nil fits the text (plus `padding`). `scale` is pixels per
  /// point; `background` nil leaves the tile transparent outside the text.
  public init(
    _ content: TextContent, style: TextStyle = TextStyle(), width: Double, height: Double? = nil,
    scale: Double = 1, padding: EdgeInsets = .zero, background: Color? = nil
  ) {
    self.content = content
    self.style = style
    self.width = width
    self.height = height
    self.scale = scale
    self.padding = padding
    self.background = background
  }

  /// Lays out and draws the tile on the calling thread.
  ///
  /// Degenerate tiles are refused rather than drawn blank or a pixel tall: empty text
  /// (``RenderError/emptyText``; text of only spaces is drawn, as a blank line), a scale below
  /// ``ImageRenderer/minimumScale``, a line spacing below minus half the font size, and a width or
  /// height left empty by the padding. A run of more than ``TextLimits/maximumUnbrokenBytes``
  /// without a space, where lines wrap between characters, is refused with
  /// ``RenderError/invalidValue(name:value:expected:)`` before Pango sees it.
  ///
  /// **Cancellation rule** (the same as the async ``render(on:)``): `isCancelled` is checked before
  /// the layout, between the pieces of a long layout, before and while the pixel buffer is
  /// filled, and between lines; once it has returned true the render throws `CancellationError`. A
  /// cancelled render never returns a partly drawn tile.
  ///
  /// ```swift
  /// let stop = Atomic<Bool>(false)   // set from another thread to give up
  /// let result = try tile.render(isCancelled: { stop.load(ordering: .relaxed) })
  /// ```
  public func render(isCancelled: @escaping () -> Bool = { false }) throws -> RenderedText {
    try validateStrokeAndTransform()
    // Validates width, height and scale (and the pixel limits) before any layout work.
    _ = try ImageRenderer(size: Size(width: width, height: height ?? 1), scale: scale, memoryCap: memoryCap)
    if content.source.isEmpty { throw RenderError.emptyText }
    // Before Pango: a long run it must wrap between characters takes seconds to minutes, uncancellably.
    try limits.check(content.source)  // the size first: a 10 MB text fails without a scan
    try limits.checkUnbrokenRuns(content.source, wrap: style.wrap)
    if isCancelled() { throw CancellationError() }
    if drawsThroughMap { return try renderThroughMap(isCancelled: isCancelled) }
    let textWidth = width - padding.left - padding.right
    guard textWidth > 0 else { throw RenderError.invalidDimension(name: "width inside the padding", value: textWidth) }
    var textHeight: Double? = nil
    if let height {
      textHeight = height - padding.top - padding.bottom
      guard textHeight! > 0 else {
        throw RenderError.invalidDimension(name: "height inside the padding", value: textHeight!)
      }
    }
    let layout = try layOut(width: textWidth, height: textHeight, isCancelled: isCancelled)
    let tileHeight = height ?? layout.size.height + padding.top + padding.bottom
    var tileWidth = width
    var textOrigin = Point(x: padding.left, y: padding.top)
    if fitsWidth, let extent = Self.horizontalExtent(of: layout.lines) {
      // Whole pixels, so that the right padding is not cut by a rounding.
      let fitted = ((extent.maxX - extent.minX + padding.left + padding.right) * scale).rounded(.up) / scale
      tileWidth = min(width, fitted)
      textOrigin.x = padding.left - extent.minX
    }
    let renderer = try ImageRenderer(
      size: Size(width: tileWidth, height: tileHeight), scale: scale, memoryCap: memoryCap)
    let clip = Rect(x: 0, y: 0, width: tileWidth, height: tileHeight)
    if let plan = try grayPlan(),
      let gray = try renderGray(
        layout, at: textOrigin, clip: clip, renderer: renderer, plan: plan, isCancelled: isCancelled)
    {
      return result(layout, image: gray.image, linesDrawn: gray.linesDrawn, textOrigin: textOrigin)
    }
    var linesDrawn = 0
    // The background is written while the buffer is filled (in chunks, with cancellation checks
    // between them), not painted over it afterwards in one uninterruptible pass: a 12000 × 10268
    // pixel tile spent some 40 ms in that paint. A clear sets every pixel alike, so it is the same.
    let startPixel = try background.map(ImageRenderer.clearPixel) ?? 0
    let image = try renderer.renderFollowingCancellationRule(startingWith: startPixel, isCancelled: isCancelled) {
      context in
      context.clip(toPixelsCovering: clip)
      context.glyphCompositing = glyphCompositing
      linesDrawn = context.draw(layout, at: textOrigin)
    }
    return result(layout, image: image, linesDrawn: linesDrawn, textOrigin: textOrigin)
  }

  private func result(_ layout: TextLayout, image: RenderedImage, linesDrawn: Int, textOrigin: Point) -> RenderedText {
    let conversion = TextBox.Conversion(offset: textOrigin, scale: scale)
    var result = RenderedText(
      image: image, lineCount: layout.lines.count, linesDrawn: linesDrawn,
      unknownGlyphCount: layout.unknownGlyphCount, isEllipsized: layout.isEllipsized,
      missingFontFamilies: FontCatalog.missingFamilies(in: style.fontFamily),
      boxes: collectsBoxes && !collectsBoxValues ? layout.boxes(converting: conversion) : nil,
      text: collectsBoxes || collectsText ? layout.text : nil)
    if collectsBoxes, collectsBoxValues { result.boxValues = layout.boxValues(converting: conversion) }
    return result
  }
}

extension TextTile {
  /// The tile's text laid out `width` points wide (and at most `height` tall): a long text in
  /// pieces, with `isCancelled` checked between them, and only as far as the tile shows it.
  /// Throws for text that lays out to nothing (markup whose tags enclose nothing, "<b></b>", too).
  func layOut(width: Double, height: Double?, isCancelled: @escaping () -> Bool) throws -> TextLayout {
    let layout = try TextLayout(
      content, style: style, width: width, height: height, scale: scale, limits: limits,
      splitting: TextLayout.Splitting(
        isCancelled: isCancelled, stopsAfterShownLines: true,
        pieceBytes: laysOutLongTextInPieces ? TextLayout.defaultPieceBytes : Int.max / 4))
    guard layout.characterCount > 0 else { throw RenderError.emptyText }
    guard layout.size.height > 0 else {
      throw RenderError.invalidDimension(name: "text height", value: layout.size.height)
    }
    if isCancelled() { throw CancellationError() }
    return layout
  }

  /// The leftmost and rightmost edges of the lines' logical boxes, or nil without lines.
  static func horizontalExtent(of lines: [TextLine]) -> (minX: Double, maxX: Double)? {
    guard let first = lines.first else { return nil }
    return lines.dropFirst().reduce((first.frame.minX, first.frame.maxX)) { extent, line in
      (min(extent.0, line.frame.minX), max(extent.1, line.frame.maxX))
    }
  }
}

/// What rendering a ``TextTile`` produced.
///
/// ```swift
/// let result = try TextTile(.plain(longText), style: style, width: 300, height: 60).render()
/// if result.isEllipsized { showMoreButton() }
/// ```
public struct RenderedText: Sendable, Hashable {
  /// The drawn tile.
  public let image: RenderedImage
  /// Lines shown in the tile.
  public let lineCount: Int
  /// Lines drawn: always ``lineCount``, since a render cancelled part-way throws
  /// `CancellationError` instead of returning (kept for source compatibility).
  public let linesDrawn: Int
  /// Characters drawn as boxes because no font covers them; non-zero means a missing font.
  public let unknownGlyphCount: Int
  /// True when an ellipsis replaced text that did not fit.
  public let isEllipsized: Bool
  /// Requested families that are not installed (the text used a fallback font).
  public let missingFontFamilies: [String]
  /// With ``TextTile/collectsBoxes``: the shown text's glyph-cluster, word and line boxes in the
  /// image's pixels (padding and scale applied); nil otherwise.
  public internal(set) var boxes: TextBoxes? = nil
  /// With ``TextTile/collectsText`` or ``TextTile/collectsBoxes``: the text as laid out (markup
  /// removed, see ``TextLayout/text``), which the boxes' offsets count; nil otherwise.
  public internal(set) var text: String? = nil
  /// With `TextTile.collectsBoxValues` (and an untransformed, horizontal tile): ``boxes`` as plain
  /// values, ``boxes`` then nil.
  package internal(set) var boxValues: TextBoxValues? = nil
}
