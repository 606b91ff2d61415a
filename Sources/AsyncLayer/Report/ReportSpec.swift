public import Foundation

/// A report described in JSON, as `layerbench report --spec` reads it.
///
/// ```json
/// {
///   "title": "Quarterly report",
///   "page": "a4",
///   "margins": 56,
///   "content": [
///     { "heading": "Summary" },
///     { "paragraph": "Sales grew in every region." },
///     { "table": { "columns": ["Region", "Sales"], "widths": [3, 1], "rows": [["North", "1 204"]] } },
///     { "image": "chart.png", "scale": 2 }
///   ]
/// }
/// ```
///
/// `page` is `"a4"`, `"letter"` or `{"width": …, "height": …}` in points; `margins` a number or
/// `{"top", "left", "bottom", "right"}`. Optional: `fonts` (font files or folders to register,
/// relative to the spec file), `font` (a family), `fontSize` (body text in points), `align` (the
/// ``TextAlignment`` words, for paragraphs), `pageNumbers` (default true), `header` and `footer`
/// (templates with `{page}`, `{pages}`, `{date}`, `{title}`), `date` (ISO 8601), `author`,
/// `subject`, `keywords`, `language` (a BCP 47 tag such as `"en"`: the PDF's `/Lang`), `tagged` (default true: a
/// tagged PDF; false leaves the structure tree out), `stripes` (a colour for every other table row) and `rules` (`grid`,
/// `horizontal`, `none`). Content items: `heading` (with an optional `level`), `paragraph`,
/// `markup` (Pango markup), `spans` (styled spans: `text` with `font`, `size`, `bold`, `weight`,
/// `italic`, `color`, `background`, `underline`, `strikethrough`, `letterSpacing`,
/// `baselineShift`, `link`), `table` (`columns`, `widths`, `rows`, and per column `align` — the
/// alignment words or `decimal` — and `formats`: `"text"`, `"number"`, `"currency"`, `"percent"`,
/// `"date"` or `{"format", "decimals", "symbol", "pattern"}`), `image` (a PNG, JPEG or SVG path,
/// relative to the spec file, with an optional `scale` in pixels per point; SVG is drawn as vectors),
/// `chart` (`type` `bar` or `line`, `title`, `categories`, `series` of `{"name", "values",
/// "color"}` with `null` for a gap, `referenceLines`), `qrCode` (its text, with `errorCorrection`
/// `L`, `M`, `Q` or `H`), `{"pageBreak": true}` and `{"contents": true}` (a table of contents). An
/// image, chart or QR code takes `width` and `height` in points and `alt`, a description for
/// readers who cannot see it (see ``ReportSpec/Figure``). A spec that does not
/// decode throws ``ReportSpecError`` naming the JSON path at fault:
///
/// ```swift
/// do {
///   let spec = try ReportSpec(contentsOfFile: "report.json")
///   let layout = try ReportLayout(try spec.makeDocument())
/// } catch let error as ReportSpecError {
///   print(error)  // "spec.content[3].table.rows[3][1]: expected a string, found a number"
/// }
/// ```
public struct ReportSpec: Sendable, Hashable {
  /// One entry of ``content``.
  public enum Item: Sendable, Hashable {
    /// A heading (`{"heading": …, "level": 1–6}`).
    case heading(String, level: Int)
    /// A paragraph of plain text.
    case paragraph(String)
    /// A paragraph in Pango markup.
    case markup(String)
    /// A table (`{"table": {"columns", "widths", "rows", "align", "formats"}}`).
    case table(ReportTable)
    /// A paragraph of styled spans (`{"spans": [{"text": …, "bold": true, "link": …}, …]}`).
    case spans(AttributedText)
    /// A table of contents (`{"contents": true}`).
    case tableOfContents
    /// A PNG file and its pixels per point.
    case image(path: String, scale: Double)
    /// Starts a new page (`{"pageBreak": true}`).
    case pageBreak
    /// An image with a size or alternative text (PNG, JPEG or SVG), a chart or a QR code.
    case figure(Figure)
    /// A bulleted or numbered list (`{"list": {"items": [...], "numbered": true}}`).
    case list(ReportList)
    /// An item with `"keepTogether": true` or `"keepWithNext": true`.
    indirect case flow(Item, ReportFlow)
  }

  /// The document title, shown on the first page and stored in the PDF.
  public var title: String?
  /// The page size in points, nil for the default (A4).
  public var pageSize: Size?
  /// The page margins in points, nil for the default (56 pt on every side).
  public var margins: EdgeInsets?
  /// The font family of all text (`font`), nil for the style's default.
  public var fontFamily: String?
  /// The body text size in points.
  public var fontSize: Double?
  /// Whether pages get the footer (`pageNumbers`, true by default).
  public var showsPageNumbers: Bool
  /// The page header template (`{page}`, `{pages}`, `{date}`, `{title}`), nil for none.
  public var header: String?
  /// The page footer template, nil for the default "Page {page} of {pages}".
  public var footer: String?
  /// The document date (`{date}`, the PDF's creation date); nil for now.
  public var date: Date?
  /// The PDF's author, subject and keywords.
  public var metadata: ReportMetadata
  /// The alignment of paragraphs.
  public var alignment: TextAlignment?
  /// Filled behind every other table row.
  public var tableStripes: Color?
  /// The lines tables draw.
  public var tableRules: ReportTableRules?
  /// The fewest lines of a paragraph left at the top (`widows`) and bottom (`orphans`) of a page,
  /// nil for the style's 2.
  public var widows: Int?
  /// See ``widows``.
  public var orphans: Int?
  /// The first page's header and footer templates (`firstHeader`, `firstFooter`), nil for the
  /// others'.
  public var firstPageHeader: String?
  /// See ``firstPageHeader``.
  public var firstPageFooter: String?
  /// Whether contents lines draw leader dots (`contentsLeaders`).
  public var contentsLeaders: Bool = false
  /// Font files or folders to register (``FontFiles``) before laying out, relative to
  /// ``baseDirectory``; their families can then be named in `font`.
  public var fonts: [String]
  /// The content items, in reading order.
  public var content: [Item]
  /// Where relative image paths start: the spec file's directory, or the current directory.
  public var baseDirectory: String

  /// The largest spec file ``init(contentsOfFile:maximumBytes:)`` reads: 16 MiB, about 150 000
  /// table rows. A larger file is refused from its size before it is read, and a device or pipe
  /// (`/dev/zero`) once this much has been read.
  public static let defaultMaximumFileBytes = 16 << 20

  /// Decodes a spec from JSON; throws ``ReportSpecError`` naming the JSON path at fault, also for a
  /// key given twice in one object (`JSONDecoder` would keep one of the two values silently).
  public init(jsonData: Data, baseDirectory: String = FileManager.default.currentDirectoryPath) throws {
    // Grammar errors are left to the decoder, which reports them through the same check; a
    // repeated key is only found here.
    if let failure = JSONSyntaxCheck.firstFailure(in: jsonData), let container = failure.duplicateKeyPath {
      throw ReportSpecError(
        path: container.isEmpty || container.hasPrefix("[") ? "spec\(container)" : "spec.\(container)",
        message: "line \(failure.line), column \(failure.column): \(failure.problem)")
    }
    do {
      self = try JSONDecoder().decode(ReportSpec.self, from: jsonData)
    } catch let error as DecodingError {
      throw ReportSpecError(error, json: jsonData)
    }
    self.baseDirectory = baseDirectory
  }

  /// Reads and decodes a spec file; image paths are relative to its directory.
  ///
  /// - Parameters:
  ///   - path: the spec file.
  ///   - maximumBytes: the largest file accepted (``defaultMaximumFileBytes``); a larger one is
  ///     refused before it is parsed.
  /// - Throws: ``ReportSpecError`` at `spec` for a file that cannot be read or is too large.
  public init(contentsOfFile path: String, maximumBytes: Int = defaultMaximumFileBytes) throws {
    let data: Data
    do {
      data = try Self.readFile(path, maximumBytes: maximumBytes)
    } catch {
      throw ReportSpecError(path: "spec", message: error.description)
    }
    try self.init(jsonData: data, baseDirectory: URL(fileURLWithPath: path).deletingLastPathComponent().path)
  }

  /// The bytes of the spec file at `path`, read with the size limit (`layerbench report` reads its
  /// `--spec` with it).
  package static func readFile(_ path: String, maximumBytes: Int = defaultMaximumFileBytes)
    throws(BoundedFileReader.Failure) -> Data
  {
    try BoundedFileReader.read(path, limit: maximumBytes, purpose: "a report spec")
  }

  /// Pixels per point of 300 ppi, the resolution images are held at for PDF and SVG output: print
  /// quality, and a full A4 content area at it is 2 012 × 3 041 pixels (24 MB).
  public static let printPixelsPerPoint = 300.0 / 72

  /// The most memory a report's decoded images may take together, at the size they are drawn
  /// (4 bytes a pixel): 256 MiB, ten full-page images of A4 at 300 ppi.
  public static let defaultImageMemoryBytes = 256 << 20

  /// The largest image file read: 256 MiB, refused from its size before reading.
  public static let maximumImageFileBytes = 256 << 20

  /// The document the spec describes, with its images read from disk.
  ///
  /// Each image is decoded at the size it is drawn — its box on the page in points times
  /// `imagePixelsPerPoint` — never larger than the file's own pixels: PNG row by row and JPEG with
  /// its DCT scaling, so a large image never exists in memory at full size. For PNG pages pass the
  /// output scale; for PDF and SVG the default, ``printPixelsPerPoint`` (300 ppi), keeps them sharp
  /// in print.
  ///
  /// ```swift
  /// let spec = try ReportSpec(contentsOfFile: "report.json")
  /// let pdf = try ReportLayout(try spec.makeDocument()).pdfData()  // images at 300 ppi
  /// let pages = try await ReportLayout(try spec.makeDocument(imagePixelsPerPoint: 2)).renderPages(scale: 2)
  /// ```
  ///
  /// - Parameters:
  ///   - override: overrides the spec's page size when given.
  ///   - imagePixelsPerPoint: the pixels per point images are decoded at (0.01 to 100).
  ///   - imageMemoryBytes: the most memory all images may take decoded (``defaultImageMemoryBytes``);
  ///     checked from each file's header before it is decoded.
  /// - Throws: ``ReportSpecError`` naming the item of a missing, unreadable or undecodable image file
  ///   (with the file's path), of images over the memory limit, or of invalid markup.
  public func makeDocument(
    pageSize override: Size? = nil, imagePixelsPerPoint: Double = printPixelsPerPoint,
    imageMemoryBytes: Int = defaultImageMemoryBytes
  ) throws -> ReportDocument {
    guard imagePixelsPerPoint >= 0.01, imagePixelsPerPoint <= 100 else {
      throw ReportSpecError(
        path: "spec", message: "image resolution must be from 0.01 to 100 pixels per point (got \(imagePixelsPerPoint))"
      )
    }
    for (index, font) in fonts.enumerated() {
      let resolved = font.hasPrefix("/") ? font : URL(fileURLWithPath: baseDirectory).appendingPathComponent(font).path
      do {
        try FontFiles.register(resolved)
      } catch {
        throw ReportSpecError(path: "spec.fonts[\(index)]", message: error.description)
      }
    }
    var style = ReportStyle(fontFamily: fontFamily ?? "Sans", bodySize: fontSize ?? 11)
    style.title.fontFamily = fontFamily ?? "Sans"
    if let alignment { style.body.alignment = alignment }
    style.tableStripeBackground = tableStripes
    if let tableRules { style.tableRules = tableRules }
    if let widows { style.widows = widows }
    if let orphans { style.orphans = orphans }
    style.contentsLeaders = contentsLeaders
    var document = ReportDocument(
      title: title, pageSize: override ?? pageSize ?? .a4, margins: margins ?? EdgeInsets(all: 56), style: style,
      showsPageNumbers: showsPageNumbers)
    document.header = header
    document.firstPageHeader = firstPageHeader
    document.firstPageFooter = firstPageFooter
    if let footer { document.footer = footer }
    if let date { document.date = date }
    document.metadata = metadata
    var images = ImageBudget(
      pixelsPerPoint: imagePixelsPerPoint, limit: imageMemoryBytes,
      contentSize: Size(
        width: document.pageSize.width - document.margins.left - document.margins.right,
        height: document.pageSize.height - document.margins.top - document.margins.bottom))
    for (index, item) in content.enumerated() {
      document.blocks.append(try block(of: item, in: document, path: "spec.content[\(index)]", images: &images))
    }
    return document
  }

  /// The document block of `item`, its markup checked and its image read.
  private func block(
    of item: Item, in document: ReportDocument, path: String, images: inout ImageBudget
  ) throws -> ReportBlock {
    switch item {
    case .heading(let text, let level):
      return .heading(text, level: level)
    case .paragraph(let text):
      return .paragraph(.plain(text))
    case .markup(let markup):
      try Self.check(.markup(markup), in: document, path: path + ".markup")
      return .paragraph(.markup(markup))
    case .spans(let text):
      try Self.check(.attributed(text), in: document, path: path + ".spans")
      return .paragraph(.attributed(text))
    case .tableOfContents:
      return .tableOfContents
    case .table(let table):
      return .table(table)
    case .image(let file, let scale):
      let (resolved, data) = try images.read(file, relativeTo: baseDirectory, specPath: path + ".image")
      guard !SVGImage.looksLikeSVG(data) else {
        // An SVG file is drawn as vectors, at its own size.
        return .figure(
          try Self.makeFigure(
            Figure(.file(path: file, scale: scale)), images: &images, base: baseDirectory,
            contentWidth: images.contentSize.width, style: document.style, specPath: path))
      }
      return .image(try images.decode(data, resolved: resolved, scale: scale, specPath: path + ".image"))
    case .figure(let figure):
      return .figure(
        try Self.makeFigure(
          figure, images: &images, base: baseDirectory, contentWidth: images.contentSize.width, style: document.style,
          specPath: path))
    case .pageBreak:
      return .pageBreak
    case .list(let list):
      guard list.itemCount() <= ReportList.maximumItems else {
        throw ReportSpecError(
          path: path + ".list",
          message: "expected at most \(ReportList.maximumItems) items, nested lists included; split the list")
      }
      try Self.checkMarkup(of: list, in: document, path: path + ".list")
      return .list(list)
    case .flow(let inner, let options):
      return .flow(try block(of: inner, in: document, path: path, images: &images), options)
    }
  }

  /// Checks the markup items of `list` and its nested lists.
  private static func checkMarkup(of list: ReportList, in document: ReportDocument, path: String) throws {
    for (index, item) in list.items.enumerated() {
      if case .markup = item.content { try check(item.content, in: document, path: path + ".items[\(index)].markup") }
      if let sublist = item.sublist { try checkMarkup(of: sublist, in: document, path: path + ".items[\(index)].list") }
    }
  }

  /// Lays `content` out as the paginator will, to report bad markup or span values at their path.
  private static func check(_ content: TextContent, in document: ReportDocument, path: String) throws {
    do {
      // At the content width, as the paginator will lay it out (an unwrapped long paragraph
      // could exceed Pango's width limit where the wrapped one does not).
      let width = document.pageSize.width - document.margins.left - document.margins.right
      _ = try TextLayout(content, style: document.style.body, width: width >= 1 ? width : nil)
    } catch let error as RenderError {
      throw ReportSpecError(path: path, message: error.description)
    }
  }
}
