internal import CCairo

/// The tagged-PDF structure of a report's pages: which structure element (H1–H6, P, Table, TR, TH,
/// TD, TOC, TOCI, L, LI, Lbl, LBody, Figure, Link) each drawn element belongs to.
///
/// cairo 1.16 writes a structure tree from `cairo_tag_begin`/`cairo_tag_end` pairs: content drawn
/// between them is marked with an MCID and becomes the element's content, and a link tag inside
/// becomes a `Link` element holding its annotation. Tags must nest, so the structure keeps the
/// open elements as a stack and, for each page element, closes what the element is not part of and
/// opens what it is part of. Every element is closed at the end of each page (a paragraph that
/// continues on the next page is a second `P`). Other surfaces ignore tags, but only PDF output
/// builds a structure (PNG and SVG draw without one).
///
/// This runs once per page element (about 12,000 times for a 2,000-row table), so it allocates
/// nothing per element: tags are small enum values whose names are static C strings, and an
/// element's path is at most three nodes held inline.
///
/// An element kind added to ``ReportElement`` gets its place in ``path(for:index:)``; a drawing
/// that is not a page element is tagged with ``tagged(_:in:_:)``:
///
/// ```swift
/// try ReportStructure.tagged(.figure, in: context) { try chart.draw(in: context) }
/// ```
final class ReportStructure {
  /// A structure type the report writes.
  enum Tag: UInt8 {
    case document, h1, h2, h3, h4, h5, h6, paragraph, table, tableRow, tableHeader, tableCell
    case contents, contentsItem, list, listItem, listLabel, listBody, figure, nonStruct
    /// A link annotation's element: cairo makes these for link tags; only our own tree
    /// (``ReportStructureTree``) names it.
    case link

    /// The heading tag of `level`, clamped to H1–H6.
    static func heading(_ level: Int) -> Tag {
      switch level {
      case ...1: .h1
      case 2: .h2
      case 3: .h3
      case 4: .h4
      case 5: .h5
      default: .h6
      }
    }

    /// The PDF structure type, as the NUL-terminated string cairo reads (a literal: no conversion).
    var name: StaticString {
      switch self {
      case .document: "Document"
      case .h1: "H1"
      case .h2: "H2"
      case .h3: "H3"
      case .h4: "H4"
      case .h5: "H5"
      case .h6: "H6"
      case .paragraph: "P"
      case .table: "Table"
      case .tableRow: "TR"
      case .tableHeader: "TH"
      case .tableCell: "TD"
      case .contents: "TOC"
      case .contentsItem: "TOCI"
      case .list: "L"
      case .listItem: "LI"
      case .listLabel: "Lbl"
      case .listBody: "LBody"
      case .figure: "Figure"
      case .nonStruct: "NonStruct"
      case .link: "Link"
      }
    }

    /// Tags that hold other elements: decorations drawn between their children (table rules and
    /// stripes) stay inside them.
    var isContainer: Bool { self == .table || self == .contents || self == .list }

    /// `name` as a C string: a string literal's storage lives as long as the program.
    private var cName: UnsafePointer<CChar> {
      UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    func begin(_ cr: OpaquePointer) { cairo_tag_begin(cr, cName, "") }

    func end(_ cr: OpaquePointer) { cairo_tag_end(cr, cName) }
  }

  /// One open structure element: its tag and what tells it apart from a sibling of the same tag
  /// (a block index, a row, a column).
  struct Node: Equatable {
    let tag: Tag
    let key: Int
  }

  /// The elements a page element belongs to, outermost first: none to three, held inline.
  struct Path: Equatable {
    private(set) var count = 0
    private var nodes: (Node, Node, Node) = (Self.unused, Self.unused, Self.unused)
    private static let unused = Node(tag: .document, key: 0)

    static let empty = Path()

    init() {}
    init(_ a: Node) { (count, nodes.0) = (1, a) }
    init(_ a: Node, _ b: Node) { (count, nodes.0, nodes.1) = (2, a, b) }
    init(_ a: Node, _ b: Node, _ c: Node) { (count, nodes) = (3, (a, b, c)) }

    subscript(index: Int) -> Node {
      switch index {
      case 0: nodes.0
      case 1: nodes.1
      default: nodes.2
      }
    }

    static func == (lhs: Path, rhs: Path) -> Bool {
      guard lhs.count == rhs.count else { return false }
      for index in 0..<lhs.count where lhs[index] != rhs[index] { return false }
      return true
    }
  }

  private let cr: OpaquePointer
  /// The open elements, outermost first (a stack that never grows past five).
  private var open: [Node] = []
  /// How many of the outermost open elements enclose the whole document (a `Document` element
  /// spanning the pages): page elements open and close inside them.
  private var rootCount = 0
  /// The alternative text of each Figure element opened, in order (nil: none): cairo cannot write
  /// `/Alt`, so the PDF's incremental update adds it (``PDFCatalogUpdate``).
  private(set) var figureAlternativeTexts: [String?] = []
  /// Whether a TH element was opened (the update gives each one `/Scope /Column`).
  private(set) var hasColumnHeaders = false

  init(_ context: DrawingContext) {
    cr = context.cairo.raw
    open.reserveCapacity(8)
  }

  /// Draws `body` as the content of a new structure element `tag` (PDF only; other surfaces
  /// ignore tags).
  static func tagged<R>(_ tag: Tag, in context: DrawingContext, _ body: () throws -> R) rethrows -> R {
    tag.begin(context.cairo.raw)
    defer { tag.end(context.cairo.raw) }
    return try body()
  }

  /// The structure elements `element` (the `index`th of its page) belongs to, outermost first;
  /// nil for an element that joins whatever is open (a link joins the text it covers).
  static func path(for element: ReportElement, index: Int) -> Path? {
    switch element {
    case .text(let run):
      let block = run.blockIndex ?? -1
      switch run.role {
      case .title: return Path(Node(tag: .h1, key: block))
      case .heading(let level): return Path(Node(tag: .heading(level), key: block))
      case .paragraph: return Path(Node(tag: .paragraph, key: block))
      case .tableHeader(let column):
        return Path(
          Node(tag: .table, key: block), Node(tag: .tableRow, key: -1), Node(tag: .tableHeader, key: column))
      case .tableCell(let row, let column):
        return Path(
          Node(tag: .table, key: block), Node(tag: .tableRow, key: row), Node(tag: .tableCell, key: column))
      case .tableOfContents(let entry), .contentsLeader(let entry):
        return Path(Node(tag: .contents, key: block), Node(tag: .contentsItem, key: entry))
      // Items of nested lists are items of the block's one L: the role does not say whose sublist
      // an item is in, and a flat list still reads in order with its labels.
      case .listMarker(let item):
        return Path(Node(tag: .list, key: block), Node(tag: .listItem, key: item), Node(tag: .listLabel, key: 0))
      case .listItem(let item, _):
        return Path(Node(tag: .list, key: block), Node(tag: .listItem, key: item), Node(tag: .listBody, key: 0))
      // Page headers and footers are artifacts, which cairo 1.16 cannot mark: left outside the tree.
      case .header, .footer: return .empty
      }
    case .image, .figure: return Path(Node(tag: .figure, key: index))
    case .link: return nil
    // Rules and fills: inside an open table, outside any paragraph or cell.
    case .fill, .stroke: return .empty
    }
  }

  /// Brings the open elements in line with `element` before it is drawn.
  func enter(_ element: ReportElement, index: Int) {
    guard let path = Self.path(for: element, index: index) else { return }
    switch element {
    case .figure(let figure, _): figureAlternativeTexts.append(figure.alternativeText)
    case .image: figureAlternativeTexts.append(nil)
    case .text(let run): if case .tableHeader = run.role { hasColumnHeaders = true }
    default: break
    }
    if path.count == 0 {
      closeLeaves()
    } else {
      move(to: path)
    }
  }

  /// Opens `root` around everything drawn until ``closeAll()``.
  func openRoot(_ root: Tag) {
    closeAll()
    root.begin(cr)
    open.append(Node(tag: root, key: 0))
    rootCount = open.count
  }

  /// Closes the open elements down to the common start with `path` (inside the root), then opens
  /// the rest of it.
  func move(to path: Path) {
    var common = 0
    while common < path.count, rootCount + common < open.count, open[rootCount + common] == path[common] {
      common += 1
    }
    while open.count > rootCount + common { open.removeLast().tag.end(cr) }
    for index in common..<path.count {
      let node = path[index]
      node.tag.begin(cr)
      open.append(node)
    }
  }

  /// Closes the open elements inside the innermost open container.
  func closeLeaves() {
    while open.count > rootCount, let last = open.last, !last.tag.isContainer {
      open.removeLast().tag.end(cr)
    }
  }

  /// Closes the open elements inside the root (the end of a page).
  func closePage() {
    while open.count > rootCount { open.removeLast().tag.end(cr) }
  }

  /// Closes every open element, the root included (before the last page is emitted).
  func closeAll() {
    rootCount = 0
    while let last = open.popLast() { last.tag.end(cr) }
  }
}
