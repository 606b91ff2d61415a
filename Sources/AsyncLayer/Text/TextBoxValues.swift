/// A layout's boxes as plain values: what ``TextBoxes`` holds but each box's text, which is the
/// bytes `range` of the layout's text ("…" for an ellipsis). `layerbench batch` writes its boxes
/// sidecar from these without a `TextBox` and `String` per box; ``TextLayout/boxes()`` makes its
/// `TextBox`es from the same values (`TextLayout.textBoxes(from:)`), so both give the same numbers.
package struct TextBoxValues: Sendable, Hashable {
  /// One box: ``TextBox`` without its text (and without `quad`: only untransformed, horizontal
  /// tiles give values).
  package struct Box: Sendable, Hashable {
    /// Bytes of the layout's text (``TextBox/utf8Range``).
    package var range: Range<Int>
    /// ``TextBox/lineIndex``.
    package var line: Int
    /// ``TextBox/frame``.
    package var frame: Rect
    /// ``TextBox/inkFrame``.
    package var ink: Rect?
    /// An ellipsis's cluster: its text is "…", not the bytes `range` (the text it replaces).
    package var isEllipsis: Bool

    package init(range: Range<Int>, line: Int, frame: Rect, ink: Rect?, isEllipsis: Bool) {
      self.range = range
      self.line = line
      self.frame = frame
      self.ink = ink
      self.isEllipsis = isEllipsis
    }
  }

  package var clusters: [Box]
  package var words: [Box]
  package var lines: [Box]

  package init(clusters: [Box], words: [Box], lines: [Box]) {
    self.clusters = clusters
    self.words = words
    self.lines = lines
  }
}
