/// What a batch run did, for the closing line and the exit status.
struct BatchSummary: Sendable {
  var records = 0
  var rendered = 0
  var reused = 0
  var failures = 0
  var bytesWritten = 0
  var seconds = 0.0
  var interrupted = false
  var stoppedByFailure = false
  var manifestPath = ""
  var firstError: String?
  /// Temporary files of an earlier, killed run of this command that were removed at the start.
  var staleTemporaryFiles = 0
}
