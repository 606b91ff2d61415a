import Testing

@testable import AsyncLayer

/// `ImageRenderer.clearPixel` remembers what cairo wrote for a colour: the remembered pixel must be
/// cairo's for every colour, asked once or many times, from several threads, and past the memo's bound.
@Suite("Clear pixel memo")
struct ClearPixelMemoTests {
  /// cairo's pixel for `color`, read off a fresh 1×1 image (what clearPixel did on every call).
  static func cairoPixel(_ color: Color) throws -> UInt32 {
    try ImageRenderer(size: Size(width: 1, height: 1)).render(startingWith: 0) { $0.clear(to: color) }.pixels[0]
  }

  /// Grays, primaries, translucent colours, values just inside 0…1 and out of range (cairo clamps).
  static let colors: [Color] = {
    var colors: [Color] = [.white, .black, .clear]
    for step in stride(from: 0.0, through: 1.0, by: 1.0 / 17) {
      colors.append(Color(red: step, green: step, blue: step))
      colors.append(Color(red: step, green: 1 - step, blue: 0.5, alpha: 0.25 + step / 2))
    }
    colors.append(Color(red: 0.5 / 255, green: 254.5 / 255, blue: 1e-9, alpha: 1 - 1e-9))
    colors.append(Color(red: -0.5, green: 1.5, blue: 0.3, alpha: 2))
    return colors
  }()

  @Test("remembered pixels are cairo's, first and later calls, past the bound")
  func sameAsCairo() throws {
    for round in 0..<3 {
      for color in Self.colors {
        #expect(try ImageRenderer.clearPixel(color) == Self.cairoPixel(color), "\(color), round \(round)")
      }
    }
    // More colours than the memo holds: it starts over and stays right.
    for index in 0..<200 {
      let color = Color(red: Double(index) / 199, green: 0.25, blue: Double(199 - index) / 199, alpha: 0.75)
      #expect(try ImageRenderer.clearPixel(color) == Self.cairoPixel(color))
      #expect(try ImageRenderer.clearPixel(color) == Self.cairoPixel(color))
    }
  }

  @Test("several threads asking at once get cairo's pixels")
  func concurrent() async throws {
    let expected = try Self.colors.map(Self.cairoPixel)
    try await withThrowingTaskGroup(of: [UInt32].self) { group in
      for _ in 0..<4 { group.addTask { try Self.colors.map(ImageRenderer.clearPixel) } }
      for try await pixels in group { #expect(pixels == expected) }
    }
  }
}
