/// Why ``FontFiles/register(_:)`` refused a path.
///
/// ```swift
/// do { try FontFiles.register("Brand.ttf") } catch { print(error) }  // "Brand.ttf: no such file"
/// ```
public enum FontFileError: Error, Sendable, Hashable, CustomStringConvertible {
  /// Nothing exists at the path.
  case notFound(path: String)
  /// The file exists but is not a font FreeType can read (TrueType, OpenType, a collection, …).
  case notAFont(path: String)
  /// The folder (searched with its subfolders) holds no font file that FreeType can read.
  case noFontsInFolder(path: String)
  /// The file or folder cannot be read.
  case unreadable(path: String)
  /// fontconfig could not build a configuration (out of memory, or its own configuration is broken).
  case fontconfigFailed

  /// A message a person can act on.
  public var description: String {
    switch self {
    case .notFound(let path): return "\(path): no such file or folder"
    case .notAFont(let path): return "\(path): not a font file (expected TrueType, OpenType or a collection)"
    case .noFontsInFolder(let path): return "\(path): the folder holds no font files (.ttf, .otf, .ttc)"
    case .unreadable(let path): return "\(path): cannot be read (permission denied?)"
    case .fontconfigFailed: return "fontconfig could not load its configuration"
    }
  }
}
