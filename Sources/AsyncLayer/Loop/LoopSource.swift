/// A source that other threads signal to have the loop run its handler (`CFRunLoopSource`
/// version 0): several signals before the loop gets to it make one call.
public final class LoopSource: Sendable {
  let loop: MainLoop
  let id: Int
  let signalState: SourceSignal

  init(loop: MainLoop, id: Int, signal: SourceSignal) {
    self.loop = loop
    self.id = id
    self.signalState = signal
  }

  /// Marks the source and wakes the loop. Callable from any thread.
  public func signal() {
    signalState.set()
    loop.wakeUp()
  }

  /// Removes the source. Call on the loop's thread.
  public func invalidate() {
    loop.preconditionInLoop()
    guard let index = loop.confined.sources.firstIndex(where: { $0.id == id }) else { return }
    loop.confined.sources[index].isValid = false
    loop.confined.sources.remove(at: index)
  }
}
