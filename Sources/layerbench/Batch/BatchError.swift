import AsyncLayer

/// A batch run's failure, whose description is its message.
struct BatchError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }

  /// A file operation's failure, said the one way: "path: what failed: reason".
  init(_ failure: FileErrorDescription) { self.description = failure.description }
}
