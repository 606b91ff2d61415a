import Foundation

/// Lays out a table's distinct cell texts on two threads: the calling thread and, for a large
/// table, one helper thread made for the purpose, each with its own Pango font map.
///
/// Pango's objects are not thread-safe, so a layout is made and used on one thread at a time. The
/// helper only makes layouts: it lays out its share, hands the layouts over and ends, and from
/// then on only the calling thread uses them (to paginate, and to draw the PDF that
/// ``ReportPreparedLayouts`` keeps them for) — one owner after another, never two at once. What a
/// layout reaches through its fonts that outlives the helper is behind ``FontCacheLock`` (cairo's
/// glyph cache and Pango's metrics and glyph extents). Fonts of the helper's font map draw through
/// the same cairo font faces (``ThreadSafeFontMap`` shares FreeType faces, and cairo keeps one
/// font face per face and options) and so the same cairo scaled fonts: the PDF's font subsets are
/// those of a single-threaded layout.
///
/// Laying out 5,000 short texts (a 2,000-row table's distinct cells) is about a fifth of a
/// report's time; the second core takes half of it.
enum ReportCellLayouts {
  /// Below this many texts, one thread: a helper's own font map costs about 2 ms to set up.
  static let parallelMinimum = 512

  /// `make(index)` for each index in `0..<count`, in order, each a layout or the error it threw.
  /// With at least ``parallelMinimum`` texts, the last half is made on a helper thread.
  static func layOut(
    count: Int, _ make: @escaping @Sendable (Int) throws -> TextLayout
  ) -> [Result<TextLayout, any Error>] {
    guard count >= parallelMinimum, ProcessInfo.processInfo.activeProcessorCount > 1 else {
      return (0..<count).map { index in Result { try make(index) } }
    }
    let split = count / 2
    let helper = Helper { (split..<count).map { index in Result { try make(index) } } }
    guard let thread = helper.start() else {
      return (0..<count).map { index in Result { try make(index) } }
    }
    var results = (0..<split).map { index in Result { try make(index) } }
    // Joined, not just signalled: the helper's thread-local Pango state (its fontsets, and its
    // reference to the font map the handed-over layouts use) is released by the thread's exit, and
    // that must be over before this thread touches those layouts. A join orders it (and TSan sees
    // pthread_join).
    pthread_join(thread, nil)
    results += helper.results
    return results
  }

  /// The helper thread's work and its results: written by the helper, read by the calling thread
  /// after `pthread_join`, one owner at a time.
  private final class Helper: @unchecked Sendable {  // handed over through pthread_create/join, never shared
    let work: () -> [Result<TextLayout, any Error>]
    var results: [Result<TextLayout, any Error>] = []

    init(_ work: @escaping () -> [Result<TextLayout, any Error>]) {
      self.work = work
    }

    /// Starts the thread, or nil when the system refuses one (the caller then does all the work).
    func start() -> pthread_t? {
      let context = Unmanaged.passRetained(self).toOpaque()
      var thread = pthread_t()
      let status = pthread_create(
        &thread, nil,
        { raw in
          let helper = Unmanaged<Helper>.fromOpaque(raw!).takeRetainedValue()
          helper.results = helper.work()
          return nil
        }, context)
      guard status == 0 else {
        Unmanaged<Helper>.fromOpaque(context).release()
        return nil
      }
      return thread
    }
  }
}
