/// How a draw ended, with what it produced: reported once by its ``DrawJob`` (on the draw thread,
/// or on the loop when the pool refused it or its ticket was cancelled), or made on the loop for a
/// display that ends at once (a zero size, a renderer that could not be made, a synchronous draw).
/// Layer displays and root composites end through it alike.
enum DrawOutcome: Sendable {
  /// Rendered while current (nil: a zero size, nothing to draw).
  case rendered(RenderedImage?, cpuTime: Duration)
  /// Rendered, but the generation had moved on by the end: the image was dropped on the draw thread.
  case stale(cpuTime: Duration)
  /// Cancelled before or while drawing (already counted where it stopped).
  case cancelled
  case failed(any Error, cpuTime: Duration)

  /// The outcome as the state machine sees it.
  var kind: DisplayStateMachine<PoolTicket>.Outcome {
    switch self {
    case .rendered, .stale: .rendered
    case .cancelled: .cancelled
    case .failed: .failed
    }
  }

  /// Does what the state machine answered for this draw (`result`): counts the end in `recorder`
  /// and applies it to the owner's `contents` and `lastError` (replaced contents are kept by
  /// `recycler` for the next draw when large, else freed off the loop).
  /// - Returns: true for a commit — what `didDisplay(finished:)` and `onDidComposite` report.
  func apply(
    _ result: DisplayStateMachine<PoolTicket>.EndAction.Result, to contents: inout RenderedImage?,
    lastError: inout (any Error)?, recorder: StatisticsRecorder, recycler: PixelRecycler? = nil
  ) -> Bool {
    switch (result, self) {
    case (.commit, .rendered(let image, let cpuTime)):
      let replaced = contents
      contents = image
      if let recycler {
        RenderedImage.releaseOffLoop(recycler.keep(consume replaced))
      } else {
        RenderedImage.releaseOffLoop(consume replaced)
      }
      lastError = nil
      recorder.record(.committed, cpuTime: cpuTime)
      return true
    case (.discard, .rendered(_, let cpuTime)), (.discard, .stale(let cpuTime)):
      recorder.record(.discardedAtCommit, cpuTime: cpuTime)
    case (.fail(let isCurrent), .failed(let error, let cpuTime)):
      if isCurrent { lastError = error }
      recorder.record(.failed, cpuTime: cpuTime)
    default:
      break  // cancelled: counted where it stopped
    }
    return false
  }
}
