/// The query items of `POST /report`: `format` (pdf, png or svg; pdf by default), `page` (PNG:
/// from 1, default 1), `scale` (PNG: pixels per point, default 1), `timeout` (milliseconds).
struct ReportOptions: Sendable {
  enum Format: String, Sendable, CaseIterable {
    case pdf, png, svg
    var contentType: String {
      switch self {
      case .pdf: "application/pdf"
      case .png: "image/png"
      case .svg: "image/svg+xml"
      }
    }
  }
  var format = Format.pdf
  var page = 1
  var scale = 1.0
  var timeoutMilliseconds: Int?

  init(_ query: [(Substring, Substring)], limits: ServerLimits) throws(RequestError) {
    var seen = Set<Substring>()
    for (key, value) in query {
      guard seen.insert(key).inserted else { throw .bad(String(key), "given more than once") }
      switch key {
      case "format":
        guard let format = Format(rawValue: String(value)) else {
          throw .bad("format", "must be pdf, png or svg (got '\(value.prefix(40))')")
        }
        self.format = format
      case "page": page = try StrictNumber.integer(value, field: "page", 1...limits.maximumPages)
      case "scale":
        scale = try StrictNumber.double(value, field: "scale")
        guard TileRequest.scaleRange.contains(scale) else {
          throw .bad(
            "scale",
            "must be from \(TileRequest.scaleRange.lowerBound) to \(TileRequest.scaleRange.upperBound) (got \(value))")
        }
      case "timeout": timeoutMilliseconds = try TileRequest.timeout(value, limits: limits)
      default: throw .bad(String(key), "unknown query item (known: format, page, scale, timeout)")
      }
    }
    if format != .png, seen.contains("page") || seen.contains("scale") {
      throw .bad(
        seen.contains("page") ? "page" : "scale",
        "applies to format=png only (PDF holds every page; SVG stacks every page, as the library writes it)")
    }
  }
}
