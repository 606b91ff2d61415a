/// Builds our own structure tree (``PDFStructureTree``) for a report drawn untagged with the
/// drawing record and marked by ``PDFContentMarker``: the same elements, in the same nesting and
/// order, as cairo 1.16 writes from the tags ``ReportStructure`` gives it (issue 29, goal 6).
///
/// It replays each page's record as ``ReportStructure`` moves cairo's tags: a text run closes the
/// open elements down to the common start with its path and opens the rest; a run with an empty
/// path (headers, footers) and a fill or rule close the elements inside the innermost open
/// container; a link makes a `Link` element inside whatever is open, holding its annotation and
/// the empty `/Link` marked content cairo writes for it; every element but the `Document` closes
/// at the end of a page. A run's marked contents (several when `ET … BT` split it) become its
/// element's kids.
///
/// One difference from cairo's tree, on purpose: cairo 1.16 marks no content of an element that
/// also holds a link (a contents entry `TOCI`, a paragraph with a linked span), so in cairo's tree
/// such an element has only its `Link`; here its text is in it too.
///
/// Whatever does not add up (a page with more links than annotations, cairo marked content that is
/// not a link's) is a ``ReportOwnMarking/Failure``: the caller then writes cairo's tags.
enum ReportStructureTree {
  static func build(
    record: ReportDrawingRecord, marked: [PDFContentMarker.Result], contents: PDFPageContents
  ) throws(ReportOwnMarking.Failure) -> PDFStructureTree {
    var tree = PDFStructureTree()
    let root = tree.add(ReportStructure.Tag.document.name, parent: -1)
    tree.markedContents = Array(repeating: [], count: marked.count)
    tree.annotations = Array(repeating: [], count: marked.count)
    // The open elements below the root: the node that opened each and its element.
    var open: [(node: ReportStructure.Node, element: Int)] = []
    open.reserveCapacity(8)
    var runIDs: [Int] = []
    var runIDStart: [Int] = []
    var figures = 0
    for (pageIndex, page) in record.pages.enumerated() {
      let result = marked[pageIndex]
      let annotations = contents.pages[pageIndex].annotations
      // Each run's MCIDs, in stream order: `runIDs[runIDStart[run]..<runIDStart[run + 1]]`.
      runIDStart = Array(repeating: 0, count: page.runs.count + 1)
      for content in result.markedContents { runIDStart[content.run + 1] += 1 }
      for index in 0..<page.runs.count { runIDStart[index + 1] += runIDStart[index] }
      runIDs = Array(repeating: 0, count: result.markedContents.count)
      var filled = runIDStart
      for content in result.markedContents {
        runIDs[filled[content.run]] = content.id
        filled[content.run] += 1
      }
      open.removeAll(keepingCapacity: true)
      var links = 0
      // cairo's MCIDs on the page, in the order its tags came: links' and figures'.
      var cairoIDs = result.cairoIDs[...]
      func nextCairoID() throws(ReportOwnMarking.Failure) -> Int {
        guard let id = cairoIDs.popFirst() else {
          throw ReportOwnMarking.Failure(description: "page \(pageIndex + 1): fewer cairo MCIDs than links and figures")
        }
        return id
      }
      func closeLeaves() {
        while let last = open.last, !last.node.tag.isContainer { open.removeLast() }
      }
      for event in page.events {
        switch event {
        case .run(let run):
          let path = page.paths[run]
          if path.count == 0 {
            closeLeaves()
          } else {
            var common = 0
            while common < path.count, common < open.count, open[common].node == path[common] { common += 1 }
            open.removeLast(open.count - common)
            for index in common..<path.count {
              let parent = open.last?.element ?? root
              open.append((path[index], tree.add(path[index].tag.name, parent: parent)))
            }
          }
          let owner = open.last?.element ?? root
          for position in runIDStart[run]..<runIDStart[run + 1] {
            tree.add(markedContent: runIDs[position], page: pageIndex, to: owner)
          }
        case .closeLeaves:
          closeLeaves()
        case .link:
          guard links < annotations.count else {
            throw ReportOwnMarking.Failure(description: "page \(pageIndex + 1): link \(links + 1) has no annotation")
          }
          let link = tree.add(ReportStructure.Tag.link.name, parent: open.last?.element ?? root)
          tree.elements[link].kids.append(.annotation(links))
          tree.add(markedContent: try nextCairoID(), page: pageIndex, to: link)
          tree.annotations[pageIndex].append(link)
          links += 1
        case .figure(let alternativeText):
          // A figure is a page element of its own (``ReportStructure/path(for:index:)``): it
          // closes every open element and is one `Figure` directly in the document.
          open.removeAll(keepingCapacity: true)
          let figure = tree.add(ReportStructure.Tag.figure.name, parent: root)
          tree.elements[figure].alternativeText = alternativeText
          tree.add(markedContent: try nextCairoID(), page: pageIndex, to: figure)
          // Open until the next page element, as cairo's tag would be (no run's path starts with it).
          figures += 1
          open.append((ReportStructure.Node(tag: .figure, key: Int.min + figures), figure))
        }
      }
      guard links == annotations.count, cairoIDs.isEmpty else {
        throw ReportOwnMarking.Failure(
          description:
            "page \(pageIndex + 1): \(links) links drawn, \(annotations.count) annotations, \(cairoIDs.count) cairo MCIDs left"
        )
      }
    }
    return tree
  }
}
