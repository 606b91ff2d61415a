/// What a new display of a layer does with a draw of an older state that is still running.
///
/// Cancelling is right when a draw is short next to the time between changes (a list cell, a
/// resized label): the stale draw is thrown away and the newest state shows soonest. When changes
/// come faster than one draw (typing into a long document), cancelling would throw away every
/// draw until the changes stop, and nothing new would show meanwhile; letting the running draw
/// finish shows an intermediate state about once per draw and wastes nothing.
///
/// ```swift
/// editor.redisplayPolicy = .finishRunningDraw   // one long paragraph, re-rendered per keystroke
/// ```
public enum RedisplayPolicy: Sendable, Hashable {
  /// Cancel it (the default): a queued draw leaves its queue, a running one stops at its next
  /// cancellation check.
  case cancelRunningDraw
  /// Let a running draw finish and commit; the new display starts when it ends, from the state
  /// the layer has then (several changes meanwhile make one draw). A draw still queued is
  /// cancelled as with ``cancelRunningDraw``.
  case finishRunningDraw
}
