import AsyncLayerTestSupport
import Foundation
import Testing

@_spi(Benchmarks) @testable import AsyncLayer

/// TextTile's gray path (one byte per pixel for black or white text on an opaque gray background)
/// against the ARGB32 path it replaces: the same pixels for every colour combination, scale and
/// script, overlapping glyphs included; the gray path taken exactly where it can be exact; the same
/// PNG files; and the cancellation rule kept.
@Suite struct TextTileGrayTests {
  static let latin = "Cancellation matters: a tile nobody will see again should stop drawing at once, 1234567890."
  /// Kerning pairs, combining marks stacked on one base, Arabic joining and marks, Devanagari
  /// conjuncts, Thai marks: glyphs whose ink meets.
  static let overlapping = [
    "AVAWAYTo Ty fj ff.", "a\u{0301}\u{0323}\u{0308} Z\u{0334}\u{0321}a\u{0338}\u{0316}l\u{0337}g\u{0335}o",
    "مُحَمَّدٌ لا ﷺ", "क्षत्रिय", "สวัสดีครับ",
  ]

  static let foregrounds: [(String, Color)] = [
    ("black", .black), ("white", .white), ("gray", Color(red: 0.3, green: 0.3, blue: 0.3)), ("red", .red),
    ("half-transparent black", Color(red: 0, green: 0, blue: 0, alpha: 0.5)),
  ]
  static let backgrounds: [(String, Color?)] = [
    ("white", .white), ("black", .black), ("light gray", .lightGray),
    ("gray 0.5", Color(red: 0.5, green: 0.5, blue: 0.5)), ("gray 0.13", Color(red: 0.13, green: 0.13, blue: 0.13)),
    ("light blue", Color(red: 0.8, green: 0.9, blue: 1)),
    ("half-transparent white", Color(red: 1, green: 1, blue: 1, alpha: 0.5)), ("transparent", nil),
  ]

  /// Renders `tile` both ways; expects the same pixels and the same PNG file; returns whether the
  /// gray path took it, and whether the glyph compositor declined the layout on the way (then
  /// the tile is drawn in ARGB32 whatever its colours).
  @discardableResult
  static func compare(_ tile: TextTile, _ label: String) throws -> (took: Bool, declined: Bool) {
    var argbTile = tile
    argbTile.drawsGray = false
    let compositor = PangoThreadState.current.glyphCompositor
    let declinedBefore = compositor.layoutsDeclined
    let gray = try tile.render()
    let declined = compositor.layoutsDeclined > declinedBefore
    let argb = try argbTile.render()
    #expect(argb.image.gray == nil, "\(label)")
    #expect(gray.image.pixelWidth == argb.image.pixelWidth && gray.image.pixelHeight == argb.image.pixelHeight)
    #expect(
      gray.image.pixels == argb.image.pixels, "\(label): \(differingPixels(gray.image, argb.image)) pixels differ")
    #expect(gray.image == argb.image, "\(label)")
    #expect(gray.linesDrawn == argb.linesDrawn && gray.lineCount == argb.lineCount, "\(label)")
    if gray.image.gray != nil {
      // The PNG of the gray bytes is the file the ARGB32 pixels give, and decodes to them.
      let encoder = PNGEncoder()
      let file = try encoder.encode(gray.image)
      #expect(file == (try encoder.encode(argb.image)), "PNG, \(label)")
      #expect(try RenderedImage(pngData: file).pixels == argb.image.pixels, "decoded PNG, \(label)")
    }
    return (gray.image.gray != nil, declined)
  }

  static func differingPixels(_ a: RenderedImage, _ b: RenderedImage) -> Int {
    guard a.pixels.count == b.pixels.count else { return -1 }
    return zip(a.pixels, b.pixels).reduce(0) { $0 + ($1.0 != $1.1 ? 1 : 0) }
  }

  static func tile(_ text: String, foreground: Color, background: Color?, scale: Double, markup: Bool = false)
    -> TextTile
  {
    var style = TextStyle(font: "Sans 14")
    style.color = foreground
    return TextTile(
      markup ? .markup(text) : .plain(text), style: style, width: 300, height: 110, scale: scale,
      padding: EdgeInsets(all: 8), background: background)
  }

  @Test(
    "same pixels as ARGB32 for every colour combination; gray only for black or white on opaque gray",
    arguments: [0.5, 1, 1.5, 2, 3])
  func colourCombinations(scale: Double) throws {
    var grayTiles = 0
    for text in [Self.latin] + Self.overlapping {
      for (foregroundName, foreground) in Self.foregrounds {
        for (backgroundName, background) in Self.backgrounds {
          let label = "\(text): \(foregroundName) on \(backgroundName) at scale \(scale)"
          let (took, declined) = try Self.compare(
            Self.tile(text, foreground: foreground, background: background, scale: scale), label)
          let blackOrWhite = foregroundName == "black" || foregroundName == "white"
          let opaqueGray = ["white", "black", "light gray", "gray 0.5", "gray 0.13"].contains(backgroundName)
          #expect(took == (blackOrWhite && opaqueGray && !declined), "gray path taken: \(took), \(label)")
          if took { grayTiles += 1 }
        }
      }
    }
    // Each text that the compositor takes is drawn in gray for its 10 colour pairs; at least five
    // of the six texts are (2026-11-26: one of the segments was declined, each tile checked above).
    #expect(grayTiles >= 10 * Self.overlapping.count)
  }

  @Test("same pixels for every script sample, black and white, at scales 1–3", arguments: [1.0, 2.0, 3.0])
  func scripts(scale: Double) throws {
    var declinedSamples: Set<String> = []
    for sample in ScriptSample.all {
      for (foreground, background) in [(Color.black, Color.white), (.white, Color(red: 0.2, green: 0.2, blue: 0.2))] {
        let (took, declined) = try Self.compare(
          Self.tile(sample.text, foreground: foreground, background: background, scale: scale),
          "\(sample.name) at scale \(scale)")
        #expect(took != declined, "\(sample.name): gray path taken \(took), compositor declined \(declined)")
        if declined { declinedSamples.insert(sample.name) }
      }
    }
    // Only samples the compositor leaves to cairo (colour emoji) are drawn in ARGB32.
    #expect(declinedSamples.count <= 1, "declined: \(declinedSamples.sorted())")
  }

  @Test("glyphs drawn over each other (negative letter spacing) go through a run mask, same pixels")
  func overlappingRuns() throws {
    let compositor = PangoThreadState.current.glyphCompositor
    let maskedBefore = compositor.runsMasked
    for spacing in [-4096, -2048, -1024] {
      for scale in [1.0, 2.0, 2.5] {
        let text = "<span letter_spacing=\"\(spacing)\">Overlapping glyphs: WAVE mmm ooo ffi 1234</span>"
        for (foreground, background) in [(Color.black, Color.white), (.white, .black), (.black, .lightGray)] {
          let (took, _) = try Self.compare(
            Self.tile(text, foreground: foreground, background: background, scale: scale, markup: true),
            "letter spacing \(spacing) at scale \(scale)")
          #expect(took)
        }
      }
    }
    // The mask path was exercised (both ways of each tile count).
    #expect(compositor.runsMasked > maskedBefore)
  }

  @Test("what the gray path cannot draw exactly is drawn in ARGB32: colour emoji, underlines, text backgrounds")
  func fallbacks() throws {
    let cases: [(String, Bool, String)] = [
      ("Party 🎉 time 😀", false, "colour emoji"),
      ("<u>underlined</u> and <s>struck</s>", true, "underline and strikethrough"),
      ("<span background=\"#808080\">marked</span> text", true, "span background"),
      ("<span foreground=\"#ff0000\">red</span> word", true, "span colour"),
    ]
    for (text, markup, label) in cases {
      let (took, _) = try Self.compare(
        Self.tile(text, foreground: .black, background: .white, scale: 2, markup: markup), label)
      #expect(!took, "\(label) took the gray path")
    }
    var style = TextStyle(font: "Sans 14")
    style.backgroundColor = .lightGray
    let withTextBackground = TextTile(.plain("text background"), style: style, width: 200, scale: 2, background: .white)
    #expect(!(try Self.compare(withTextBackground, "text background")).took)
  }

  @Test("a gray tile's pixel access, colour, opacity and equality match its ARGB32 twin")
  func pixelAccess() throws {
    let tile = Self.tile(Self.latin, foreground: .black, background: .lightGray, scale: 1)
    var argbTile = tile
    argbTile.drawsGray = false
    let gray = try tile.render().image
    let argb = try argbTile.render().image
    #expect(gray.gray != nil)
    for y in stride(from: 0, to: gray.pixelHeight, by: 7) {
      for x in stride(from: 0, to: gray.pixelWidth, by: 5) {
        #expect(gray.pixel(x: x, y: y) == argb.pixel(x: x, y: y))
        #expect(gray.color(x: x, y: y) == argb.color(x: x, y: y))
      }
    }
    #expect(gray.isFullyOpaque && argb.isFullyOpaque)
    #expect(gray.hashValue == argb.hashValue)
    // A gray image is no buffer to draw over: the recycler hands it back.
    #expect(PixelRecycler().keep(gray) != nil)
  }

  @Test("a cancelled gray draw throws, whenever the cancellation comes; it never returns part of a tile")
  func cancellation() throws {
    let tile = Self.tile(Self.latin + " " + Self.latin, foreground: .black, background: .white, scale: 2)
    let full = try tile.render().image
    #expect(full.gray != nil)
    var completed = 0
    for cancelAt in 1...12 {
      let calls = Counter()
      do {
        let result = try tile.render(isCancelled: { calls.next() >= cancelAt })
        #expect(result.image == full, "cancel at check \(cancelAt)")
        completed += 1
      } catch is CancellationError {
      }
    }
    // The first check always cancels.
    #expect(completed < 12)
  }

  /// Counts calls (the isCancelled closure must be escaping; tests run it on one thread).
  final class Counter: @unchecked Sendable {  // one thread: the render that calls it
    var count = 0
    func next() -> Int {
      count += 1
      return count
    }
  }
}
