/// A registered observer; ``invalidate()`` removes it.
public final class LoopObserver: Sendable {
  let loop: MainLoop
  let id: Int

  init(loop: MainLoop, id: Int) {
    self.loop = loop
    self.id = id
  }

  /// Removes the observer. Call on the loop's thread.
  public func invalidate() {
    loop.preconditionInLoop()
    loop.removeObserver(id: id)
  }
}
