internal import CCairo
import Foundation
import Synchronization

/// The font families installed on this machine, to warn about a family that will fall back.
///
/// ```swift
/// for family in FontCatalog.missingFamilies(in: "Brand, Sans") {
///   print("\(family) is not installed; a fallback font is used")
/// }
/// ```
public enum FontCatalog {
  /// Generic names fontconfig always resolves, whatever is installed.
  private static let genericFamilies: Set<String> = [
    "sans", "sans-serif", "serif", "monospace", "mono", "system-ui", "cursive", "fantasy", "emoji", "math",
  ]

  private static let families = Mutex<Set<String>?>(nil)

  /// Lower-cased names of all installed families.
  public static var installedFamilies: Set<String> {
    if let known = families.withLock({ $0 }) { return known }
    let state = PangoThreadState.current
    state.refreshFontsIfRegistered()
    let fontMap = state.fontMap
    var list: UnsafeMutablePointer<UnsafeMutablePointer<PangoFontFamily>?>?
    var count: Int32 = 0
    pango_font_map_list_families(fontMap, &list, &count)
    var names = Set<String>()
    for index in 0..<Int(count) {
      if let family = list?[index], let name = pango_font_family_get_name(family) {
        names.insert(String(cString: name).lowercased())
      }
    }
    g_free(list)
    families.withLock { $0 = names }
    return names
  }

  /// Drops the cached answers after fonts were registered (``FontFiles``).
  static func forgetInstalledFamilies() {
    families.withLock { $0 = nil }
    missingByList.withLock { $0.removeAll() }
  }

  /// Answers per family list: every tile render asks, with a handful of distinct lists.
  private static let missingByList = Mutex<[String: [String]]>([:])

  /// The families of a comma-separated list that are neither installed nor generic: text in them
  /// is drawn with a fallback font.
  public static func missingFamilies(in familyList: String) -> [String] {
    if let known = missingByList.withLock({ $0[familyList] }) { return known }
    let installed = installedFamilies
    let missing = familyList.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { name in
      !name.isEmpty && !genericFamilies.contains(name.lowercased()) && !installed.contains(name.lowercased())
    }
    missingByList.withLock { cache in
      if cache.count > 256 { cache.removeAll() }  // a bound, for callers that invent family names
      cache[familyList] = missing
    }
    return missing
  }
}
