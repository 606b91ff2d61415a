internal import CCairo
import Foundation
import Synchronization

/// Fonts from files, registered at run time for the whole process: a brand font shipped with an
/// app, or a folder of them, without installing anything system-wide.
///
/// ```swift
/// let families = try FontFiles.register("Fonts/Brand-Regular.otf")  // ["Brand"]
/// try FontFiles.register("Fonts/")                                   // every font in the folder
/// let tile = TextTile(.plain("Hello"), style: TextStyle(font: "Brand 16"), width: 200)
/// ```
///
/// Every thread's text uses the new fonts from its next layout on; layouts made before keep the
/// fonts they were made with, so draws in flight are undisturbed. PDFs embed (and subset) them,
/// as any font.
///
/// How: each thread has its own Pango font map (see `PangoThreadState`), reading a fontconfig
/// configuration. Registering builds a *new* configuration — the system's fonts plus every file
/// registered so far — and never changes one in use: fontconfig configurations are not safe to
/// change while other threads (and Pango's own font-matching thread) query them. A generation
/// counter tells each thread, at its next layout, to swap its font map for a fresh one on the new
/// configuration; the old map lives on as long as the layouts that use it. Registrations are
/// serialized by one lock, which nothing on the drawing path takes.
public enum FontFiles {
  /// File extensions a folder is searched for.
  static let fontExtensions: Set<String> = ["ttf", "otf", "ttc", "otc", "pfb", "pfa", "woff", "woff2"]

  /// A fontconfig configuration, referenced once by this owner and released once.
  final class Configuration: Sendable {
    // Never changed after it is published; fontconfig counts references atomically.
    nonisolated(unsafe) let raw: OpaquePointer

    fileprivate init(raw: OpaquePointer) { self.raw = raw }
    deinit { FcConfigDestroy(raw) }
  }

  private struct State: ~Copyable {
    var files: [String] = []
    /// The families each registered file added.
    var families: [String: Set<String>] = [:]
    var configuration: Configuration?
  }

  private static let state = Mutex(State())
  /// Bumped after each registration; threads compare it with their font map's (an atomic read on
  /// each new layout, no lock).
  static let generation = Atomic<Int>(0)

  /// Registers a font file (`.ttf`, `.otf`, `.ttc`, …) or every font file in a folder and its
  /// subfolders, and returns the family names they add, sorted. Registering a file again is
  /// harmless.
  ///
  /// A folder is walked at most ``maximumFolderDepth`` levels deep and through at most
  /// ``maximumFolderEntries`` files and subfolders; links to subfolders are not followed.
  ///
  /// - Throws: ``FontFileError`` for a missing or unreadable path, a device or pipe, a file that is
  ///   not a font, a folder without fonts, or a folder past the walk's limits.
  @discardableResult
  public static func register(_ path: String) throws(FontFileError) -> [String] {
    let files = try fontFiles(at: path)
    let known = state.withLock { state in files.compactMap { state.families[$0] } }
    // Already registered (a batch validates its options once per input line): nothing to do.
    if known.count == files.count { return known.reduce(into: Set()) { $0.formUnion($1) }.sorted() }
    var families = Set<String>()
    var found: [String: Set<String>] = [:]
    for file in files {
      let faces = faceFamilies(of: file)
      if faces.isEmpty { continue }
      families.formUnion(faces)
      found[file] = faces
    }
    guard !found.isEmpty else {
      throw files.count == 1 && files[0] == absolute(path) ? .notAFont(path: path) : .noFontsInFolder(path: path)
    }
    let valid = files.filter { found[$0] != nil }
    try state.withLock { (state: inout State) throws(FontFileError) in
      let all = state.files + valid.filter { state.families[$0] == nil }
      guard all != state.files else { return }
      // A fresh configuration with the system's fonts, then ours: nobody else sees it until it is
      // complete.
      guard let raw = FcInitLoadConfigAndFonts() else { throw .fontconfigFailed }
      let configuration = Configuration(raw: raw)
      for file in all where FcConfigAppFontAddFile(raw, file) == 0 { throw .notAFont(path: file) }
      state.files = all
      state.families.merge(found) { old, _ in old }
      state.configuration = configuration
      generation.add(1, ordering: .releasing)
    }
    FontCatalog.forgetInstalledFamilies()
    return families.sorted()
  }

  /// The files registered so far, absolute paths in registration order.
  package static var registeredFiles: [String] { state.withLock { $0.files } }

  /// The configuration new font maps use (nil: fontconfig's default) and its generation.
  static func currentConfiguration() -> (configuration: Configuration?, generation: Int) {
    state.withLock { state in (state.configuration, generation.load(ordering: .acquiring)) }
  }

  private static func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

  /// How deep ``register(_:)`` walks into a folder's subfolders: 8 levels below it
  /// (`/usr/share/fonts/truetype/noto` is 2 below `/usr/share/fonts`). A deeper subfolder is
  /// refused with ``FontFileError/folderTooDeep(path:limit:deepest:)``.
  public static let maximumFolderDepth = 8

  /// How many files and subfolders ``register(_:)`` looks at in one folder and its subfolders:
  /// 20 000, well above a system's font folders (a few thousand), and reached in about a tenth of
  /// a second; more is refused with ``FontFileError/folderTooLarge(path:limit:)`` (naming `/` would
  /// otherwise walk the whole file system).
  public static let maximumFolderEntries = 20_000

  /// The file at `path`, or the font files under the folder at `path` (sorted, for a stable order),
  /// walked to ``maximumFolderDepth`` and ``maximumFolderEntries``.
  private static func fontFiles(at path: String) throws(FontFileError) -> [String] {
    var info = stat()
    guard stat(path, &info) == 0 else {
      let code = errno
      if code == ENOENT || code == ENOTDIR { throw .notFound(path: path) }
      throw .unreadable(path: path, reason: FileErrorDescription.reason(errno: code))
    }
    let type = info.st_mode & S_IFMT
    let root = absolute(path)
    guard type == S_IFDIR else {
      // FreeType would read a device such as /dev/zero without end.
      guard type == S_IFREG else { throw .notARegularFile(path: path, kind: BoundedFileReader.kind(of: type)) }
      guard access(path, R_OK) == 0 else {
        throw .unreadable(path: path, reason: FileErrorDescription.reason(errno: errno))
      }
      return [root]
    }
    let files = try walk(root, named: path, maximumDepth: maximumFolderDepth, maximumEntries: maximumFolderEntries)
    guard !files.isEmpty else { throw .noFontsInFolder(path: path) }
    return files.sorted()
  }

  /// The font files (by extension, regular files or links to them) in `root` and its subfolders.
  /// Links to folders are not followed (they can loop). `path` is the folder as the caller named it.
  static func walk(
    _ root: String, named path: String, maximumDepth: Int, maximumEntries: Int
  ) throws(FontFileError) -> [String] {
    var files: [String] = []
    var entries = 0
    var pending: [(folder: String, depth: Int)] = [(root, 0)]
    while let (folder, depth) = pending.popLast() {
      guard let directory = opendir(folder) else {
        let code = errno
        // The folder itself must be readable; an unreadable subfolder is passed over, as
        // fontconfig does.
        if folder == root { throw .unreadable(path: path, reason: FileErrorDescription.reason(errno: code)) }
        continue
      }
      defer { closedir(directory) }
      while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
          String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name == "." || name == ".." { continue }
        entries += 1
        guard entries <= maximumEntries else { throw .folderTooLarge(path: path, limit: maximumEntries) }
        let full = folder == "/" ? "/" + name : folder + "/" + name
        var isFolder = entry.pointee.d_type == UInt8(DT_DIR)
        if entry.pointee.d_type == UInt8(DT_UNKNOWN) {
          // Some file systems do not fill in d_type.
          var info = stat()
          guard lstat(full, &info) == 0 else { continue }
          isFolder = (info.st_mode & S_IFMT) == S_IFDIR
        }
        if isFolder {
          guard depth < maximumDepth else {
            throw .folderTooDeep(path: path, limit: maximumDepth, deepest: full)
          }
          pending.append((full, depth + 1))
          continue
        }
        guard fontExtensions.contains((name as NSString).pathExtension.lowercased()) else { continue }
        // A link counts when it leads to a regular file; devices and pipes are never fonts.
        var info = stat()
        guard stat(full, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
        files.append(full)
      }
    }
    return files
  }

  /// The family names of every face in `file` (all faces of a collection), empty when FreeType
  /// cannot read it as a font.
  private static func faceFamilies(of file: String) -> Set<String> {
    guard let set = FcFontSetCreate() else { return [] }
    defer { FcFontSetDestroy(set) }
    var count: Int32 = 0
    // id -1: every face and named instance.
    guard FcFreeTypeQueryAll(file, UInt32.max, nil, &count, set) > 0 else { return [] }
    var families = Set<String>()
    for index in 0..<Int(set.pointee.nfont) {
      var family: UnsafeMutablePointer<FcChar8>?
      if let pattern = set.pointee.fonts[index], FcPatternGetString(pattern, FC_FAMILY, 0, &family) == FcResultMatch,
        let family
      {
        families.insert(String(cString: UnsafeRawPointer(family).assumingMemoryBound(to: CChar.self)))
      }
    }
    return families
  }
}
