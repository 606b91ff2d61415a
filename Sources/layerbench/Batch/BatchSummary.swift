/// What a batch run did, for the closing line and the exit status.
struct BatchSummary: Sendable {
  var records = 0
  var rendered = 0
  var reused = 0
  var failures = 0
  var bytesWritten = 0
  var seconds = 0.0
  /// The tiles and seconds after every worker had finished its first line (nil when some worker
  /// never had one): the rate `layerbench throughput` would print, which starts its clock after a
  /// warm-up tile per worker. `seconds` and the main rate include that start.
  var steadyTiles: Int?
  var steadySeconds: Double?
  var interrupted = false
  var stoppedByFailure = false
  var manifestPath = ""
  var firstError: String?
  /// Temporary files of an earlier, killed run of this command that were removed at the start.
  var staleTemporaryFiles = 0
  var handOffs = HandOffCounts()
}
