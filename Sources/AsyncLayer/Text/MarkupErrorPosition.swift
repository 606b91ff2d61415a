internal import CCairo

/// Rewrites the positions in Pango's markup errors so that they point into the markup as written.
///
/// Pango parses the markup after a `<markup>` of its own and before a `</markup>`, and GLib counts
/// "char" in bytes, with a line feed as the first character of the line after it. So "line 1 char
/// 16" for `<b>x</i>` is byte 8 of the caller's first line, "line 2 char 9" is byte 8 of the second,
/// and an error inside Pango's closing `</markup>` (an element left open) is past the end of the
/// caller's text. Positions become 1-based characters (grapheme clusters) of the caller's line.
enum MarkupErrorPosition {
  /// The bytes Pango puts before the first line, measured once: `<b>x</i>` fails at byte 8.
  static let prefixBytes: Int = {
    var error: UnsafeMutablePointer<GError>?
    guard pango_parse_markup("<b>x</i>", -1, 0, nil, nil, nil, &error) == 0, let error else { return 8 }
    defer { g_error_free(error) }
    guard let (line, char) = position(in: String(cString: error.pointee.message)), line == 1 else { return 8 }
    return char - 8
  }()

  /// `message` with its "line L char C" pointing into `markup` (the markup Pango parsed).
  static func rewrite(_ message: String, markup: String) -> String {
    guard let match = message.firstMatch(of: /line (\d+) char (\d+)/), let line = Int(match.1), let char = Int(match.2)
    else { return message }
    let lines = markup.utf8.split(separator: 0x0a, omittingEmptySubsequences: false)
    guard line >= 1, line <= lines.count else { return message }
    let text = Substring(lines[line - 1])
    // The 1-based byte of the line where GLib stopped.
    let byte = line == 1 ? char - prefixBytes : char - 1
    guard byte >= 1 else { return message }
    var detail = message[match.range.upperBound...].drop { $0 == ":" || $0 == " " }
    if byte > text.utf8.count {
      // Inside Pango's own "</markup>": the caller's markup ended too early.
      let end = "line \(line) char \(text.count + 1)"
      let reason =
        if let open = detail.firstMatch(
          of: /Element [“"]markup[”"] was closed, but the currently open element is [“"](.+?)[”"]/)
        {
          "element “\(open.1)” is not closed"
        } else {
          "the markup ends inside an unfinished tag or entity"
        }
      return "Error at the end of the markup (\(end)): \(reason)"
    }
    var column = 0
    var consumed = 0
    for character in text {
      column += 1
      consumed += character.utf8.count
      if consumed >= byte { break }
    }
    if let closed = detail.firstMatch(
      of: /Element [“"](.+?)[”"] was closed, but the currently open element is [“"]markup[”"]/)
    {
      detail = "Element “\(closed.1)” was closed, but no element is open"
    }
    let after = message[match.range.upperBound...]
    // GLib's "Error on line L char C: what"; Pango's own messages end with "on line L char C".
    return message[..<match.range.lowerBound] + "line \(line) char \(column)"
      + (after.hasPrefix(":") ? ": " + detail : after)
  }

  /// The first "line L char C" of a GLib or Pango message.
  private static func position(in message: String) -> (Int, Int)? {
    guard let match = message.firstMatch(of: /line (\d+) char (\d+)/), let line = Int(match.1), let char = Int(match.2)
    else { return nil }
    return (line, char)
  }
}
