import AsyncLayer
import AsyncLayerTestSupport
import Testing

/// Glyph-cluster, word and line boxes checked against the pixels drawn: each cluster is drawn alone
/// (every other character transparent, the layout otherwise the same) and its ink must lie inside
/// its box.
@Suite("Text boxes against ink")
struct TextBoxesTests {
  /// Pixels of antialiasing and hinting the ink may reach past a box.
  static let tolerance = 2.0
  /// Unequal sides, so that a box missing the left or top padding, or the scale, is found out.
  static let padding = EdgeInsets(top: 7, left: 13, bottom: 5, right: 9)

  static func tile(
    _ content: TextContent, scale: Double = 2, width: Double = 420, alignment: TextAlignment = .natural,
    fits: Bool = false
  ) -> TextTile {
    var style = TextStyle(font: "Sans 20")
    style.alignment = alignment
    var tile = TextTile(content, style: style, width: width, scale: scale, padding: padding, background: .white)
    tile.collectsBoxes = true
    tile.fitsWidth = fits
    return tile
  }

  /// The ink pixels of `image` outside `box` widened by the tolerance, and those inside it.
  static func ink(of image: RenderedImage, against box: Rect) -> (outside: Int, inside: Int) {
    var outside = 0
    var inside = 0
    for y in 0..<image.pixelHeight {
      for x in 0..<image.pixelWidth where image.isInk(x: x, y: y, background: .white) {
        let (cx, cy) = (Double(x) + 0.5, Double(y) + 0.5)
        if cx >= box.minX - tolerance, cx <= box.maxX + tolerance, cy >= box.minY - tolerance,
          cy <= box.maxY + tolerance
        {
          inside += 1
        } else {
          outside += 1
        }
      }
    }
    return (outside, inside)
  }

  /// The tile with only `range` drawn (the rest of the text transparent).
  static func alone(
    _ text: String, _ range: Range<Int>, scale: Double, alignment: TextAlignment = .natural, fits: Bool = false
  ) throws -> RenderedText {
    let attributed = AttributedText(
      text,
      spans: [
        TextSpan(utf8Range: 0..<text.utf8.count, attributes: TextAttributes(color: .clear)),
        TextSpan(utf8Range: range, attributes: TextAttributes(color: .black)),
      ])
    return try tile(.attributed(attributed), scale: scale, alignment: alignment, fits: fits).render()
  }

  @Test(
    "every visible cluster's ink lies inside its box",
    arguments: [
      ("Latin", "Quick fjord, Wyvern!", 2.0),
      ("Latin at scale 1.5", "Jaywalk fig", 1.5),
      ("Arabic (right to left)", "مرحبا بالعالم", 2.0),
      ("Devanagari (conjuncts)", "क्षत्रिय नमस्ते", 2.0),
      ("CJK", "漢字かな交じり文", 2.0),
      ("emoji", "Hi 👋🏽 🎉", 2.0),
    ])
  func clustersHoldTheirInk(name: String, text: String, scale: Double) throws {
    let whole = try Self.tile(.plain(text), scale: scale).render()
    let boxes = try #require(whole.boxes)
    #expect(whole.text == text)
    // Visual order within a line (right to left: the last character first); in text order they
    // cover the text once.
    let inTextOrder = boxes.clusters.sorted { $0.utf8Range.lowerBound < $1.utf8Range.lowerBound }
    #expect(inTextOrder.map(\.text).joined() == text, "\(name): clusters cover the text once")
    var checked = 0
    for cluster in boxes.clusters {
      guard let ink = cluster.inkFrame else { continue }
      let drawn = try Self.alone(text, cluster.utf8Range, scale: scale)
      // The colours must not have changed the layout, or the comparison means nothing.
      #expect(drawn.boxes?.clusters.map(\.frame) == boxes.clusters.map(\.frame), "\(name): layout changed")
      let counts = Self.ink(of: drawn.image, against: ink)
      #expect(counts.outside == 0, "\(name): '\(cluster.text)' has \(counts.outside) ink pixels outside \(ink)")
      #expect(counts.inside > 0, "\(name): '\(cluster.text)' drew nothing in its box \(ink)")
      checked += 1
    }
    #expect(checked >= 4, "\(name): \(checked) clusters with ink")
    // Every ink pixel of the whole tile is in some cluster's box.
    for y in 0..<whole.image.pixelHeight {
      for x in 0..<whole.image.pixelWidth where whole.image.isInk(x: x, y: y, background: .white) {
        let covered = boxes.clusters.contains { cluster in
          guard let ink = cluster.inkFrame else { return false }
          return Double(x) + 0.5 >= ink.minX - Self.tolerance && Double(x) + 0.5 <= ink.maxX + Self.tolerance
            && Double(y) + 0.5 >= ink.minY - Self.tolerance && Double(y) + 0.5 <= ink.maxY + Self.tolerance
        }
        #expect(covered, "\(name): ink at (\(x), \(y)) is in no cluster's box")
        if !covered { return }
      }
    }
  }

  @Test(
    "a tile fitted to its text (tight crop) is as wide as its lines plus padding, and its boxes hold the ink",
    arguments: [("Wyvern fjord", TextAlignment.center), ("مرحبا بالعالم", .natural), ("right edge", .right)])
  func fittedWidth(text: String, alignment: TextAlignment) throws {
    let fitted = try Self.tile(.plain(text), alignment: alignment, fits: true).render()
    let layout = try TextLayout(.plain(text), style: TextStyle(font: "Sans 20"), width: 420 - 22, scale: 2)
    let line = try #require(layout.lines.first)
    #expect(fitted.image.pixelWidth == Int(((line.frame.width + 22) * 2).rounded(.up)))
    let boxes = try #require(fitted.boxes)
    for cluster in boxes.clusters {
      guard let ink = cluster.inkFrame else { continue }
      let drawn = try Self.alone(text, cluster.utf8Range, scale: 2, alignment: alignment, fits: true)
      let counts = Self.ink(of: drawn.image, against: ink)
      #expect(counts.outside == 0 && counts.inside > 0, "'\(cluster.text)': \(counts) for \(ink)")
    }
    // The text starts at the left padding, whatever the alignment.
    let left = try #require(boxes.lines.first?.frame.minX)
    #expect(abs(left - 13 * 2) < 1e-9)
  }

  @Test("the check catches boxes that miss the padding or the scale")
  func checkCanFail() throws {
    let text = "Wyvern"
    let whole = try Self.tile(.plain(text)).render()
    let layout = try TextLayout(.plain(text), style: TextStyle(font: "Sans 20"), width: 420 - 22, scale: 2)
    let right = try #require(whole.boxes?.clusters)
    let noPadding = layout.boxes().converted(offset: Point(x: 0, y: 0), scale: 2).clusters
    let noScale = layout.boxes().converted(offset: Point(x: 13, y: 7), scale: 1).clusters
    #expect(right.count == noPadding.count && right.count == noScale.count)
    var misses = (padding: 0, scale: 0)
    for (index, cluster) in right.enumerated() {
      guard cluster.inkFrame != nil else { continue }
      let drawn = try Self.alone(text, cluster.utf8Range, scale: 2).image
      #expect(Self.ink(of: drawn, against: try #require(cluster.inkFrame)).outside == 0)
      if Self.ink(of: drawn, against: try #require(noPadding[index].inkFrame)).outside > 0 { misses.padding += 1 }
      if Self.ink(of: drawn, against: try #require(noScale[index].inkFrame)).outside > 0 { misses.scale += 1 }
    }
    #expect(misses.padding == right.count && misses.scale == right.count)
  }

  @Test("a conjunct is one cluster; words and lines carry their text and hold their clusters")
  func levels() throws {
    let layout = try TextLayout(.plain("क्ष नमस्ते"), style: TextStyle(font: "Sans 20"), width: 400)
    let clusters = layout.clusterBoxes()
    #expect(clusters.first?.text == "क्ष")
    let latin = try TextLayout(.plain("Hello, brave new world"), style: TextStyle(font: "Sans 20"), width: 130)
    let boxes = latin.boxes()
    #expect(boxes.words.map(\.text) == ["Hello", "brave", "new", "world"])
    #expect(boxes.lines.count == latin.lines.count && boxes.lines.count > 1)
    #expect(boxes.lines.map(\.text).joined() == "Hello, brave new world")
    for word in boxes.words {
      let inside = boxes.clusters.filter { word.utf8Range.contains($0.utf8Range.lowerBound) }
      #expect(inside.map(\.text).joined() == word.text)
      for cluster in inside {
        #expect(cluster.lineIndex == word.lineIndex)
        #expect(cluster.frame.minX >= word.frame.minX - 1e-9 && cluster.frame.maxX <= word.frame.maxX + 1e-9)
      }
    }
    let arabic = try TextLayout(.plain("مرحبا بالعالم"), style: TextStyle(font: "Sans 20"), width: 400)
    let words = arabic.wordBoxes()
    #expect(words.map(\.text) == ["مرحبا", "بالعالم"])
    // Right to left: the first word is on the right.
    #expect(words[0].frame.minX > words[1].frame.maxX - 0.5)
  }

  @Test("a long text laid out in pieces has boxes where its lines are drawn")
  func pieces() throws {
    let paragraph = (0..<600).map { "word\($0)" }.joined(separator: " ")
    var tile = Self.tile(.plain(paragraph + "\n" + paragraph), scale: 1, width: 300)
    tile.style.maxLines = 0
    let result = try tile.render()
    let boxes = try #require(result.boxes)
    #expect(boxes.lines.count == result.lineCount && boxes.lines.count > 20)
    // Clusters lie on their lines, and the last line's words are drawn where their boxes are.
    for cluster in boxes.clusters.suffix(200) {
      let line = boxes.lines[cluster.lineIndex]
      #expect(cluster.frame.minY >= line.frame.minY - 1e-6 && cluster.frame.maxY <= line.frame.maxY + 1e-6)
    }
    let last = try #require(boxes.words.last)
    let lastInk = try #require(last.inkFrame)
    var columns = (min: Int.max, max: Int.min)
    for y in Int(lastInk.minY)..<Int(lastInk.maxY.rounded(.up)) {
      for x in 0..<result.image.pixelWidth where result.image.isInk(x: x, y: y, background: .white) {
        columns = (min(columns.min, x), max(columns.max, x))
      }
    }
    #expect(last.text == "word599")
    #expect(Double(columns.max) + 0.5 <= lastInk.maxX + Self.tolerance)
    #expect(Double(columns.max) + 0.5 >= lastInk.maxX - Self.tolerance)
  }
}
