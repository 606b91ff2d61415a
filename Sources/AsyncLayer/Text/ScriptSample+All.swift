extension ScriptSample {
  /// One sentence per script the project promises to render (see the README's script table).
  public static let all: [ScriptSample] = [
    ScriptSample(
      script: "Latin", name: "latin", language: "en", text: "The quick brown fox jumps over the lazy dog."),
    ScriptSample(
      script: "Greek", name: "greek", language: "el", text: "Η γρήγορη καφέ αλεπού πηδά πάνω από τον τεμπέλη σκύλο."),
    ScriptSample(
      script: "Cyrillic", name: "cyrillic", language: "ru",
      text: "Съешь же ещё этих мягких французских булок, да выпей чаю."),
    ScriptSample(
      script: "Arabic", name: "arabic", language: "ar", text: "النص العربي يكتب من اليمين إلى اليسار وتتصل حروفه."),
    ScriptSample(script: "Hebrew", name: "hebrew", language: "he", text: "עברית נכתבת מימין לשמאל."),
    ScriptSample(
      script: "Devanagari", name: "devanagari", language: "hi", text: "हिन्दी पाठ का आकार और संयुक्ताक्षर क्ष, त्र, ज्ञ।"),
    ScriptSample(script: "Bengali", name: "bengali", language: "bn", text: "বাংলা লিপিতে অনেক যুক্তাক্ষর আছে।"),
    ScriptSample(script: "Tamil", name: "tamil", language: "ta", text: "தமிழ் எழுத்துகள் அழகானவை."),
    ScriptSample(script: "Telugu", name: "telugu", language: "te", text: "తెలుగు భాష అందమైనది."),
    ScriptSample(script: "Gujarati", name: "gujarati", language: "gu", text: "ગુજરાતી લિપિ સુંદર છે."),
    ScriptSample(
      script: "Gurmukhi", name: "gurmukhi", language: "pa", text: "ਪੰਜਾਬੀ ਗੁਰਮੁਖੀ ਲਿਪੀ ਵਿੱਚ ਲਿਖੀ ਜਾਂਦੀ ਹੈ।"),
    ScriptSample(script: "Kannada", name: "kannada", language: "kn", text: "ಕನ್ನಡ ಭಾಷೆ ಸುಂದರವಾಗಿದೆ."),
    ScriptSample(script: "Malayalam", name: "malayalam", language: "ml", text: "മലയാളം ഒരു ദ്രാവിഡ ഭാഷയാണ്."),
    ScriptSample(script: "Sinhala", name: "sinhala", language: "si", text: "සිංහල අකුරු ලස්සනයි."),
    ScriptSample(
      script: "Thai", name: "thai", language: "th",
      words: [
        "ภาษา", "ไทย", "ไม่", "มี", "ช่อง", "ว่าง", "ระหว่าง", "คำ", "โปรแกรม", "จึง", "ต้อง", "รู้", "ว่า", "คำ",
        "แต่", "ละ", "คำ", "เริ่ม", "และ", "จบ", "ที่", "ใด", "เพื่อ", "ตัด", "บรรทัด", "ให้", "ถูก", "ต้อง",
      ], separator: ""),
    ScriptSample(
      script: "Lao", name: "lao", language: "lo",
      words: ["ພາສາ", "ລາວ", "ບໍ່", "ມີ", "ຍະຫວ່າງ", "ລະຫວ່າງ", "ຄຳ", "ເຊັ່ນ", "ດຽວ", "ກັບ", "ພາສາ", "ໄທ"],
      separator: zeroWidthSpace),
    ScriptSample(
      script: "Khmer", name: "khmer", language: "km",
      words: ["ភាសា", "ខ្មែរ", "មិន", "ដក", "ឃ្លា", "រវាង", "ពាក្យ", "ទេ", "ដូច", "ភាសា", "ថៃ", "ដែរ"],
      separator: zeroWidthSpace),
    ScriptSample(
      script: "Myanmar", name: "myanmar", language: "my",
      words: ["မြန်မာ", "စာ", "သည်", "စကားလုံး", "များ", "ကြား", "တွင်", "ကွက်လပ်", "မ", "ထား", "ပါ။"],
      separator: zeroWidthSpace),
    ScriptSample(script: "Georgian", name: "georgian", language: "ka", text: "ქართული დამწერლობა ლამაზია."),
    ScriptSample(script: "Armenian", name: "armenian", language: "hy", text: "Հայերենն ունի իր այբուբենը։"),
    ScriptSample(script: "Ethiopic", name: "ethiopic", language: "am", text: "አማርኛ በግዕዝ ፊደል ይጻፋል።"),
    ScriptSample(
      script: "CJK (Simplified Chinese)", name: "cjk-sc", language: "zh-CN", text: "简体中文的字形与繁体不同，例如“说”和“門”。"),
    ScriptSample(
      script: "CJK (Traditional Chinese)", name: "cjk-tc", language: "zh-TW", text: "繁體中文的字形與簡體不同，例如「說」和「门」。"),
    ScriptSample(
      script: "CJK (Japanese)", name: "cjk-ja", language: "ja", text: "日本語はひらがな、カタカナ、漢字で書きます。"),
    ScriptSample(script: "CJK (Korean)", name: "cjk-ko", language: "ko", text: "한국어는 한글로 씁니다. 글자는 음절 단위로 모입니다."),
    ScriptSample(script: "Colour emoji", name: "emoji", language: "en", text: "😀 🎉 🚀 🌍 👩🏽‍💻 🇯🇵 ❤️ 🧪"),
    ScriptSample(
      script: "Common symbols", name: "symbols", language: "en",
      text: "→ ⇒ ∑ ∞ ≠ ≤ ± € £ ¥ ₹ ₽ © ® ™ ✓ ✗ ★ ☎ ♠ ♥ ⌘ ⏎ ⚠ ☀ ① ½ • …"),
  ]
}
