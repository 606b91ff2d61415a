import OrderedCollections

extension FontCoverage {
  /// The coverages of the parts of one text as one: counts added up, entries in order of first
  /// use. For text longer than one layout takes (see ``TextLimits``), checked a part at a time.
  ///
  /// ```swift
  /// let parts = try chapters.map { try FontCoverage(.plain($0), style: style) }
  /// let book = FontCoverage(combining: parts)
  /// ```
  public init(combining parts: [FontCoverage]) {
    var fonts: OrderedDictionary<ScriptFont, Int> = [:]
    var missing: OrderedDictionary<MissingCharacter, Int> = [:]
    for part in parts {
      for font in part.fonts { fonts[font.counted(0), default: 0] += font.characterCount }
      for character in part.missing { missing[character.counted(0), default: 0] += character.count }
    }
    self.init(
      primaryFontFamily: parts.first?.primaryFontFamily ?? "",
      fonts: fonts.map { font, count in font.counted(count) },
      missing: missing.map { character, count in character.counted(count) })
  }
}

extension FontCoverage.ScriptFont {
  /// The same font and script with another count.
  fileprivate func counted(_ count: Int) -> Self {
    Self(script: script, fontFamily: fontFamily, fontFile: fontFile, characterCount: count, isFallback: isFallback)
  }
}

extension FontCoverage.MissingCharacter {
  /// The same character with another count.
  fileprivate func counted(_ count: Int) -> Self { Self(scalar: scalar, script: script, count: count) }
}
