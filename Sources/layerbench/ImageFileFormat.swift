import AsyncLayer
import Foundation

/// The image files the CLI writes, chosen by the file name's extension: PNG or JPEG (the encoders
/// the library has), and a refusal naming those for any other extension.
enum ImageFileFormat {
  case png, jpeg

  static let supported = ".png, .jpg or .jpeg"

  init(path: String, option: String) throws {
    switch (path as NSString).pathExtension.lowercased() {
    case "png": self = .png
    case "jpg", "jpeg": self = .jpeg
    case "":
      throw ValidationErrorMessage("\(option): '\(path)' has no extension; use a \(Self.supported) file name")
    case let other:
      throw ValidationErrorMessage(
        "\(option): cannot write .\(other) images ('\(path)'); use a \(Self.supported) file name")
    }
  }

  /// Checks, before a run, that `path` names a supported image format in a writable directory.
  @discardableResult
  static func checkOutput(_ path: String, option: String) throws -> ImageFileFormat {
    try FileAccess.checkWritable(path, option: option)
    return try ImageFileFormat(path: path, option: option)
  }

  /// The encoded file: PNG, or a JPEG of quality 90 (4:4:4).
  func encode(_ image: RenderedImage) throws -> Data {
    switch self {
    case .png: return try image.pngData()
    case .jpeg: return try image.jpegData(quality: 90)
    }
  }

  /// Writes `image` to `path` in the format its extension names.
  static func write(_ image: RenderedImage, to path: String, option: String) throws {
    try FileAccess.write(ImageFileFormat(path: path, option: option).encode(image), to: path)
  }
}

extension RenderedImage {
  /// Writes a chart to `path` (`--chart`) in the format its extension names.
  func write(to path: String) throws { try ImageFileFormat.write(self, to: path, option: "--chart") }
}
