// Lists: each item's text flows like a paragraph with a hanging indent, its marker beside the
// first line; nested lists indent one level further.
extension ReportPaginator {
  /// Places `list` at the cursor, refusing one nested deeper than ``ReportList/maximumDepth`` or
  /// holding more than ``ReportList/maximumItems`` items before laying any item out.
  mutating func placeList(_ list: ReportList, blockIndex: Int) throws {
    let depth = list.depth(limit: ReportList.maximumDepth)
    guard depth <= ReportList.maximumDepth else {
      throw ReportError.listTooDeep(block: blockIndex, limit: ReportList.maximumDepth)
    }
    let count = list.itemCount(limit: ReportList.maximumItems)
    guard count <= ReportList.maximumItems else {
      throw ReportError.listTooLong(block: blockIndex, limit: ReportList.maximumItems)
    }
    var item = 0
    try placeListItems(list, left: contentRect.minX, level: 0, blockIndex: blockIndex, item: &item)
  }

  /// Places the items of `list`, their markers ending a gap before `left` plus the marker column.
  private mutating func placeListItems(
    _ list: ReportList, left: Double, level: Int, blockIndex: Int, item: inout Int
  ) throws {
    guard !list.items.isEmpty else { return }
    // The marker column: the indent, or the widest number and its gap.
    let widest = try TextLayout(
      .plain(list.marker(at: list.items.count - 1, level: level)), style: style.body, width: nil, limits: limits)
    let markerWidth = max(style.listIndent - style.listMarkerGap, widest.size.width + 1, 1)
    let textLeft = left + markerWidth + style.listMarkerGap
    let width = contentRect.maxX - textLeft
    guard width >= 1, markerWidth.isFinite else {
      throw ReportError.pageTooSmall(pageSize: document.pageSize, margins: document.margins)
    }
    var markerStyle = style.body
    markerStyle.alignment = .right
    var markers: [String: TextLayout] = [:]
    for (index, entry) in list.items.enumerated() {
      if item > 0 { addSpacing(style.listItemSpacing) }
      let text = list.marker(at: index, level: level)
      let marker =
        try markers[text] ?? TextLayout(.plain(text), style: markerStyle, width: markerWidth, limits: limits)
      markers[text] = marker
      let body = try TextLayout(entry.content, style: style.body, width: width, limits: limits)
      placeFlowingText(
        body, role: .listItem(item: item, level: level), blockIndex: blockIndex, keepWithNext: 0,
        controlsWidows: true, x: textLeft, marker: (marker, .listMarker(item: item)))
      item += 1
      if let sublist = entry.sublist {
        try placeListItems(sublist, left: textLeft, level: level + 1, blockIndex: blockIndex, item: &item)
      }
    }
  }
}
