/// A registered observer as the loop keeps it.
final class ObserverEntry {
  let id: Int
  let activities: LoopActivity
  let order: Int
  let modes: LoopModes
  let repeats: Bool
  let callback: (LoopActivity) -> Void
  var isValid = true

  init(
    id: Int, activities: LoopActivity, order: Int, modes: LoopModes, repeats: Bool,
    callback: @escaping (LoopActivity) -> Void
  ) {
    self.id = id
    self.activities = activities
    self.order = order
    self.modes = modes
    self.repeats = repeats
    self.callback = callback
  }
}
