public import Foundation

/// An encoded image format the decoder recognises by its magic bytes (never by a file extension).
///
/// ```swift
/// ImageFormat(sniffing: data)  // .png, .jpeg or nil
/// ```
public enum ImageFormat: String, Sendable, Hashable, CustomStringConvertible {
  /// PNG: starts with `89 50 4E 47 0D 0A 1A 0A`.
  case png = "PNG"
  /// JPEG (JFIF, Exif or raw): starts with `FF D8 FF`.
  case jpeg = "JPEG"

  private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  private static let jpegSignature: [UInt8] = [0xff, 0xd8, 0xff]

  /// The format whose signature `data` starts with, or `nil` when none matches.
  public init?(sniffing data: Data) {
    if data.starts(with: Self.pngSignature) {
      self = .png
    } else if data.starts(with: Self.jpegSignature) {
      self = .jpeg
    } else {
      return nil
    }
  }

  /// The format's name, e.g. `"PNG"`.
  public var description: String { rawValue }
}
