/// A structure tree to print into a PDF ourselves (issue 29, goal 6): the elements, each with its
/// kids in reading order, and the objects that print them. ``ReportStructureTree`` builds it from
/// the drawing record and the marked pages; ``PDFCatalogUpdate/replacingStructure(in:with:)``
/// writes it in place of cairo's.
///
/// Elements do not span pages (the report closes every element but the document's at the end of a
/// page), so an element's marked contents are integers on its one page (`/Pg`), never `MCR`
/// dictionaries.
struct PDFStructureTree {
  /// One kid of an element.
  enum Kid {
    /// Another element (an index into ``elements``).
    case element(Int)
    /// Marked content `MCID` on the element's page.
    case markedContent(Int)
    /// A link annotation on the element's page: the index into that page's `/Annots`.
    case annotation(Int)
  }

  struct Element {
    /// The structure type (`TD`, `H1`, …).
    let type: StaticString
    /// The parent element (an index into ``elements``); -1 for the root element.
    let parent: Int
    /// The page (from 0) of its marked content and annotations; -1 when it has none.
    var page = -1
    var kids: [Kid] = []
    /// `/Alt` (figures).
    var alternativeText: String?

    init(type: StaticString, parent: Int) {
      self.type = type
      self.parent = parent
    }
  }

  /// Element 0 is the root (`Document`).
  var elements: [Element] = []
  /// Per page: MCID → the element whose content it is (nil: no element).
  var markedContents: [[Int?]] = []
  /// Per page: annotation index → its `Link` element.
  var annotations: [[Int]] = []

  /// Appends element `type` under `parent` and returns its index.
  mutating func add(_ type: StaticString, parent: Int) -> Int {
    elements.append(Element(type: type, parent: parent))
    if parent >= 0 { elements[parent].kids.append(.element(elements.count - 1)) }
    return elements.count - 1
  }

  /// Adds marked content `id` on `page` to `element`.
  mutating func add(markedContent id: Int, page: Int, to element: Int) {
    elements[element].kids.append(.markedContent(id))
    elements[element].page = page
    while markedContents[page].count <= id { markedContents[page].append(nil) }
    markedContents[page][id] = element
  }
}
