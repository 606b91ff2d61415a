internal import CCairo
import Foundation

/// The PDF's named destinations and outline, worked out from a finished ``ReportLayout``.
///
/// cairo 1.16 resolves a link tag with `page=N` only when page N has already been emitted, so a
/// contents entry pointing forward came out as an annotation with neither `/Dest` nor `/A`. Named
/// destinations (`CAIRO_TAG_DEST`) are resolved when the document finishes, forward or backward:
/// each heading gets one, as does any other place a link points to, and the links and the
/// outline refer to them by name.
struct ReportNavigation {
  /// A named place on a page, in points from the page's top-left corner.
  struct Destination: Hashable {
    let name: String
    let x: Double
    let y: Double
  }

  /// One outline (bookmark) entry: a heading's title, its level, and its destination.
  struct OutlineEntry: Hashable {
    let title: String
    let level: Int
    let destination: String
  }

  /// The destinations to declare on each page (index from 0).
  private(set) var destinations: [Int: [Destination]] = [:]
  /// The destination name of every in-document link target.
  private(set) var names: [ReportLinkTarget: String] = [:]
  /// The headings in document order.
  private(set) var outline: [OutlineEntry] = []

  init(_ layout: ReportLayout) {
    var headingAt: [ReportLinkTarget: String] = [:]
    for (index, page) in layout.pages.enumerated() {
      for case .text(let run) in page.elements {
        // A heading's first line: a heading split over two pages has its destination at its start.
        guard case .heading(let level) = run.role, let block = run.blockIndex, run.lines.lowerBound == 0 else {
          continue
        }
        let name = "heading-\(block)"
        destinations[index, default: []].append(Destination(name: name, x: run.frame.minX, y: run.frame.minY))
        headingAt[.page(page.number, y: run.frame.minY)] = name
        outline.append(OutlineEntry(title: Self.title(of: run.content), level: level, destination: name))
      }
    }
    for page in layout.pages {
      for case .link(_, let target) in page.elements {
        guard case .page(let number, let y) = target, names[target] == nil else { continue }
        if let name = headingAt[target] {
          names[target] = name
        } else if layout.pages.indices.contains(number - 1), y.isFinite {
          let name = "place-\(names.count)"
          names[target] = name
          destinations[number - 1, default: []].append(Destination(name: name, x: 0, y: y))
        }
      }
    }
  }

  /// The heading's text as a reader sees it: plain text as is, markup without its tags.
  static func title(of content: TextContent) -> String {
    switch content {
    case .plain(let text): return text
    case .attributed(let text): return text.string
    case .markup(let text):
      var plain = ""
      var inTag = false
      for character in text {
        if character == "<" {
          inTag = true
        } else if character == ">" {
          inTag = false
        } else if !inTag {
          plain.append(character)
        }
      }
      return plain.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
        .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
        .replacingOccurrences(of: "&amp;", with: "&")
    }
  }

  /// Declares page `index`'s destinations (before anything else is drawn on it).
  func declareDestinations(onPage index: Int, in cr: OpaquePointer) {
    for destination in destinations[index] ?? [] {
      let attributes =
        "name='\(DrawingContext.tagString(destination.name))' x=\(destination.x) y=\(destination.y)"
      cairo_tag_begin(cr, CAIRO_TAG_DEST, attributes)
      cairo_tag_end(cr, CAIRO_TAG_DEST)
    }
  }

  /// Adds the outline to `surface`, nesting each heading under the nearest earlier heading of a
  /// smaller level.
  func addOutline(to surface: OpaquePointer) {
    var parents: [(level: Int, id: Int32)] = []
    for entry in outline {
      while let last = parents.last, last.level >= entry.level { parents.removeLast() }
      let parent = parents.last?.id ?? Int32(CAIRO_PDF_OUTLINE_ROOT)
      let link = "dest='\(DrawingContext.tagString(entry.destination))'"
      let id = cairo_pdf_surface_add_outline(surface, parent, entry.title, link, cairo_pdf_outline_flags_t(0))
      parents.append((entry.level, id))
    }
  }
}
