/// The text layouts one pagination made, kept on its thread for the first PDF or SVG drawn there.
///
/// Drawing lays each text run out again: layouts belong to their thread's Pango context and are not
/// `Sendable`, so ``ReportLayout`` cannot carry them. But when the output is written on the thread
/// that paginated — `try ReportLayout(report).pdfData()`, as `layerbench report` does — the layouts
/// pagination made at scale 1 are exactly the ones drawing needs: pagination leaves them here and
/// that output takes them, so each text is laid out once instead of twice (half the instructions
/// of a 2,000-row table's PDF went to laying its cells out a second time).
///
/// Per thread, only the latest pagination's layouts are kept, until an output of it takes them,
/// the thread paginates again or it exits: they never leave their thread. (A large table's cells
/// may have been laid out by a helper thread that handed them over and ended before pagination
/// went on, see ``ReportCellLayouts``: they are this thread's from then on.) An output on another
/// thread, at another scale, or a second output of the same layout lays its texts out as before.
final class ReportPreparedLayouts {
  /// Names one pagination. Every token equals every other: a ``ReportLayout``'s value is its pages,
  /// not which pagination made them.
  final class Token: Sendable, Hashable {
    init() {}
    static func == (lhs: Token, rhs: Token) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
  }

  /// The pagination the layouts belong to; nil once every copy of its ``ReportLayout`` is gone.
  private weak var token: Token?
  private let layouts: [ReportRunLayouts.Key: TextLayout]

  private init(token: Token, layouts: [ReportRunLayouts.Key: TextLayout]) {
    self.token = token
    self.layouts = layouts
  }

  /// A thread's entry, released with the thread, on that thread.
  private final class Slot {
    var kept: ReportPreparedLayouts?
  }
  private static let slot = ThreadLocal<Slot> { Slot() }

  /// Keeps `layouts` on this thread for an output of the pagination `token` names, in place of
  /// whatever an earlier pagination on this thread left.
  static func keep(_ layouts: [ReportRunLayouts.Key: TextLayout], for token: Token) {
    slot.value.kept = layouts.isEmpty ? nil : ReportPreparedLayouts(token: token, layouts: layouts)
  }

  /// The layouts the pagination `token` names left on this thread (and forgets them), or none.
  static func take(for token: Token) -> [ReportRunLayouts.Key: TextLayout] {
    let slot = slot.value
    guard let kept = slot.kept, kept.token === token else { return [:] }
    slot.kept = nil
    return kept.layouts
  }
}
