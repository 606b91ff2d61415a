import Foundation

// Every file a test writes goes into a directory made for it here and removed when the test's body
// returns or throws, as swift-nio's tests' `withTemporaryDirectory` does: a test run leaves nothing
// in the temporary directory.

/// Runs `body` with a fresh, empty directory in the temporary directory, then removes the directory
/// and everything in it, on every path out of `body`.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) rethrows -> T {
  let directory = makeTemporaryDirectory()
  defer { try? FileManager.default.removeItem(at: directory) }
  return try body(directory)
}

/// Runs `body` with a fresh, empty directory in the temporary directory, then removes the directory
/// and everything in it, on every path out of `body`.
// swift-format-ignore: AmbiguousTrailingClosureOverload
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async rethrows -> T {
  let directory = makeTemporaryDirectory()
  defer { try? FileManager.default.removeItem(at: directory) }
  return try await body(directory)
}

/// A new directory `asynclayer-tests-<uuid>`. Not being able to make one is a broken machine, not a
/// failed test: it stops the run (which keeps the helpers `rethrows`, as swift-nio's are).
private func makeTemporaryDirectory() -> URL {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent(
    "asynclayer-tests-\(UUID().uuidString)", isDirectory: true)
  do {
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
  } catch {
    preconditionFailure("cannot make a temporary directory at \(url.path): \(error)")
  }
  return url
}
