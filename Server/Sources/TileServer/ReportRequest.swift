import AsyncLayer
import Foundation

/// A report spec from the network, made safe to lay out: file paths (images, fonts) only under the
/// operator's files root, inline PNG images (`"image": "data:image/png;base64,…"`) decoded with the
/// pixel cap, and every text and the item count checked against the server's limits before any
/// layout.
struct ReportRequest: Sendable {
  /// The spec with its inline images swapped for placeholders (see ``inlineImages``).
  var spec: ReportSpec
  /// Inline images by content index; their blocks replace the placeholders after `makeDocument`.
  var inlineImages: [Int: RenderedImage]

  static let dataPrefix = "data:image/png;base64,"

  init(json: Data, filesRoot: String?, limits: ServerLimits) throws {
    // Relative paths start at the root; with no root there is no folder to start from.
    var spec = try ReportSpec(jsonData: json, baseDirectory: filesRoot ?? "/nonexistent")
    guard spec.content.count <= limits.maximumReportItems else {
      throw RequestError.bad(
        "spec.content", "\(spec.content.count) items exceed the server's limit of \(limits.maximumReportItems)")
    }
    for (index, font) in spec.fonts.enumerated() {
      spec.fonts[index] = try Self.confined(font, root: filesRoot, field: "spec.fonts[\(index)]")
    }
    var images: [Int: RenderedImage] = [:]
    for (index, item) in spec.content.enumerated() {
      spec.content[index] = try Self.vetted(
        item, index: index, field: "spec.content[\(index)]", filesRoot: filesRoot, limits: limits, images: &images)
    }
    self.spec = spec
    self.inlineImages = images
  }

  /// `item` with its text checked against the server's caps and its file paths confined to the root
  /// (an inline `data:` PNG is decoded into `images` and its item becomes a one-block placeholder).
  private static func vetted(
    _ item: ReportSpec.Item, index: Int, field: String, filesRoot: String?, limits: ServerLimits,
    images: inout [Int: RenderedImage]
  ) throws -> ReportSpec.Item {
    switch item {
    case .heading(let text, _): try checkText(text, field + ".heading", limits)
    case .paragraph(let text): try checkText(text, field + ".paragraph", limits)
    case .markup(let text): try checkText(text, field + ".markup", limits)
    case .spans(let text): try checkText(text.string, field + ".spans", limits)
    case .table(let table):
      for (row, cells) in table.rows.enumerated() {
        for (column, cell) in cells.enumerated() {
          try checkText(cell, field + ".table.rows[\(row)][\(column)]", limits)
        }
      }
    case .image(let path, let scale):
      guard path.hasPrefix(dataPrefix) else {
        return .image(path: try confined(path, root: filesRoot, field: field + ".image"), scale: scale)
      }
      guard let data = Data(base64Encoded: String(path.dropFirst(dataPrefix.count))) else {
        throw RequestError.bad(field + ".image", "the data URL is not valid base64")
      }
      do {
        images[index] = try RenderedImage(pngData: data, scale: scale, maximumPixelCount: limits.maximumPixels)
      } catch {
        throw RequestError.bad(field + ".image", "\(error)")
      }
      return .pageBreak  // a placeholder, one block as the image is
    case .figure(var figure):
      if let alternativeText = figure.alternativeText { try checkText(alternativeText, field + ".alt", limits) }
      switch figure.source {
      case .file(let path, let scale):
        guard !path.hasPrefix(dataPrefix) else {
          throw RequestError.bad(field + ".image", "an image with alt, width or height must be a file under the root")
        }
        figure.source = .file(path: try confined(path, root: filesRoot, field: field + ".image"), scale: scale)
        return .figure(figure)
      case .qrCode(let text, _): try checkText(text, field + ".qrCode", limits)
      default: break
      }
    case .list(let list): try checkList(list, field + ".list", limits)
    case .flow(let inner, let options):
      return .flow(
        try vetted(inner, index: index, field: field, filesRoot: filesRoot, limits: limits, images: &images), options)
    case .tableOfContents, .pageBreak: break
    }
    return item
  }

  /// Checks the text of every item of `list` and its nested lists.
  private static func checkList(_ list: ReportList, _ field: String, _ limits: ServerLimits) throws {
    for (index, item) in list.items.enumerated() {
      let text: String
      switch item.content {
      case .plain(let plain): text = plain
      case .markup(let markup): text = markup
      case .attributed(let attributed): text = attributed.string
      }
      try checkText(text, field + ".items[\(index)]", limits)
      if let sublist = item.sublist { try checkList(sublist, field + ".items[\(index)].list", limits) }
    }
  }

  /// The document, with its images read (from under the root) and the inline ones in place.
  func makeDocument(limits: ServerLimits) throws -> ReportDocument {
    var document = try spec.makeDocument()
    document.textLimits = TextLimits(maximumBytes: limits.maximumTextBytes)
    // One block per content item: the placeholder's index is the item's.
    for (index, image) in inlineImages { document.blocks[index] = .image(image) }
    return document
  }

  private static func checkText(_ text: String, _ field: String, _ limits: ServerLimits) throws {
    guard text.utf8.count <= limits.maximumTextBytes else {
      throw RequestError.bad(
        field, "\(text.utf8.count) bytes exceeds the server's limit of \(limits.maximumTextBytes) bytes per text")
    }
  }

  /// `path` resolved (symbolic links and `..` included) when it lies under `root`.
  static func confined(_ path: String, root: String?, field: String) throws -> String {
    guard let root else {
      throw RequestError.bad(
        field,
        "file paths are refused: the server has no --files-root (inline images as \"data:image/png;base64,…\" work)")
    }
    let rootURL = URL(fileURLWithPath: root).resolvingSymlinksInPath().standardizedFileURL
    let candidate = path.hasPrefix("/") ? URL(fileURLWithPath: path) : rootURL.appendingPathComponent(path)
    let resolved = candidate.resolvingSymlinksInPath().standardizedFileURL.path
    let rootPath = rootURL.path.hasSuffix("/") ? rootURL.path : rootURL.path + "/"
    guard resolved.hasPrefix(rootPath) else {
      throw RequestError.bad(field, "'\(path.prefix(200))' is outside the server's files root")
    }
    return resolved
  }
}
