extension FontCoverage.Script {
  /// English names of the ISO 15924 codes of the scripts people most often write (and of
  /// GLib's pseudo-scripts); other scripts are shown by code.
  static let names: [String: String] = [
    "Zyyy": "Common", "Zinh": "Inherited", "Zzzz": "Unknown", "Latn": "Latin", "Grek": "Greek",
    "Cyrl": "Cyrillic", "Armn": "Armenian", "Geor": "Georgian", "Hebr": "Hebrew", "Arab": "Arabic",
    "Syrc": "Syriac", "Thaa": "Thaana", "Nkoo": "N'Ko", "Deva": "Devanagari", "Beng": "Bengali",
    "Guru": "Gurmukhi", "Gujr": "Gujarati", "Orya": "Oriya", "Taml": "Tamil", "Telu": "Telugu",
    "Knda": "Kannada", "Mlym": "Malayalam", "Sinh": "Sinhala", "Thai": "Thai", "Laoo": "Lao",
    "Tibt": "Tibetan", "Mymr": "Myanmar", "Khmr": "Khmer", "Mong": "Mongolian", "Ethi": "Ethiopic",
    "Cher": "Cherokee", "Cans": "Canadian Aboriginal", "Tfng": "Tifinagh", "Hani": "Han", "Hira": "Hiragana",
    "Kana": "Katakana", "Hang": "Hangul", "Bopo": "Bopomofo", "Yiii": "Yi", "Java": "Javanese",
    "Bali": "Balinese", "Runr": "Runic", "Ogam": "Ogham", "Copt": "Coptic", "Goth": "Gothic",
    "Zsye": "Emoji", "Zsym": "Symbols", "Olck": "Ol Chiki", "Vaii": "Vai", "Adlm": "Adlam", "Brai": "Braille",
  ]
}
