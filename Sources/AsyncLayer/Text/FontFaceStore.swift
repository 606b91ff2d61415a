internal import CCairo

/// The FreeType faces every thread's text is drawn with: one per font file and face index, for the
/// life of the process, opened by the library itself instead of by cairo.
///
/// Why: cairo 1.16 (and cairo's master as of 2026) opens the FreeType faces of fonts it finds by
/// file name in one process-wide table and keeps at most ten open. To open an eleventh it closes
/// one that *looks* unused (`_has_unlocked_face` reads another font's lock count without taking
/// that font's lock), and it calls `FT_New_Face` on its shared `FT_Library` outside any lock. With
/// more than ten font files in use — any feed with bold, italic, CJK and emoji — two threads close a
/// face the other is using, or corrupt the library's face list: segfaults in `FT_Set_Char_Size`,
/// `FT_Done_Face`, "free(): invalid pointer" (`../shared/repro/`, `bench/repro/`).
///
/// A font whose fontconfig pattern carries an `FT_Face` is a "from face" font to cairo: cairo never
/// opens or closes it, and it still locks the face's own mutex around every use, so one face can be
/// shared by every thread. The thread font maps (``ThreadSafeFontMap``) put the faces of this store
/// into their patterns. Faces are opened under this store's lock, as FreeType requires for
/// `FT_New_Face` on one `FT_Library`.
///
/// Faces are never closed: cairo keys its font table by the `FT_Face` address, so a closed face
/// whose address a new face reused would be mistaken for it. The store holds one face per font
/// file actually drawn (`openFaceCount`), typically tens; each costs tens of kilobytes (the file
/// itself is memory-mapped and shared).
final class FontFaceStore: Sendable {
  /// A font file and the face index inside it (fontconfig's `FC_INDEX`, named instances included).
  struct FaceKey: Hashable, Sendable {
    var path: String
    var index: Int
  }

  // An FT_Face, only ever used through cairo, which serializes every use with the face's own lock.
  private struct Face: @unchecked Sendable {
    let raw: FT_Face
  }

  private struct State: ~Copyable {
    // Exclusively owned by this state; FreeType's library is used only under the store's lock.
    var library: FT_Library?
    var faces: [FaceKey: Face] = [:]
    var failures: Set<FaceKey> = []
  }

  private let state: Mutex<State>

  /// The store of this process.
  static let shared = FontFaceStore()

  private init() {
    var library: FT_Library?
    if FT_Init_FreeType(&library) != 0 { library = nil }
    state = Mutex(State(library: library))
  }

  /// The face for `key`, opened on first use; nil when FreeType cannot open it (cairo then opens
  /// the font by file name, as it would without this store).
  func face(for key: FaceKey) -> FT_Face? {
    state.withLock { state -> Face? in
      if let face = state.faces[key] { return face }
      guard let library = state.library, !state.failures.contains(key) else { return nil }
      var face: FT_Face?
      guard FT_New_Face(library, key.path, FT_Long(key.index), &face) == 0, let face else {
        state.failures.insert(key)
        return nil
      }
      state.faces[key] = Face(raw: face)
      return Face(raw: face)
    }?.raw
  }

  /// True when `face` was opened by this store.
  func owns(_ face: FT_Face) -> Bool {
    state.withLock { state in state.faces.values.contains { $0.raw == face } }
  }

  /// Faces opened so far.
  var openFaceCount: Int { state.withLock { $0.faces.count } }
}
