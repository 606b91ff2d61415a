internal import CCairo

/// The tagged-PDF structure of a report's pages: which structure element (H1–H6, P, Table, TR, TH,
/// TD, TOC, TOCI, Figure, Link) each drawn element belongs to.
///
/// cairo 1.16 writes a structure tree from `cairo_tag_begin`/`cairo_tag_end` pairs: content drawn
/// between them is marked with an MCID and becomes the element's content, and a link tag inside
/// becomes a `Link` element holding its annotation. Tags must nest, so the structure keeps the
/// open elements as a stack and, for each page element, closes what the element is not part of and
/// opens what it is part of. Every element is closed at the end of each page (a paragraph that
/// continues on the next page is a second `P`). Other surfaces ignore tags, but only PDF output
/// builds a structure (PNG and SVG draw without one).
///
/// An element kind added to ``ReportElement`` gets its place in ``path(for:index:)``; a drawing
/// that is not a page element is tagged with ``tagged(_:in:_:)``:
///
/// ```swift
/// try ReportStructure.tagged("Figure", in: context) { try chart.draw(in: context) }
/// ```
final class ReportStructure {
  /// One open structure element: its tag and what tells it apart from a sibling of the same tag
  /// (a block index, a row, a column).
  struct Node: Equatable {
    let tag: String
    let key: Int
  }

  private let cr: OpaquePointer
  private var open: [Node] = []
  /// How many of the outermost open elements enclose the whole document (a `Document` element
  /// spanning the pages): page elements open and close inside them.
  private var rootCount = 0
  /// Tags that hold other elements: decorations drawn between their children (table rules and
  /// stripes) stay inside them.
  private static let containers: Set<String> = ["Table", "TOC", "L"]

  init(_ context: DrawingContext) { cr = context.cairo.raw }

  /// Draws `body` as the content of a new structure element `tag` (PDF only; other surfaces
  /// ignore tags).
  static func tagged<R>(_ tag: String, in context: DrawingContext, _ body: () throws -> R) rethrows -> R {
    cairo_tag_begin(context.cairo.raw, tag, "")
    defer { cairo_tag_end(context.cairo.raw, tag) }
    return try body()
  }

  /// The structure elements `element` (the `index`th of its page) belongs to, outermost first;
  /// nil for an element that joins whatever is open (a link joins the text it covers).
  static func path(for element: ReportElement, index: Int) -> [Node]? {
    switch element {
    case .text(let run):
      let block = run.blockIndex ?? -1
      switch run.role {
      case .title: return [Node(tag: "H1", key: block)]
      case .heading(let level): return [Node(tag: "H\(min(6, max(1, level)))", key: block)]
      case .paragraph: return [Node(tag: "P", key: block)]
      case .tableHeader(let column):
        return [Node(tag: "Table", key: block), Node(tag: "TR", key: -1), Node(tag: "TH", key: column)]
      case .tableCell(let row, let column):
        return [Node(tag: "Table", key: block), Node(tag: "TR", key: row), Node(tag: "TD", key: column)]
      case .tableOfContents(let entry), .contentsLeader(let entry):
        return [Node(tag: "TOC", key: block), Node(tag: "TOCI", key: entry)]
      // Items of nested lists are items of the block's one L: the role does not say whose sublist
      // an item is in, and a flat list still reads in order with its labels.
      case .listMarker(let item):
        return [Node(tag: "L", key: block), Node(tag: "LI", key: item), Node(tag: "Lbl", key: 0)]
      case .listItem(let item, _):
        return [Node(tag: "L", key: block), Node(tag: "LI", key: item), Node(tag: "LBody", key: 0)]
      // Page headers and footers are artifacts, which cairo 1.16 cannot mark: left outside the tree.
      case .header, .footer: return []
      }
    case .image, .figure: return [Node(tag: "Figure", key: index)]
    case .link: return nil
    // Rules and fills: inside an open table, outside any paragraph or cell.
    case .fill, .stroke: return []
    }
  }

  /// Brings the open elements in line with `element` before it is drawn.
  func enter(_ element: ReportElement, index: Int) {
    guard let path = Self.path(for: element, index: index) else { return }
    if path.isEmpty {
      closeLeaves()
    } else {
      move(to: path)
    }
  }

  /// Opens `root` around everything drawn until ``closeAll()``.
  func openRoot(_ root: Node) {
    move(to: [root])
    rootCount = open.count
  }

  /// Closes the open elements down to the common start with `path` (inside the root), then opens
  /// the rest of it.
  func move(to innerPath: [Node]) {
    let path = Array(open.prefix(rootCount)) + innerPath
    var common = 0
    while common < open.count, common < path.count, open[common] == path[common] { common += 1 }
    while open.count > common { cairo_tag_end(cr, open.removeLast().tag) }
    for node in path[common...] {
      cairo_tag_begin(cr, node.tag, "")
      open.append(node)
    }
  }

  /// Closes the open elements inside the innermost open container.
  func closeLeaves() {
    while open.count > rootCount, let last = open.last, !Self.containers.contains(last.tag) {
      cairo_tag_end(cr, open.removeLast().tag)
    }
  }

  /// Closes the open elements inside the root (the end of a page).
  func closePage() {
    while open.count > rootCount { cairo_tag_end(cr, open.removeLast().tag) }
  }

  /// Closes every open element, the root included (before the last page is emitted).
  func closeAll() {
    rootCount = 0
    while let last = open.popLast() { cairo_tag_end(cr, last.tag) }
  }
}
