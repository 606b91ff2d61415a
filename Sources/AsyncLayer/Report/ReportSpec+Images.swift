import Foundation

extension ReportSpec {
  /// Loads a spec's images at the size they will be drawn and keeps their decoded memory under a
  /// limit.
  struct ImageBudget {
    /// Device pixels per point the images are decoded at.
    let pixelsPerPoint: Double
    /// The most bytes all decoded images may take.
    let limit: Int
    /// The page's content area, which the paginator fits each image into.
    let contentSize: Size
    /// Bytes taken by the images loaded so far.
    private(set) var used = 0

    init(pixelsPerPoint: Double, limit: Int, contentSize: Size) {
      self.pixelsPerPoint = pixelsPerPoint
      self.limit = max(0, limit)
      self.contentSize = contentSize
    }

    /// The box, in points, the paginator draws an image of `pixels` at `scale` pixels per point
    /// into: its natural size, scaled down (never up) to fit the content area.
    func drawnSize(of pixels: PixelSize, scale: Double) -> Size {
      let natural = Size(width: Double(pixels.width) / scale, height: Double(pixels.height) / scale)
      guard contentSize.width >= 1, contentSize.height >= 1 else { return natural }
      let factor = min(1, contentSize.width / natural.width, contentSize.height / natural.height)
      return Size(width: natural.width * factor, height: natural.height * factor)
    }

    /// The pixel size to decode an image of `pixels` drawn at `box` points: the box at
    /// ``pixelsPerPoint``, rounded up, never more than the image has.
    func decodedSize(of pixels: PixelSize, drawnAt box: Size) -> PixelSize {
      let wanted = PixelSize(
        width: Int(min(Double(pixels.width), (box.width * pixelsPerPoint).rounded(.up))),
        height: Int(min(Double(pixels.height), (box.height * pixelsPerPoint).rounded(.up))))
      return PixelSize(width: max(1, wanted.width), height: max(1, wanted.height)).aspectFit(pixels)
    }

    /// The bytes of the image file `file` (relative to `base`) and its resolved path; a missing
    /// or unreadable file is a ``ReportSpecError`` at `specPath`.
    func read(_ file: String, relativeTo base: String, specPath: String) throws -> (path: String, data: Data) {
      let resolved = file.hasPrefix("/") ? file : URL(fileURLWithPath: base).appendingPathComponent(file).path
      do {
        return (
          resolved,
          try BoundedFileReader.read(
            resolved, limit: ReportSpec.maximumImageFileBytes, purpose: "an image file", regularFileOnly: true)
        )
      } catch {
        if case .cannotRead(let failure) = error, failure.reason == FileErrorDescription.reason(errno: ENOENT) {
          throw ReportSpecError(path: specPath, message: "image file not found: \(resolved)")
        }
        throw ReportSpecError(path: specPath, message: error.description)
      }
    }

    /// Decodes the PNG or JPEG `data` read from `resolved` at the size it will be drawn, within
    /// the memory limit.
    mutating func decode(_ data: Data, resolved: String, scale: Double, specPath: String) throws -> RenderedImage {
      do {
        let source = try ImageDecoder.pixelSize(of: data)
        try ImageDecoder.checkLimits(source, maximumPixelCount: ImageDecoder.defaultMaximumPixelCount)
        let box = drawnSize(of: source, scale: scale)
        let target = decodedSize(of: source, drawnAt: box)
        // Checked from the header, before a pixel is decoded.
        let bytes = target.width * target.height * 4
        guard used + bytes <= limit else {
          throw ReportSpecError(
            path: specPath,
            message: "\(resolved): the report's images need \(BoundedFileReader.bytes(used + bytes)) decoded at the "
              + "size they are drawn (this one \(target), \(BoundedFileReader.bytes(bytes))), over the limit of "
              + "\(BoundedFileReader.bytes(limit)) for a report's images: use fewer or smaller images")
        }
        let image = try ImageDecoder.decode(data, targetPixelSize: target)
        used += image.pixelWidth * image.pixelHeight * 4
        // Its size in points is the box: the paginator places it as it would the full image.
        let drawnScale = box.width > 0 ? Double(image.pixelWidth) / box.width : scale
        return RenderedImage(
          pixelWidth: image.pixelWidth, pixelHeight: image.pixelHeight, scale: drawnScale, pixels: image.pixels)
      } catch let error as ImageDecodingError {
        throw ReportSpecError(path: specPath, message: "\(resolved): \(error)")
      }
    }
  }
}
