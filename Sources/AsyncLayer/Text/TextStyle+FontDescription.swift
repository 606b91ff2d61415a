internal import CCairo

extension TextStyle {
  /// A style from a Pango font description such as `"Sans 14"`, `"DejaVu Serif Bold Italic 12"`
  /// or `"Noto Sans CJK SC, Sans 16"`; parts left out keep their defaults.
  public init(font description: String) {
    self.init()
    let font = pango_font_description_from_string(description)
    defer { pango_font_description_free(font) }
    let mask = pango_font_description_get_set_fields(font).rawValue
    if mask & PANGO_FONT_MASK_FAMILY.rawValue != 0, let family = pango_font_description_get_family(font) {
      fontFamily = String(cString: family)
    }
    if mask & PANGO_FONT_MASK_SIZE.rawValue != 0 {
      fontSize = Double(pango_font_description_get_size(font)) / Double(PANGO_SCALE)
    }
    if mask & PANGO_FONT_MASK_WEIGHT.rawValue != 0 {
      let weight = Int(pango_font_description_get_weight(font).rawValue)
      self.weight = FontWeight.allCases.min { abs($0.rawValue - weight) < abs($1.rawValue - weight) } ?? .regular
    }
    if mask & PANGO_FONT_MASK_STYLE.rawValue != 0 {
      isItalic = pango_font_description_get_style(font) != PANGO_STYLE_NORMAL
    }
  }
}
