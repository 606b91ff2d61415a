/// A picture in a report, drawn as one unbreakable block: a raster image, an SVG drawn as
/// vectors, a chart or a QR code, with the text that describes it to someone who cannot see it.
///
/// The paginator moves a figure to the next page when it does not fit below what came before,
/// and scales it down (aspect ratio kept, never up) when it is wider than the content area or
/// taller than a whole page's content area.
///
/// ```swift
/// var report = ReportDocument(title: "Invoice 2024-118")
/// let code = try QRCode("https://example.com/pay/2024-118", errorCorrection: .quartile)
/// report.addFigure(ReportFigure(.qrCode(code), size: Size(width: 96, height: 96), alternativeText: "Payment link"))
/// let chart = Chart(kind: .line, categories: ["Jan", "Feb", "Mar"], series: [.init(name: "Paid", values: [3, 5, 4])])
/// report.addFigure(ReportFigure(.chart(chart), size: Size(width: 480, height: 240)))
/// ```
public struct ReportFigure: Sendable, Hashable {
  /// What the figure draws.
  public enum Content: Sendable, Hashable {
    /// Pixels, drawn scaled into the frame (PNG or JPEG files in specs).
    case image(RenderedImage)
    /// An SVG document: vectors in PDF and SVG output.
    case svg(SVGImage)
    /// A bar or line chart, drawn as vectors.
    case chart(Chart)
    /// A QR code, its dark modules one vector path.
    case qrCode(QRCode)
  }

  /// What the figure draws.
  public var content: Content
  /// Its size in points before the paginator fits it to the page.
  public var size: Size
  /// A description of the picture for readers who cannot see it (a tagged PDF's Figure `/Alt`),
  /// or nil.
  public var alternativeText: String?

  /// A figure of `size` points.
  public init(_ content: Content, size: Size, alternativeText: String? = nil) {
    self.content = content
    self.size = size
    self.alternativeText = alternativeText
  }
}

extension ReportDocument {
  /// Appends a figure (an image, an SVG, a chart or a QR code), kept whole on one page.
  public mutating func addFigure(_ figure: ReportFigure) {
    blocks.append(.figure(figure))
  }
}
