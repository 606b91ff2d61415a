internal import CCairo

/// A layout's attributes, copied once and handed to each piece as a list of only those that
/// overlap it: copying and shifting the whole list for every piece made a 256 KiB markup text
/// spend 32 ms between two checks. Pieces come in order of their start (a retried prefix starts
/// where the last one did).
final class PieceAttributes {
  /// Copies of the attributes in Pango's order (by start); this object destroys them.
  private let attributes: [UnsafeMutablePointer<PangoAttribute>]
  /// The first attribute not yet seen by a piece.
  private var cursor = 0
  /// Attributes seen that may still reach a later piece, in order.
  private var open: [Int] = []

  init?(_ list: OpaquePointer?) {
    guard let list, let head = pango_attr_list_get_attributes(list) else { return nil }
    var attributes: [UnsafeMutablePointer<PangoAttribute>] = []
    var node: UnsafeMutablePointer<GSList>? = head
    while let current = node {
      if let data = current.pointee.data { attributes.append(data.assumingMemoryBound(to: PangoAttribute.self)) }
      node = current.pointee.next
    }
    g_slist_free(head)
    self.attributes = attributes
  }

  deinit {
    for attribute in attributes { pango_attribute_destroy(attribute) }
  }

  /// A new list (the caller unrefs it) of the attributes overlapping `start..<end`, moved to the
  /// piece's offsets: one across its start begins at 0.
  func list(start: Int, end: Int) -> OpaquePointer? {
    let low = UInt32(clamping: start)
    let high = UInt32(clamping: end)
    while cursor < attributes.count, attributes[cursor].pointee.start_index < high {
      open.append(cursor)
      cursor += 1
    }
    // Later pieces start at or after this one: an attribute ending before it is done.
    open.removeAll { attributes[$0].pointee.end_index <= low }
    guard let list = pango_attr_list_new() else { return nil }
    for index in open {
      let attribute = attributes[index]
      // A shorter retried prefix: the rest start past its end.
      if attribute.pointee.start_index >= high { break }
      guard let copy = pango_attribute_copy(attribute) else { continue }
      copy.pointee.start_index = attribute.pointee.start_index > low ? attribute.pointee.start_index - low : 0
      if attribute.pointee.end_index != UInt32.max {  // PANGO_ATTR_INDEX_TO_TEXT_END
        copy.pointee.end_index = attribute.pointee.end_index - low
      }
      pango_attr_list_insert(list, copy)
    }
    return list
  }
}
