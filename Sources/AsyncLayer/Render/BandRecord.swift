/// What a draw put where in its pixels: horizontal bands (a text layer's lines), each with the
/// device rows its ink reaches and a signature of everything that decides those pixels.
///
/// A draw over a buffer whose record it knows redraws only the rows where the two records differ
/// (``damage(from:to:)``): typing at the end of a 6,000-word document changes its last lines, and
/// the draw writes those rows instead of tens of megabytes. The rows above and below keep the
/// buffer's pixels, which are the same pixels a full draw would write — bands outside the damage
/// are identical in both records, and none of them has ink inside it.
///
/// ```swift
/// let old = BandRecord(key: 7, bands: [a, b, c])
/// let new = BandRecord(key: 7, bands: [a, b, d, e])
/// BandRecord.damage(from: old, to: new)  // rows of c, d and e; new bands 2..<4
/// ```
struct BandRecord: Sendable {
  /// One band: a line's signature (its glyphs, fonts, attributes and exact position) and the
  /// device rows its ink reaches, margin included.
  struct Band: Sendable {
    var signature: Int
    var rows: Range<Int>
    /// Rows a cancelled draw left part-written: they match nothing.
    var isGarbage = false

    /// The same pixels: same signature and rows, and neither garbage.
    func matches(_ other: Band) -> Bool {
      !isGarbage && !other.isGarbage && signature == other.signature && rows == other.rows
    }
  }

  /// Everything drawn outside the bands (size, scale, background, style, padding): records with
  /// different keys share nothing.
  var key: Int
  var bands: [Band]

  /// Rows to redraw to turn a buffer showing `old` into one showing `new`, with the bands of `new`
  /// to draw there; nil when nothing can be kept (different keys).
  struct Damage: Equatable {
    /// Device rows to clear to the background and draw into; empty when the records draw the same.
    var rows: Range<Int>
    /// The bands of the old record the rows replace.
    var oldBands: Range<Int>
    /// The bands of the new record to draw into the rows.
    var newBands: Range<Int>
  }

  /// The damage between two records, for a buffer `height` rows tall.
  ///
  /// The bands before the first difference and after the last are kept; the rows between cover the
  /// ink of every band that differs, old and new. A kept band whose ink reaches into those rows
  /// (a tall mark over a line boundary) is drawn again with them, so that clearing the rows erases
  /// no kept pixel and no drawn band is cut by their edges.
  static func damage(from old: BandRecord, to new: BandRecord, height: Int) -> Damage? {
    guard old.key == new.key else { return nil }
    let oldCount = old.bands.count, newCount = new.bands.count
    var prefix = 0
    while prefix < oldCount, prefix < newCount, old.bands[prefix].matches(new.bands[prefix]) { prefix += 1 }
    if prefix == oldCount && prefix == newCount {
      return Damage(rows: 0..<0, oldBands: prefix..<prefix, newBands: prefix..<prefix)
    }
    var suffix = 0
    while suffix < min(oldCount, newCount) - prefix,
      old.bands[oldCount - 1 - suffix].matches(new.bands[newCount - 1 - suffix])
    {
      suffix += 1
    }
    while true {
      var top = Int.max, bottom = Int.min
      for band in old.bands[prefix..<(oldCount - suffix)] + new.bands[prefix..<(newCount - suffix)]
      where !band.rows.isEmpty {
        top = min(top, band.rows.lowerBound)
        bottom = max(bottom, band.rows.upperBound)
      }
      let rows = top < bottom ? max(0, top)..<max(max(0, top), min(height, bottom)) : 0..<0
      // A kept band (the same in both records) with ink in the rows joins them, with every band
      // between it and the rows.
      if let reaching = (0..<prefix).first(where: { new.bands[$0].rows.overlaps(rows) }) {
        prefix = reaching
        continue
      }
      if let reaching = (0..<suffix).first(where: { new.bands[newCount - 1 - $0].rows.overlaps(rows) }) {
        suffix = reaching
        continue
      }
      return Damage(rows: rows, oldBands: prefix..<(oldCount - suffix), newBands: prefix..<(newCount - suffix))
    }
  }

  /// This record after a draw of `damage` was cancelled part-way: its rows hold neither record.
  func invalidating(_ damage: Damage) -> BandRecord {
    var bands = Array(bands[..<damage.oldBands.lowerBound])
    bands.append(Band(signature: 0, rows: damage.rows, isGarbage: true))
    bands += self.bands[damage.oldBands.upperBound...]
    return BandRecord(key: key, bands: bands)
  }
}
