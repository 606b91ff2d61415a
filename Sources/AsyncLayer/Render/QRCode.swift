internal import CCairo

/// A QR code: `text` encoded by libqrencode into a square of dark and light modules.
///
/// The modules are computed once, here; drawing (``DrawingContext/draw(_:in:color:)``) fills
/// all dark modules as one path, so PDF and SVG output hold one vector shape, not one object per
/// module.
///
/// ```swift
/// let code = try QRCode("https://example.com/ticket/1234", errorCorrection: .quartile)
/// code.moduleCount          // 33: modules per side, without the quiet zone
/// code.isDark(row: 0, column: 0)  // true: the top-left finder pattern
/// ```
public struct QRCode: Sendable, Hashable {
  /// How much of the code can be damaged and still read (QR's four levels).
  public enum ErrorCorrection: String, Sendable, Hashable, CaseIterable {
    /// About 7 % of the code can be restored.
    case low = "L"
    /// About 15 %.
    case medium = "M"
    /// About 25 %.
    case quartile = "Q"
    /// About 30 %.
    case high = "H"
  }

  /// The largest text encoded: 2,953 bytes of UTF-8, what a version-40 code at level L holds in
  /// byte mode. Longer text is refused before libqrencode is called.
  public static let maximumTextBytes = 2953

  /// The text the code holds.
  public let text: String
  /// Its error-correction level.
  public let errorCorrection: ErrorCorrection
  /// Modules per side (21 for version 1, up to 177 for version 40), without the quiet zone.
  public let moduleCount: Int
  /// Light modules drawn around the code on every side (4, as the QR standard asks).
  public let quietZone: Int
  /// Row-major, `true` for a dark module.
  private let modules: [Bool]

  /// Encodes `text` (as UTF-8 bytes) at `errorCorrection`, in the smallest version that holds it.
  ///
  /// - Throws: ``QRCodeError`` for empty text, text longer than the level holds, or text with a
  ///   NUL character.
  public init(_ text: String, errorCorrection: ErrorCorrection = .medium, quietZone: Int = 4) throws(QRCodeError) {
    let bytes = text.utf8.count
    guard bytes > 0 else { throw .emptyText }
    guard bytes <= Self.maximumTextBytes else { throw .tooLong(bytes: bytes, errorCorrection: errorCorrection) }
    guard !text.utf8.contains(0) else { throw .containsNul }
    guard (0...64).contains(quietZone) else { throw .badQuietZone(quietZone) }
    let level: QRecLevel
    switch errorCorrection {
    case .low: level = QR_ECLEVEL_L
    case .medium: level = QR_ECLEVEL_M
    case .quartile: level = QR_ECLEVEL_Q
    case .high: level = QR_ECLEVEL_H
    }
    // Version 0: the smallest version the data fits in. libqrencode is thread-safe when built
    // with pthreads, as Debian builds it.
    guard let code = QRcode_encodeString8bit(text, 0, level) else {
      throw .tooLong(bytes: bytes, errorCorrection: errorCorrection)
    }
    defer { QRcode_free(code) }
    let width = Int(code.pointee.width)
    guard width >= 21, width <= 177, let data = code.pointee.data else {
      throw .tooLong(bytes: bytes, errorCorrection: errorCorrection)
    }
    // Bit 0 of each byte is the module's colour (1 dark); the other bits describe its role.
    modules = (0..<(width * width)).map { data[$0] & 1 == 1 }
    moduleCount = width
    self.text = text
    self.errorCorrection = errorCorrection
    self.quietZone = quietZone
  }

  /// Whether the module at `row`, `column` (from 0, without the quiet zone) is dark; false outside
  /// the code.
  public func isDark(row: Int, column: Int) -> Bool {
    guard (0..<moduleCount).contains(row), (0..<moduleCount).contains(column) else { return false }
    return modules[row * moduleCount + column]
  }

  /// Modules per side with the quiet zone on both sides.
  public var totalModuleCount: Int { moduleCount + 2 * quietZone }
}

/// Why a ``QRCode`` cannot be made.
public enum QRCodeError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The text is empty.
  case emptyText
  /// The text has more bytes than a QR code holds at this level.
  case tooLong(bytes: Int, errorCorrection: QRCode.ErrorCorrection)
  /// The text holds a NUL character, which libqrencode's string input cannot carry.
  case containsNul
  /// The quiet zone is outside 0...64 modules.
  case badQuietZone(Int)

  public var description: String {
    switch self {
    case .emptyText: return "a QR code needs text to encode (got an empty string)"
    case .tooLong(let bytes, let level):
      return "\(bytes) bytes of text do not fit in a QR code at error correction \(level.rawValue) "
        + "(at most \(QRCode.maximumTextBytes) at L, fewer at M, Q and H): shorten the text or lower the level"
    case .containsNul: return "a QR code's text cannot contain a NUL character"
    case .badQuietZone(let zone): return "the quiet zone must be from 0 to 64 modules (got \(zone))"
    }
  }
}

extension DrawingContext {
  /// Draws `code` scaled to fill the square `rect` (its quiet zone included), dark modules in
  /// `color` on a white background, all dark modules as one filled path.
  ///
  /// ```swift
  /// context.draw(try QRCode("hello"), in: Rect(x: 0, y: 0, width: 100, height: 100))
  /// ```
  public func draw(_ code: QRCode, in rect: Rect, color: Color = .black) {
    let side = min(rect.width, rect.height)
    guard side > 0, side.isFinite else { return }
    let module = side / Double(code.totalModuleCount)
    fill(Rect(x: rect.minX, y: rect.minY, width: side, height: side), color: .white)
    let c = color.clamped
    let cr = cairo.raw
    cairo_save(cr)
    cairo_new_path(cr)
    let origin = Point(x: rect.minX + Double(code.quietZone) * module, y: rect.minY + Double(code.quietZone) * module)
    for row in 0..<code.moduleCount {
      // Runs of dark modules in a row become one rectangle: fewer path segments, no seams.
      var column = 0
      while column < code.moduleCount {
        guard code.isDark(row: row, column: column) else {
          column += 1
          continue
        }
        let start = column
        while column < code.moduleCount, code.isDark(row: row, column: column) { column += 1 }
        cairo_rectangle(
          cr, origin.x + Double(start) * module, origin.y + Double(row) * module, Double(column - start) * module,
          module)
      }
    }
    cairo_set_source_rgba(cr, c.red, c.green, c.blue, c.alpha)
    // Winding: touching rectangles of adjacent rows stay filled where they share an edge.
    cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING)
    cairo_fill(cr)
    cairo_restore(cr)
  }
}
