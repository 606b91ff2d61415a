extension DrawingContext {
  /// Draws a report figure into its frame on the page. Each kind draws itself (Render/): an image
  /// scaled to the frame, an SVG and a chart as vectors, a QR code as one path.
  func draw(_ figure: ReportFigure, in frame: Rect) throws {
    switch figure.content {
    case .image(let image):
      draw(image, in: frame)
    case .svg(let svg):
      draw(svg, in: frame)
    case .chart(let chart):
      try draw(chart, in: frame)
    case .qrCode(let code):
      draw(code, in: frame)
    }
  }
}
