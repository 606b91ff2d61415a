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
    func convert(_ rect: Rect) -> Rect {
      Rect(
        x: (rect.minX + offset.x) * scale, y: (rect.minY + offset.y) * scale, width: rect.width * scale,
        height: rect.height * scale)
    }
    return TextBox(
      text: text, utf8Range: utf8Range, lineIndex: lineIndex, frame: convert(frame), inkFrame: inkFrame.map(convert))
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

  /// Every box moved by `offset`, then multiplied by `scale` (see ``TextBox/converted(offset:scale:)``).
  public func converted(offset: Point, scale: Double) -> TextBoxes {
    TextBoxes(
      clusters: clusters.map { $0.converted(offset: offset, scale: scale) },
      words: words.map { $0.converted(offset: offset, scale: scale) },
      lines: lines.map { $0.converted(offset: offset, scale: scale) })
  }
}
