/// A box around part of a layout's text: one glyph cluster, one word (or the part of it on one line),
/// or one line.
///
/// `frame` is the logical box: the cluster's advance by its line's height, what a caret or a
/// selection uses; neighbouring clusters' frames touch and do not overlap. `inkFrame` is the box of
/// the drawn pixels, which can reach past the frame (an italic overhang, a mark above the line) and
/// is nil where nothing is drawn (a space). Detection models usually train on ink boxes, recognition
/// crops on frames.
///
/// ```swift
/// let layout = try TextLayout(.plain("नमस्ते"), style: TextStyle(), width: 300)
/// for box in layout.clusterBoxes() { print(box.text, box.utf8Range, box.frame) }  // "न", "म", "स्ते"…
/// ```
public struct TextBox: Sendable, Hashable {
  /// The text the box covers, as laid out (markup removed). An ellipsis's cluster is "…".
  public let text: String
  /// Where the text lies in ``TextLayout/text``, as UTF-8 byte offsets.
  public let utf8Range: Range<Int>
  /// The index of the line among ``TextLayout/lines``.
  public let lineIndex: Int
  /// The logical box: the advance by the line's height.
  public let frame: Rect
  /// The box of the drawn pixels, or nil when nothing is drawn.
  public let inkFrame: Rect?
  /// In a tile drawn vertically or through a ``TileTransform``: ``frame``'s four corners in the
  /// image, in the text's own order (its top-left, top-right, bottom-right and bottom-left:
  /// clockwise in the image, ICDAR's order), of which ``frame`` is then the axis-aligned bound.
  /// nil for a horizontal, untransformed tile, where ``frame`` is the box itself.
  public internal(set) var quad: [Point]? = nil
  /// ``inkFrame``'s four corners, as ``quad`` is ``frame``'s.
  public internal(set) var inkQuad: [Point]? = nil

  /// A box; the library makes them (``TextLayout/clusterBoxes()``), tests and callers may too.
  public init(text: String, utf8Range: Range<Int>, lineIndex: Int, frame: Rect, inkFrame: Rect?) {
    self.text = text
    self.utf8Range = utf8Range
    self.lineIndex = lineIndex
    self.frame = frame
    self.inkFrame = inkFrame
  }

  /// The box with its rectangles moved by `offset` then multiplied by `scale`: from a layout's
  /// points to a tile's device pixels, `offset` being the padding.
  public func converted(offset: Point, scale: Double) -> TextBox {
    let conversion = Conversion(offset: offset, scale: scale)
    return TextBox(
      text: text, utf8Range: utf8Range, lineIndex: lineIndex, frame: conversion.apply(frame),
      inkFrame: inkFrame.map(conversion.apply))
  }

  /// The map of ``converted(offset:scale:)``: one formula for it and for the boxes a tile makes
  /// already converted (`TextLayout.boxes(converting:)`), so that both give the same values.
  struct Conversion {
    var offset: Point
    var scale: Double

    func apply(_ rect: Rect) -> Rect {
      Rect(
        x: (rect.minX + offset.x) * scale, y: (rect.minY + offset.y) * scale, width: rect.width * scale,
        height: rect.height * scale)
    }
  }
}

extension TextBox {
  /// The box through `map` (from a layout's points to an image's pixels): the frames become the
  /// bounds of their mapped corners, which ``quad`` and ``inkQuad`` keep; the ink box first grows
  /// by `inkOutset` on every side (a stroke's half-width).
  func mapped(by map: AffineMap, inkOutset: Double) -> TextBox {
    let frameQuad = map.corners(of: frame)
    let grownInk = inkFrame.map {
      Rect(
        x: $0.minX - inkOutset, y: $0.minY - inkOutset, width: $0.width + 2 * inkOutset,
        height: $0.height + 2 * inkOutset)
    }
    let inkCorners = grownInk.map { map.corners(of: $0) }
    var box = TextBox(
      text: text, utf8Range: utf8Range, lineIndex: lineIndex, frame: AffineMap.bound(of: frameQuad),
      inkFrame: inkCorners.map { AffineMap.bound(of: $0) })
    box.quad = frameQuad
    box.inkQuad = inkCorners
    return box
  }
}

/// The boxes of a layout's shown text at three levels, in one coordinate space: points from the
/// layout's top-left corner (``TextLayout/boxes()``), or a tile's device pixels
/// (``RenderedText/boxes``, with padding and scale applied).
///
/// ```swift
/// var tile = TextTile(.plain("Hello, world"), style: TextStyle(font: "Sans 14"), width: 300, scale: 2)
/// tile.collectsBoxes = true
/// let result = try tile.render()
/// for word in result.boxes?.words ?? [] { print(word.text, word.inkFrame ?? word.frame) }  // pixels
/// ```
public struct TextBoxes: Sendable, Hashable {
  /// One box per glyph cluster (the smallest unit a shaper keeps together: a letter with its
  /// marks, a conjunct, a ligature, an emoji sequence), in visual order within each line.
  public let clusters: [TextBox]
  /// One box per word (Pango's word boundaries) and line: a word broken across lines has a box on
  /// each. Spaces and punctuation between words are in no word.
  public let words: [TextBox]
  /// One box per shown line.
  public let lines: [TextBox]

  /// Boxes at the three levels.
  public init(clusters: [TextBox], words: [TextBox], lines: [TextBox]) {
    self.clusters = clusters
    self.words = words
    self.lines = lines
  }

  /// Every box through `map` (see ``TextBox/mapped(by:inkOutset:)``).
  func mapped(by map: AffineMap, inkOutset: Double) -> TextBoxes {
    TextBoxes(
      clusters: clusters.map { $0.mapped(by: map, inkOutset: inkOutset) },
      words: words.map { $0.mapped(by: map, inkOutset: inkOutset) },
      lines: lines.map { $0.mapped(by: map, inkOutset: inkOutset) })
  }

  /// Every box moved by `offset`, then multiplied by `scale` (see ``TextBox/converted(offset:scale:)``).
  public func converted(offset: Point, scale: Double) -> TextBoxes {
    TextBoxes(
      clusters: clusters.map { $0.converted(offset: offset, scale: scale) },
      words: words.map { $0.converted(offset: offset, scale: scale) },
      lines: lines.map { $0.converted(offset: offset, scale: scale) })
  }
}
