/// A registered source as the loop keeps it.
final class SourceEntry {
  let id: Int
  let order: Int
  let modes: LoopModes
  let signal: SourceSignal
  let handler: () -> Void
  var isValid = true

  init(id: Int, order: Int, modes: LoopModes, signal: SourceSignal, handler: @escaping () -> Void) {
    self.id = id
    self.order = order
    self.modes = modes
    self.signal = signal
    self.handler = handler
  }
}
