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
  /// The file or folder cannot be read; `reason` is what the system said, in words.
  case unreadable(path: String, reason: String)
  /// The path is a device, a pipe or a socket (`/dev/zero`), never a font.
  case notARegularFile(path: String, kind: String)
  /// The folder and its subfolders hold more than `limit` files and folders
  /// (``FontFiles/maximumFolderEntries``).
  case folderTooLarge(path: String, limit: Int)
  /// The folder has subfolders deeper than `limit` levels (``FontFiles/maximumFolderDepth``);
  /// `deepest` is the first one found.
  case folderTooDeep(path: String, limit: Int, deepest: String)
  /// fontconfig could not build a configuration (out of memory, or its own configuration is broken).
  case fontconfigFailed

  /// A message a person can act on.
  public var description: String {
    switch self {
    case .notFound(let path): return "\(path): no such file or folder"
    case .notAFont(let path): return "\(path): not a font file (expected TrueType, OpenType or a collection)"
    case .noFontsInFolder(let path): return "\(path): the folder holds no font files (.ttf, .otf, .ttc)"
    case .unreadable(let path, let reason): return "\(path): cannot read: \(reason)"
    case .notARegularFile(let path, let kind):
      return "\(path): not a regular file (it is \(kind)); name a font file or a folder of them"
    case .folderTooLarge(let path, let limit):
      return "\(path): the folder and its subfolders hold more than \(limit) files and folders, the limit for a "
        + "font folder; name the folder that holds the fonts"
    case .folderTooDeep(let path, let limit, let deepest):
      return "\(path): subfolders more than \(limit) levels deep (\(deepest)), the limit for a font folder; "
        + "name the folder that holds the fonts"
    case .fontconfigFailed: return "fontconfig could not load its configuration"
    }
  }
}
