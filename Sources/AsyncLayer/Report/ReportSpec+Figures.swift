import Foundation

extension ReportSpec {
  /// A figure item of a spec: an image file (PNG, JPEG or SVG), a chart or a QR code, with an
  /// optional size and alternative text.
  ///
  /// ```json
  /// { "image": "logo.svg", "width": 120, "alt": "The company logo" }
  /// { "chart": { "type": "bar", "categories": ["Q1", "Q2"], "series": [{ "name": "North", "values": [12, 15] }] },
  ///   "height": 220, "alt": "Sales by quarter" }
  /// { "qrCode": "https://example.com/t/1234", "errorCorrection": "Q", "width": 96 }
  /// ```
  public struct Figure: Sendable, Hashable {
    /// Where the picture comes from.
    public enum Source: Sendable, Hashable {
      /// A PNG, JPEG or SVG file (told apart by its first bytes), relative to the spec, and the
      /// pixels per point of a PNG or JPEG.
      case file(path: String, scale: Double)
      /// A chart drawn from the spec's numbers.
      case chart(Chart)
      /// A QR code of the text.
      case qrCode(String, errorCorrection: QRCode.ErrorCorrection)
    }

    /// Where the picture comes from.
    public var source: Source
    /// The width in points; nil for the natural width (an image's, 108 for a QR code, the content
    /// width for a chart).
    public var width: Double?
    /// The height in points; nil to keep the aspect ratio (a chart: half its width).
    public var height: Double?
    /// The description for readers who cannot see the picture (`alt`).
    public var alternativeText: String?

    /// A figure item.
    public init(_ source: Source, width: Double? = nil, height: Double? = nil, alternativeText: String? = nil) {
      self.source = source
      self.width = width
      self.height = height
      self.alternativeText = alternativeText
    }
  }

  /// The side of a QR code without a `width`: 108 points, 1.5 inches.
  static let defaultQRCodeSide = 108.0

  /// The figure `figure` at `specPath`, its file read and checked (SVG) or decoded (PNG, JPEG)
  /// within `images`' memory limit.
  static func makeFigure(
    _ figure: Figure, images: inout ImageBudget, base: String, contentWidth: Double, style: ReportStyle,
    specPath: String
  ) throws -> ReportFigure {
    func sized(_ natural: Size) -> Size {
      switch (figure.width, figure.height) {
      case (let width?, let height?): return Size(width: width, height: height)
      case (let width?, nil): return Size(width: width, height: natural.height * width / natural.width)
      case (nil, let height?): return Size(width: natural.width * height / natural.height, height: height)
      case (nil, nil): return natural
      }
    }
    switch figure.source {
    case .file(let path, let scale):
      let (resolved, data) = try images.read(path, relativeTo: base, specPath: specPath + ".image")
      if SVGImage.looksLikeSVG(data) {
        do {
          let svg = try SVGImage(data: data)
          return ReportFigure(.svg(svg), size: sized(svg.size), alternativeText: figure.alternativeText)
        } catch {
          throw ReportSpecError(path: specPath + ".image", message: "\(resolved): \(error)")
        }
      }
      let image = try images.decode(data, resolved: resolved, scale: scale, specPath: specPath + ".image")
      return ReportFigure(.image(image), size: sized(image.size), alternativeText: figure.alternativeText)
    case .chart(var chart):
      chart.fontFamily = style.body.fontFamily
      chart.fontSize = min(200, max(1, style.body.fontSize * 0.85))
      do {
        try chart.validate()
      } catch {
        throw ReportSpecError(path: specPath + ".chart", message: error.description)
      }
      let width = figure.width ?? contentWidth
      return ReportFigure(
        .chart(chart), size: Size(width: width, height: figure.height ?? width / 2),
        alternativeText: figure.alternativeText)
    case .qrCode(let text, let level):
      do {
        let code = try QRCode(text, errorCorrection: level)
        let side = figure.width ?? figure.height ?? defaultQRCodeSide
        return ReportFigure(
          .qrCode(code), size: Size(width: side, height: side), alternativeText: figure.alternativeText)
      } catch {
        throw ReportSpecError(path: specPath + ".qrCode", message: error.description)
      }
    }
  }
}

extension SVGImage {
  /// True when `data` starts, after white space and a byte-order mark, with `<` (XML), as an SVG
  /// does and a PNG or JPEG cannot.
  static func looksLikeSVG(_ data: Data) -> Bool {
    var bytes = data.prefix(512)[...]
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
    return bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "<")
  }
}
