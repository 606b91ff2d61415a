extension Size {
  /// ISO A4 paper, 210 × 297 mm, in points (1 pt = 1/72 in).
  ///
  /// ```swift
  /// var document = ReportDocument(pageSize: .a4)
  /// ```
  public static let a4 = Size(width: 595.2756, height: 841.8898)

  /// US Letter paper, 8.5 × 11 in, in points.
  public static let letter = Size(width: 612, height: 792)

  /// A page size from millimetres.
  public static func millimetres(width: Double, height: Double) -> Size {
    Size(width: width * 72 / 25.4, height: height * 72 / 25.4)
  }
}
