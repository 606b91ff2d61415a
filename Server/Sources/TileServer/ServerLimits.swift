/// What one request may ask of the server, checked before anything is allocated or drawn.
///
/// The library's own caps (``TextLimits``, `TextTile.memoryCap`, cairo's 32 767 pixels per side) are
/// for a program that trusts its caller; a server does not, so its defaults are tighter.
public struct ServerLimits: Sendable, Hashable {
  /// The most bytes of a request body (a tile's JSON or a report spec): larger ones get 413.
  public var maximumBodyBytes: Int
  /// The most device pixels of one tile or page (width × height × scale²).
  public var maximumPixels: Int
  /// The most pages of one report.
  public var maximumPages: Int
  /// The most UTF-8 bytes of one tile's text (markup included), and of one report paragraph.
  public var maximumTextBytes: Int
  /// The most content items of one report spec.
  public var maximumReportItems: Int
  /// The deadline of a request that gives no `timeout`, in milliseconds.
  public var defaultTimeoutMilliseconds: Int
  /// The longest `timeout` a request may ask for, in milliseconds.
  public var maximumTimeoutMilliseconds: Int

  /// The server's defaults: 1 MiB bodies, 16 megapixels (a 2 000 × 2 000 pt tile at scale 2),
  /// 50 pages, 64 KiB of text, 2 000 report items, a 10 s deadline (60 s at most).
  public init(
    maximumBodyBytes: Int = 1 << 20, maximumPixels: Int = 16_000_000, maximumPages: Int = 50,
    maximumTextBytes: Int = 64 << 10, maximumReportItems: Int = 2_000, defaultTimeoutMilliseconds: Int = 10_000,
    maximumTimeoutMilliseconds: Int = 60_000
  ) {
    self.maximumBodyBytes = maximumBodyBytes
    self.maximumPixels = maximumPixels
    self.maximumPages = maximumPages
    self.maximumTextBytes = maximumTextBytes
    self.maximumReportItems = maximumReportItems
    self.defaultTimeoutMilliseconds = defaultTimeoutMilliseconds
    self.maximumTimeoutMilliseconds = maximumTimeoutMilliseconds
  }

  /// The bytes of a tile's pixels at the pixel cap: the memory cap handed to the library.
  var memoryCap: Int { maximumPixels * 4 }
}
