internal import CCairo

/// Pango's cairo font map, subclassed so that its fonts draw with the shared faces of
/// ``FontFaceStore`` instead of faces cairo opens and closes behind every thread's back.
///
/// The subclass overrides one virtual function, `PangoFcFontMapClass.create_font`: it lets Pango
/// create the font as usual, then gives the font a copy of its fontconfig pattern with `FC_FT_FACE`
/// set. cairo creates a font's cairo face lazily from that pattern (`cairo_ft_font_face_create_for_
/// pattern`), on first use, so every cairo face of these fonts is a "from face" one.
///
/// `PangoFcFontMapClass` is not in Pango's installed headers since 1.44, though its layout has not
/// changed since 1.24 (GObject class structs of derivable types are ABI). Before overriding
/// anything, ``register()`` checks that layout against the running Pango: the class size and which
/// of its 14 slots the cairo font map fills. On a Pango that does not match, no subclass is made and
/// ``make()`` returns Pango's own font map (with cairo's face handling and its races).
enum ThreadSafeFontMap {
  private typealias CreateFont =
    @convention(c) (
      UnsafeMutableRawPointer?, UnsafeMutableRawPointer?
    ) -> UnsafeMutableRawPointer?

  /// The slots of `PangoFcFontMapClass` after its `PangoFontMapClass`: default_substitute,
  /// new_font, get_resolution, five context_key functions, fontset_key_substitute, create_font,
  /// then four reserved.
  private static let fcSlotCount = 14
  private static let createFontSlot = 9

  private struct Registration: Sendable {
    /// Pango's cairo font map type (the parent).
    var parent: GType
    /// The subclass.
    var type: GType
  }

  private static let registration: Registration? = register()

  /// True when the subclass is in use (the running Pango has the expected layout).
  static var isAvailable: Bool { registration != nil }

  /// A new font map for one thread: the subclass when available, else Pango's cairo font map.
  static func make() -> UnsafeMutablePointer<PangoFontMap> {
    PangoFontHooks.ensureInstalled()
    guard let registration, let object = g_object_new_with_properties(registration.type, 0, nil, nil) else {
      return pango_cairo_font_map_new_for_font_type(CAIRO_FONT_TYPE_FT)
    }
    return UnsafeMutableRawPointer(object).assumingMemoryBound(to: PangoFontMap.self)
  }

  private static func slots(of classPointer: UnsafeMutableRawPointer) -> UnsafeMutablePointer<UnsafeMutableRawPointer?>
  {
    (classPointer + MemoryLayout<PangoFontMapClass>.size).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
  }

  private static func register() -> Registration? {
    guard let probe = pango_cairo_font_map_new_for_font_type(CAIRO_FONT_TYPE_FT) else { return nil }
    let parent = UnsafeMutableRawPointer(probe).assumingMemoryBound(to: GTypeInstance.self).pointee.g_class.pointee
      .g_type
    g_object_unref(probe)
    var query = GTypeQuery()
    g_type_query(parent, &query)
    let pointerSize = MemoryLayout<UnsafeRawPointer>.size
    guard Int(query.class_size) == MemoryLayout<PangoFontMapClass>.size + fcSlotCount * pointerSize,
      let parentClass = g_type_class_ref(parent)
    else { return nil }
    defer { g_type_class_unref(parentClass) }
    // The cairo font map fills get_resolution, the context_key functions, fontset_key_substitute
    // and create_font; the deprecated pair and the reserved slots stay empty.
    let parentSlots = slots(of: parentClass)
    let expectedFilled = (0..<fcSlotCount).map { (2...createFontSlot).contains($0) }
    guard (0..<fcSlotCount).allSatisfy({ (parentSlots[$0] != nil) == expectedFilled[$0] }) else { return nil }

    let name = "AsyncLayerThreadSafeFontMap"
    var type = g_type_from_name(name)
    if type == 0 {
      type = g_type_register_static_simple(
        parent, name, query.class_size,
        { classPointer, _ in
          guard let classPointer else { return }
          let create: CreateFont = { fontMap, key in ThreadSafeFontMap.createFont(fontMap, key) }
          ThreadSafeFontMap.slots(of: classPointer)[ThreadSafeFontMap.createFontSlot] = unsafeBitCast(
            create, to: UnsafeMutableRawPointer.self)
          classPointer.assumingMemoryBound(to: PangoFontMapClass.self).pointee.load_fontset = {
            fontMap, context, description, language in
            ThreadSafeFontMap.loadFontset(fontMap, context, description, language)
          }
        }, query.instance_size, nil, GTypeFlags(0))
    }
    return type == 0 ? nil : Registration(parent: parent, type: type)
  }

  /// `load_fontset` (public `PangoFontMapClass`): the fontset the calling thread — the font map's
  /// own thread — loaded before with the same arguments, else Pango's, kept by the thread (see
  /// ``FontsetCache``).
  private static func loadFontset(
    _ fontMap: UnsafeMutablePointer<PangoFontMap>?, _ context: OpaquePointer?,
    _ description: OpaquePointer?, _ language: OpaquePointer?
  ) -> UnsafeMutablePointer<PangoFontset>? {
    let state = PangoThreadState.current
    if let fontMap, let context, let description,
      let known = state.fontset(
        fontMap: OpaquePointer(fontMap), context: context, description: description, language: language)
    {
      return known.assumingMemoryBound(to: PangoFontset.self)
    }
    guard let registration, let parentClass = g_type_class_peek(registration.parent),
      let load = parentClass.assumingMemoryBound(to: PangoFontMapClass.self).pointee.load_fontset,
      let fontset = load(fontMap, context, description, language)
    else { return nil }
    if let fontMap, let context, let description {
      state.keepFontset(
        UnsafeMutableRawPointer(fontset), fontMap: OpaquePointer(fontMap), context: context, description: description,
        language: language)
    }
    return fontset
  }

  /// `create_font`: Pango's, then the pattern swap.
  private static func createFont(
    _ fontMap: UnsafeMutableRawPointer?, _ key: UnsafeMutableRawPointer?
  ) -> UnsafeMutableRawPointer? {
    guard let registration, let parentClass = g_type_class_peek(registration.parent),
      let parentCreate = slots(of: parentClass)[createFontSlot]
    else { return nil }
    let create = unsafeBitCast(parentCreate, to: CreateFont.self)
    guard let created = create(fontMap, key) else { return nil }
    useSharedFace(in: created.assumingMemoryBound(to: PangoFcFont.self))
    return created
  }

  /// Replaces the font's pattern (not yet seen by cairo: the font was created a moment ago) with a
  /// copy that names the store's face for the same file and index.
  private static func useSharedFace(in font: UnsafeMutablePointer<PangoFcFont>) {
    guard let pattern = font.pointee.font_pattern else { return }
    var existing: FT_Face?
    if FcPatternGetFTFace(pattern, FC_FT_FACE, 0, &existing) == FcResultMatch { return }
    var file: UnsafeMutablePointer<FcChar8>?
    guard FcPatternGetString(pattern, FC_FILE, 0, &file) == FcResultMatch, let file else { return }
    var index: Int32 = 0
    if FcPatternGetInteger(pattern, FC_INDEX, 0, &index) != FcResultMatch { index = 0 }
    let path = String(cString: UnsafeRawPointer(file).assumingMemoryBound(to: CChar.self))
    guard let face = FontFaceStore.shared.face(for: .init(path: path, index: Int(index))),
      let copy = FcPatternDuplicate(pattern)
    else { return }
    guard FcPatternAddFTFace(copy, FC_FT_FACE, face) != 0 else {
      FcPatternDestroy(copy)
      return
    }
    font.pointee.font_pattern = copy
    FcPatternDestroy(pattern)
  }
}
