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
    let handoff = Handoff()
    let done = DispatchSemaphore(value: 0)
    let helper = Thread {
      handoff.results = (split..<count).map { index in Result { try make(index) } }
      handoff.handedOver.release()
      done.signal()
    }
    helper.name = "AsyncLayer report cells"
    helper.start()
    var results = (0..<split).map { index in Result { try make(index) } }
    done.wait()
    handoff.handedOver.acquire()
    results += handoff.results
    return results
  }

  /// The helper's layouts, written by the helper before it signals and read by the calling
  /// thread after it waited: one owner at a time.
  private final class Handoff: @unchecked Sendable {  // handed over through the semaphore, never shared
    var results: [Result<TextLayout, any Error>] = []
    /// The semaphore's ordering, declared to Thread Sanitizer (which does not see libdispatch's
    /// futex on Linux); nothing outside TSan.
    let handedOver = ThreadSanitizerToken()
  }
}
