@_spi(Benchmarks) import AsyncLayer
import AsyncLayerTestSupport
import Testing

/// Vertical text, stroke and transforms of ``TextTile``: the boxes go through the same map as the
/// drawing, checked against the pixels drawn (each cluster drawn alone, its ink inside its quad).
@Suite("Text tiles: vertical, stroke, transforms")
struct TextTileLayoutTests {
  /// Pixels of antialiasing and hinting the ink may reach past a box.
  static let tolerance = 2.0
  static let padding = EdgeInsets(top: 7, left: 13, bottom: 5, right: 9)

  /// How a tile is drawn in a case.
  enum Layout: String, CaseIterable, CustomStringConvertible {
    case rotated, skewed, rotatedScaled, vertical, verticalUpright, stroked
    var description: String { rawValue }

    func apply(to tile: inout TextTile) {
      switch self {
      case .rotated: tile.transform = TileTransform(rotation: 17)
      case .skewed: tile.transform = TileTransform(skewX: 20)
      case .rotatedScaled: tile.transform = TileTransform(rotation: -30, skewX: -10, scaleX: 1.3, scaleY: 0.8)
      case .vertical: tile.style.orientation = .vertical
      case .verticalUpright: tile.style.orientation = .verticalUpright
      case .stroked: tile.stroke = TextStroke(width: 3, color: .black)
      }
    }
  }

  static func tile(_ content: TextContent, _ layout: Layout, scale: Double = 2) -> TextTile {
    var tile = TextTile(
      content, style: TextStyle(font: "Sans 20"), width: 300, scale: scale, padding: padding, background: .white)
    tile.collectsBoxes = true
    layout.apply(to: &tile)
    return tile
  }

  /// Whether the pixel centre (`x`, `y`) lies in the convex quad (clockwise in the image) widened by
  /// the tolerance.
  static func contains(_ quad: [Point], x: Int, y: Int) -> Bool {
    let (px, py) = (Double(x) + 0.5, Double(y) + 0.5)
    for index in 0..<4 {
      let a = quad[index]
      let b = quad[(index + 1) % 4]
      let (ex, ey) = (b.x - a.x, b.y - a.y)
      let length = (ex * ex + ey * ey).squareRoot()
      guard length > 0 else { continue }
      // Clockwise in y-down coordinates: the inside is where the cross product is positive.
      let distance = (ex * (py - a.y) - ey * (px - a.x)) / length
      if distance < -tolerance { return false }
    }
    return true
  }

  /// Ink pixels of `image` outside `quad` (widened by the tolerance) and inside it.
  static func ink(of image: RenderedImage, against quad: [Point]) -> (outside: Int, inside: Int) {
    var counts = (outside: 0, inside: 0)
    for y in 0..<image.pixelHeight {
      for x in 0..<image.pixelWidth where image.isInk(x: x, y: y, background: .white) {
        if contains(quad, x: x, y: y) { counts.inside += 1 } else { counts.outside += 1 }
      }
    }
    return counts
  }

  /// The tile with only `range` drawn (the rest of the text transparent, the layout the same).
  static func alone(_ text: String, _ range: Range<Int>, _ layout: Layout) throws -> RenderedText {
    let attributed = AttributedText(
      text,
      spans: [
        TextSpan(utf8Range: 0..<text.utf8.count, attributes: TextAttributes(color: .clear)),
        TextSpan(utf8Range: range, attributes: TextAttributes(color: .black)),
      ])
    return try tile(.attributed(attributed), layout).render()
  }

  static let scripts = [
    ("Latin", "Quick fjord, Wyvern!"),
    ("Arabic", "مرحبا بالعالم"),
    ("Devanagari", "क्षत्रिय नमस्ते"),
    ("CJK", "漢字かな交じり文"),
    ("emoji", "Hi 👋🏽 🎉"),
  ]

  /// Every script under every layout but the stroke (its outline ignores the spans' colours, so
  /// clusters cannot be drawn alone: see `strokeGrowsTheInkBoxes`).
  static let cases: [(String, String, Layout)] = scripts.flatMap { name, text in
    [Layout.rotated, .skewed, .rotatedScaled, .vertical, .verticalUpright].map { (name, text, $0) }
  }

  @Test("every visible cluster's ink lies inside its transformed box", arguments: cases)
  func clustersHoldTheirInk(name: String, text: String, layout: Layout) throws {
    let whole = try Self.tile(.plain(text), layout).render()
    let boxes = try #require(whole.boxes)
    var checked = 0
    for cluster in boxes.clusters {
      guard let quad = cluster.inkQuad, let ink = cluster.inkFrame else { continue }
      // The frame is the quad's bound.
      #expect(quad.allSatisfy { $0.x >= ink.minX - 1e-9 && $0.x <= ink.maxX + 1e-9 })
      let drawn = try Self.alone(text, cluster.utf8Range, layout)
      #expect(drawn.boxes?.clusters.map(\.quad) == boxes.clusters.map(\.quad), "\(name) \(layout): layout changed")
      let counts = Self.ink(of: drawn.image, against: quad)
      #expect(
        counts.outside == 0, "\(name) \(layout): '\(cluster.text)' has \(counts.outside) ink pixels outside \(quad)")
      #expect(counts.inside > 0, "\(name) \(layout): '\(cluster.text)' drew nothing in \(quad)")
      checked += 1
    }
    #expect(checked >= 4, "\(name) \(layout): \(checked) clusters with ink")
    // Every ink pixel of the whole tile is in some cluster's quad.
    var uncovered = 0
    for y in 0..<whole.image.pixelHeight {
      for x in 0..<whole.image.pixelWidth where whole.image.isInk(x: x, y: y, background: .white) {
        if !boxes.clusters.contains(where: { $0.inkQuad.map { Self.contains($0, x: x, y: y) } ?? false }) {
          uncovered += 1
        }
      }
    }
    #expect(uncovered == 0, "\(name) \(layout): \(uncovered) ink pixels in no cluster's quad")
    // Lines and words go through the same map: each cluster's quad centre lies in its line's quad.
    for cluster in boxes.clusters {
      let quad = try #require(cluster.quad)
      let line = try #require(boxes.lines[cluster.lineIndex].quad)
      let centre = Point(x: quad.map(\.x).reduce(0, +) / 4, y: quad.map(\.y).reduce(0, +) / 4)
      #expect(Self.contains(line, x: Int(centre.x.rounded(.down)), y: Int(centre.y.rounded(.down))))
    }
  }

  @Test(
    "a stroke grows the tile and the ink boxes by its half-width, and every ink pixel is in a cluster's box",
    arguments: scripts)
  func strokeGrowsTheInkBoxes(name: String, text: String) throws {
    var unstroked = Self.tile(.plain(text), .stroked)
    unstroked.stroke = nil
    let without = try unstroked.render()
    let stroked = try Self.tile(.plain(text), .stroked).render()
    // 3 points of stroke, 1.5 on each side, at scale 2: 6 pixels more each way.
    #expect(stroked.image.pixelWidth == without.image.pixelWidth + 6)
    #expect(stroked.image.pixelHeight == without.image.pixelHeight + 6)
    let boxes = try #require(stroked.boxes)
    var uncovered = 0
    var outsideUngrown = 0
    for y in 0..<stroked.image.pixelHeight {
      for x in 0..<stroked.image.pixelWidth where stroked.image.isInk(x: x, y: y, background: .white) {
        let inks = boxes.clusters.compactMap(\.inkQuad)
        if !inks.contains(where: { Self.contains($0, x: x, y: y) }) { uncovered += 1 }
        // The same boxes without the growth (3 pixels in on each side) miss the outline's outer edge.
        let shrunk = inks.map { quad in
          [
            Point(x: quad[0].x + 3, y: quad[0].y + 3), Point(x: quad[1].x - 3, y: quad[1].y + 3),
            Point(x: quad[2].x - 3, y: quad[2].y - 3), Point(x: quad[3].x + 3, y: quad[3].y - 3),
          ]
        }
        if !shrunk.contains(where: { Self.contains($0, x: x, y: y) }) { outsideUngrown += 1 }
      }
    }
    #expect(uncovered == 0, "\(name): \(uncovered) stroked ink pixels in no cluster's box")
    #expect(outsideUngrown > 0, "\(name): the check would pass without the growth")
    // The stroke draws more ink than the glyphs alone.
    #expect(stroked.image.inkPixelCount(background: .white) > without.image.inkPixelCount(background: .white))
  }

  @Test("a hollow stroke leaves the glyphs' insides unpainted")
  func hollowStroke() throws {
    var tile = TextTile(.plain("■"), style: TextStyle(font: "DejaVu Sans 60"), width: 120, background: .white)
    tile.stroke = TextStroke(width: 2, color: .black, fills: false)
    let hollow = try tile.render().image
    tile.stroke?.fills = true
    let filled = try tile.render().image
    #expect(hollow.inkPixelCount(background: .white) * 3 < filled.inkPixelCount(background: .white))
  }

  @Test("vertical text: the width is the column's length; CJK runs down, columns right to left")
  func verticalRoles() throws {
    var style = TextStyle(font: "Sans 20")
    style.orientation = .vertical
    let tile = TextTile(.plain("漢字\n仮名"), style: style, width: 200, scale: 2, background: .white)
    let result = try tile.render()
    #expect(result.image.pixelHeight == 400)
    #expect(result.image.pixelWidth < result.image.pixelHeight)
    let layout = try TextLayout(.plain("漢字\n仮名"), style: style, width: 200, scale: 2)
    #expect(result.image.pixelWidth == Int((layout.size.height * 2 - 1e-6).rounded(.up)))
    var boxed = tile
    boxed.collectsBoxes = true
    let boxes = try #require(try boxed.render().boxes)
    let clusters = boxes.clusters
    #expect(clusters.map(\.text) == ["漢", "字", "仮", "名"])
    // Down the first column, then the second column to its left.
    #expect(clusters[1].frame.minY > clusters[0].frame.minY + 10)
    #expect(abs(clusters[1].frame.midX - clusters[0].frame.midX) < 1)
    #expect(clusters[2].frame.maxX <= clusters[0].frame.minX + 1)
    // Upright CJK: the ink is about as tall as wide; a Latin word is turned: taller than wide.
    let ink = try #require(clusters[0].inkFrame)
    #expect(abs(ink.width - ink.height) < ink.width * 0.4)
    var latin = TextTile(.plain("Wyvern"), style: style, width: 300, scale: 2, background: .white)
    latin.collectsBoxes = true
    let word = try #require(try latin.render().boxes?.words.first?.inkFrame)
    #expect(word.height > 2 * word.width)
  }

  @Test("a full turn draws what no transform draws, and a quarter turn the image turned")
  func turns() throws {
    var tile = TextTile(
      .plain("Wyvern 漢字"), style: TextStyle(font: "Sans 20"), width: 200, scale: 2, background: .white)
    tile.glyphCompositing = .cairo
    tile.drawsGray = false
    let straight = try tile.render().image
    tile.transform = TileTransform(rotation: 360)
    let full = try tile.render().image
    #expect(full.pixelWidth == straight.pixelWidth && full.pixelHeight == straight.pixelHeight)
    #expect(Self.meanDifference(full, straight) { ($0, $1) } < 0.002)
    tile.transform = TileTransform(rotation: 90)  // counter-clockwise
    let quarter = try tile.render().image
    #expect(quarter.pixelWidth == straight.pixelHeight && quarter.pixelHeight == straight.pixelWidth)
    // The straight image's (x, y) lands at (y, width - 1 - x) once turned counter-clockwise.
    let difference = Self.meanDifference(quarter, straight) { x, y in (straight.pixelWidth - 1 - y, x) }
    #expect(difference < 0.02, "mean difference \(difference)")
    // And the check can fail: a clockwise turn is not it.
    #expect(Self.meanDifference(quarter, straight) { x, y in (y, straight.pixelHeight - 1 - x) } > 0.02)
  }

  /// The mean difference of the red channel between `a` and `b` read at `position(x, y)` of `a`.
  static func meanDifference(
    _ a: RenderedImage, _ b: RenderedImage, _ position: (Int, Int) -> (Int, Int)
  ) -> Double {
    var total = 0.0
    for y in 0..<a.pixelHeight {
      for x in 0..<a.pixelWidth {
        let (bx, by) = position(x, y)
        guard bx >= 0, by >= 0, bx < b.pixelWidth, by < b.pixelHeight else { return 1 }
        total += abs(a.color(x: x, y: y).red - b.color(x: bx, y: by).red)
      }
    }
    return total / Double(a.pixelWidth * a.pixelHeight)
  }

  @Test(
    "hostile numbers are refused with the option's name before anything is drawn",
    arguments: [
      (TileTransform(rotation: .nan), nil, "rotation"), (TileTransform(rotation: 1e300), nil, "rotation"),
      (TileTransform(rotation: -.infinity), nil, "rotation"), (TileTransform(skewX: 89), nil, "skew"),
      (TileTransform(skewX: .nan), nil, "skew"), (TileTransform(scaleX: 0), nil, "scale x"),
      (TileTransform(scaleY: .infinity), nil, "scale y"), (TileTransform(scaleX: -1), nil, "scale x"),
      (.identity, TextStroke(width: -1), "stroke width"), (.identity, TextStroke(width: .nan), "stroke width"),
      (.identity, TextStroke(width: 1e300), "stroke width"), (.identity, TextStroke(width: 0), "stroke width"),
    ] as [(TileTransform, TextStroke?, String)])
  func hostileNumbers(transform: TileTransform, stroke: TextStroke?, name: String) {
    var tile = TextTile(.plain("x"), width: 100, background: .white)
    tile.transform = transform
    tile.stroke = stroke
    // A cap of 0 bytes: had the render got as far as allocating pixels, it would fail on the cap.
    tile.memoryCap = 0
    #expect {
      try tile.render()
    } throws: { error in
      guard case .invalidValue(let named, _, _) = error as? RenderError else { return false }
      return named == name
    }
  }

  @Test("a transform that would make the image too large is refused before its pixels")
  func tooLarge() {
    var tile = TextTile(.plain("x"), width: 3000, height: 3000, scale: 4, background: .white)
    tile.transform = TileTransform(rotation: 45, scaleX: 10, scaleY: 10)
    #expect(throws: RenderError.self) { try tile.render() }
  }

  @Test("a cancelled render of a transformed tile throws CancellationError")
  func cancellation() {
    var tile = Self.tile(.plain("Wyvern"), .rotated)
    tile.stroke = TextStroke(width: 1)
    #expect(throws: CancellationError.self) { try tile.render(isCancelled: { true }) }
  }
}
