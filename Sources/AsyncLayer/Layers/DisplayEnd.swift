/// How one display or composite ended, with what its owner keeps: the state machine's answer
/// joined with the job's outcome. Layer displays and root composites end through it alike.
enum DisplayEnd {
  /// The result is current: it becomes the contents (nil for a zero size).
  case commit(RenderedImage?, cpuTime: Duration)
  /// A stale result, dropped.
  case discard(cpuTime: Duration)
  /// Cancelled before or while drawing (already counted where it stopped).
  case cancelled
  /// Failed; the error becomes the owner's last error when `isCurrent`.
  case fail(any Error, isCurrent: Bool, cpuTime: Duration)

  /// Joins the machine's answer for a draw with what the draw produced.
  init(_ result: DisplayStateMachine<PoolTicket>.EndAction.Result, _ outcome: DrawOutcome) {
    switch (result, outcome) {
    case (.commit, .rendered(let image, let cpuTime)): self = .commit(image, cpuTime: cpuTime)
    case (.discard, .rendered(_, let cpuTime)), (.discard, .stale(let cpuTime)): self = .discard(cpuTime: cpuTime)
    case (.fail(let isCurrent), .failed(let error, let cpuTime)):
      self = .fail(error, isCurrent: isCurrent, cpuTime: cpuTime)
    default: self = .cancelled
    }
  }

  /// True for a commit: what `didDisplay(finished:)` and `onDidComposite` report.
  var isFinished: Bool {
    if case .commit = self { return true }
    return false
  }

  /// Counts the end in `recorder`, and applies it to the owner's `contents` and `lastError`
  /// (replaced contents are kept by `recycler` for the next draw when large, else freed off the loop).
  func apply(
    to contents: inout RenderedImage?, lastError: inout (any Error)?, recorder: StatisticsRecorder,
    recycler: PixelRecycler? = nil
  ) {
    switch self {
    case .commit(let image, let cpuTime):
      let replaced = contents
      contents = image
      if let recycler {
        RenderedImage.releaseOffLoop(recycler.keep(consume replaced))
      } else {
        RenderedImage.releaseOffLoop(consume replaced)
      }
      lastError = nil
      recorder.record(.committed, cpuTime: cpuTime)
    case .discard(let cpuTime):
      recorder.record(.discardedAtCommit, cpuTime: cpuTime)
    case .cancelled:
      break
    case .fail(let error, let isCurrent, let cpuTime):
      if isCurrent { lastError = error }
      recorder.record(.failed, cpuTime: cpuTime)
    }
  }
}
