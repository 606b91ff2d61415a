package import AsyncLayer

/// A deterministic stream of text tiles that varies everything a real feed varies: family, weight,
/// italic, size, scale, script (Latin, Greek, Cyrillic, CJK, Arabic, Hebrew, Devanagari, Thai,
/// colour emoji) and inline markup that switches fonts mid-line.
///
/// The concurrency tests and `layerbench throughput --workload mixed` both use it, so the
/// benchmark measures the workload the tests prove safe. Tile `i` is always the same tile.
///
/// ```swift
/// let tile = MixedTextWorkload.tile(17)   // same family, size, scale and text on every call
/// ```
package enum MixedTextWorkload {
  /// Families that resolve to different font files (fallback covers the scripts a family lacks).
  package static let families = [
    "Sans", "Serif", "Monospace", "DejaVu Sans", "Noto Sans CJK SC", "Noto Serif CJK JP", "Noto Color Emoji",
    "Lohit Devanagari", "Loma",
  ]

  /// One paragraph per script, plus mixed lines.
  package static let texts: [TextContent] = [
    .plain("Smooth scrolling needs every frame within 16.7 ms; drawing text off the main thread keeps lists fluid."),
    .plain("异步绘制把文字排版和栅格化放到后台线程，主线程只提交结果，滚动因此保持流畅。"),
    .plain("非同期描画では、テキストのレイアウトとラスタライズを背景スレッドで行います。"),
    .plain("비동기 그리기는 텍스트 배치와 래스터화를 백그라운드 스레드에서 수행합니다."),
    .plain("الرسم غير المتزامن يحافظ على سلاسة القائمة أثناء التمرير السريع."),
    .plain("הציור האסינכרוני שומר על רשימה חלקה בזמן גלילה מהירה."),
    .plain("Асинхронная отрисовка сохраняет плавность прокрутки длинных списков."),
    .plain("Η ασύγχρονη σχεδίαση κρατά την κύλιση ομαλή."),
    .plain("हिन्दी पाठ का आकार और रेखांकन पृष्ठभूमि में होता है। क्षत्रिय द्वार स्त्री"),
    .plain("ภาษาไทยไม่มีช่องว่างระหว่างคำจึงต้องตัดคำด้วยพจนานุกรม"),
    .plain("Emoji and symbols: 😀 🎉 🚀 🌍 👩🏽‍💻 🇯🇵 ❤️ — “quotes”, ½, ∑, →, ©."),
    .plain("Mixed: Swift 6 并发 with Pango 1.50 و Cairo 1.16 — 描画 test 123 हिन्दी ไทย 🎉"),
    .markup("<b>Ada Lovelace</b> replied: <i>see the notes</i> — <span font_family=\"Serif\">footnote G</span> 注释"),
    .markup(
      "<span font_family=\"Monospace\" weight=\"bold\">let x = 42</span> and <span size=\"x-large\">big</span> العربية"),
    .markup(
      "<span font_family=\"Noto Serif CJK JP\">縦書き</span> <b>太字</b> <i>ภาษาไทย</i> <span weight=\"100\">thin</span>"),
  ]

  /// Scales from 1 to 3, fractional ones included.
  package static let scales: [Double] = [1, 1.5, 2, 2.5, 3]

  /// Tile `index` of the stream: every property comes from its own hash of the index, so
  /// neighbouring tiles differ in several ways at once.
  package static func tile(_ index: Int) -> TextTile {
    var random = SplitMix64(seed: UInt64(truncatingIfNeeded: index))
    let family = families[random.next(below: families.count)]
    let weight = FontWeight.allCases[random.next(below: FontWeight.allCases.count)]
    var style = TextStyle(
      fontFamily: family, fontSize: Double(9 + random.next(below: 28)), weight: weight,
      isItalic: random.next(below: 2) == 0)
    style.color =
      [Color.black, Color(red: 0.1, green: 0.2, blue: 0.6), Color(red: 0.7, green: 0.1, blue: 0.1)][
        random.next(below: 3)]
    style.alignment = [.left, .center, .right, .justify][random.next(below: 4)]
    style.maxLines = random.next(below: 3) == 0 ? 2 : 0
    style.ellipsize = style.maxLines > 0 ? .end : .none
    let content = texts[random.next(below: texts.count)]
    let width = Double(140 + 20 * random.next(below: 10))
    let scale = scales[random.next(below: scales.count)]
    return TextTile(
      content, style: style, width: width, scale: scale, padding: EdgeInsets(all: 4), background: .white)
  }
}
