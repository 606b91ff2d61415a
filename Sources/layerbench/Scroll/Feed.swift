import AsyncLayer
import Foundation

/// The 1000-row feed the scroll benchmark shows: a bold title and a wrapped regular body of varying
/// length per row (Latin, Chinese/Japanese or Arabic), and an image on every fifth row.
struct Feed: Sendable {
  struct Row: Sendable {
    let index: Int
    let title: String
    let body: String
    let imageIndex: Int?
    let height: Double
    let y: Double
  }

  static let width = 375.0
  static let padding = 12.0
  static let imageHeight = 120.0
  static let titleStyle = TextStyle(fontFamily: "Sans", fontSize: 15, weight: .bold, maxLines: 1)
  static let bodyStyle = TextStyle(fontFamily: "Sans", fontSize: 13, color: Color(red: 0.25, green: 0.25, blue: 0.25))

  let rows: [Row]
  let contentHeight: Double

  /// `bodyLength` multiplies each body's word count (so its lines); `imageEvery` puts an image on
  /// every Nth row.
  init(rowCount: Int, imageCount: Int, bodyLength: Double = 1, imageEvery: Int = 5) throws {
    let words = [
      "layers", "draw", "off", "the", "main", "thread", "while", "lists", "scroll", "fast", "and", "every", "cell",
      "shows", "text", "with", "images", "cancelled", "when", "it", "leaves", "screen", "before", "commit", "loop",
    ]
    let cjkWords = [
      "图层", "在后台", "绘制", "列表", "滚动", "很快", "每个", "单元格", "显示", "文字", "和", "图片", "非同期", "描画", "取消", "される",
    ]
    let arabicWords = [
      "الطبقات", "ترسم", "خارج", "الخيط", "الرئيسي", "بينما", "القوائم", "تتمرر", "بسرعة", "وكل", "خلية", "تعرض",
      "النص",
    ]
    var rows: [Row] = []
    var y = 0.0
    let textWidth = Self.width - 2 * Self.padding
    let measurer = TextMeasurer(capacity: 4096)
    for index in 0..<rowCount {
      // A deterministic spread of body lengths: 12 to 170 words (2 to ~20 lines).
      let wordCount = max(1, Int((Double(12 + (index * 37 % 159)) * bodyLength).rounded()))
      // Mixed scripts as in a real feed: every sixth row from the third is Chinese and Japanese,
      // every sixth from the fifth Arabic (font fallback to Noto CJK and DejaVu/Noto Arabic).
      let vocabulary = index % 6 == 2 ? cjkWords : index % 6 == 4 ? arabicWords : words
      let separator = index % 6 == 2 ? "" : " "
      let body =
        (0..<wordCount).map { vocabulary[($0 * 11 + index * 3) % vocabulary.count] }.joined(separator: separator) + "."
      let title = "Row \(index + 1) · \(words[index % words.count]) \(words[(index * 7) % words.count])"
      let imageIndex = index % max(imageEvery, 1) == 0 ? (index / max(imageEvery, 1)) % max(imageCount, 1) : nil
      let titleHeight = try measurer.size(
        of: .plain(title), style: Self.titleStyle, width: textWidth, scale: 2
      ).height
      let bodyHeight = try measurer.size(of: .plain(body), style: Self.bodyStyle, width: textWidth, scale: 2)
        .height
      var height = Self.padding + titleHeight + 4 + bodyHeight + Self.padding
      if imageIndex != nil { height += Self.imageHeight + 8 }
      height = height.rounded(.up)
      rows.append(Row(index: index, title: title, body: body, imageIndex: imageIndex, height: height, y: y))
      y += height
    }
    self.rows = rows
    contentHeight = y
  }

  /// Rows that intersect `[top, top + height)`.
  func visibleRange(top: Double, height: Double) -> Range<Int> {
    guard !rows.isEmpty else { return 0..<0 }
    var low = 0
    var high = rows.count - 1
    while low < high {  // first row whose bottom is below `top`
      let mid = (low + high) / 2
      if rows[mid].y + rows[mid].height <= top { low = mid + 1 } else { high = mid }
    }
    var end = low
    while end < rows.count && rows[end].y < top + height { end += 1 }
    return low..<end
  }

  /// Rows that intersect a range of content points (empty for an empty or non-finite range).
  func rows(in range: Range<Double>) -> Range<Int> {
    guard range.lowerBound.isFinite, range.upperBound.isFinite else { return 0..<0 }
    return visibleRange(top: range.lowerBound, height: range.upperBound - range.lowerBound)
  }

  /// Generates the local image set: PNG files of gradients and shapes, 750×375 px.
  static func writeImages(count: Int, to directory: URL) throws -> [String] {
    try FileAccess.createDirectory(directory.path)
    return try (0..<count).map { index in
      let hue = Double(index) / Double(max(count, 1))
      let image = try ImageRenderer(size: Size(width: 375, height: 187.5), scale: 2).render { context in
        for band in 0..<15 {
          let t = Double(band) / 15
          context.fill(
            Rect(x: Double(band) * 25, y: 0, width: 25, height: 187.5),
            color: Color(red: 0.3 + 0.6 * hue, green: 0.3 + 0.5 * t, blue: 0.9 - 0.6 * hue))
        }
        context.fill(
          roundedRect: Rect(x: 120, y: 50, width: 135, height: 90), cornerRadius: 16, color: .white.withAlpha(0.7))
      }
      let path = directory.appendingPathComponent("image-\(index).png").path
      try FileAccess.write(image.pngData(), to: path)
      return path
    }
  }
}
