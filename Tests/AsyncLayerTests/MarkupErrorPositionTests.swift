import AsyncLayer
import Testing

/// Pango parses markup inside a "<markup>" element of its own and counts bytes; the errors the
/// library reports point at the line and character of the markup the caller wrote.
@Suite("Markup error positions")
struct MarkupErrorPositionTests {
  static func message(_ markup: String) -> String? {
    do {
      _ = try TextLayout(.markup(markup), style: TextStyle(), width: 200)
      return nil
    } catch RenderError.invalidMarkup(let message) {
      return message
    } catch {
      return "unexpected \(error)"
    }
  }

  @Test(
    "a mismatched closing tag is reported at its own line and character",
    arguments: [
      // The error is at the ">" ending "</i>".
      ("<b>x</i>", "line 1 char 8:"),
      ("ab\n<b>x</i>", "line 2 char 8:"),
      ("first line\nsecond\n  é<b>x</i> tail", "line 3 char 11:"),  // characters, not bytes
      ("ab\u{0}c\n<b>x</i>", "line 2 char 8:"),  // after a NUL (drawn as U+FFFD)
      ("é<i>x</b>", "line 1 char 9:"),
    ])
  func mismatchedTag(markup: String, position: String) throws {
    let message = try #require(Self.message(markup))
    #expect(message.contains(position), "\(message)")
    #expect(message.contains("Element “i” was closed") || message.contains("Element “b” was closed"))
  }

  @Test("an element left open is reported at the end of the markup, without Pango's own <markup>")
  func unclosedElement() throws {
    let message = try #require(Self.message("first line\nsecond <b>bold"))
    #expect(message.contains("end of the markup (line 2 char 15)"), "\(message)")
    #expect(message.contains("“b” is not closed"), "\(message)")
    #expect(!message.contains("markup”"), "\(message)")

    let stray = try #require(Self.message("x\nyz</b>"))
    #expect(stray.contains("line 2 char 6:"), "\(stray)")
    #expect(stray.contains("Element “b” was closed, but no element is open"), "\(stray)")

    let unfinished = try #require(Self.message("a\n<b"))
    #expect(unfinished.contains("end of the markup (line 2 char 3)"), "\(unfinished)")
  }

  @Test("Pango's own messages (unknown tags and attributes) point into the caller's markup too")
  func pangoMessages() throws {
    let tag = try #require(Self.message("<nosuchtag>z</nosuchtag>"))
    #expect(tag.contains("Unknown tag 'nosuchtag' on line 1 char 12"), "\(tag)")
    let attribute = try #require(Self.message("x\n<span foo=\"1\">y</span>"))
    #expect(attribute.contains("on line 2 char 15"), "\(attribute)")
  }
}
