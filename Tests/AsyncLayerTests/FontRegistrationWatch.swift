import Synchronization

@testable import AsyncLayer

/// Notices fonts registered while a test runs.
///
/// Suites run in parallel, and a test that registers a font (``FontFiles``) gives every thread a new
/// font map at its next layout. Everything drawn stays correct, but what a test counts may change: a
/// banded layer's keys include the font generation, so it redraws every line, and the glyph compositor
/// meets new font objects with no glyphs yet. Tests read the generation at their start and assert such
/// counts only when ``fontsUnchanged`` still holds at their end; pixels are compared either way.
///
/// ```swift
/// let fonts = FontRegistrationWatch()
/// let redrawn = try drawAgain()
/// if fonts.fontsUnchanged { #expect(redrawn == 1) }
/// ```
struct FontRegistrationWatch {
  /// The generation when the watch was made.
  let start = FontFiles.generation.load(ordering: .acquiring)

  /// Whether no font was registered since the watch was made.
  var fontsUnchanged: Bool { FontFiles.generation.load(ordering: .acquiring) == start }
}
