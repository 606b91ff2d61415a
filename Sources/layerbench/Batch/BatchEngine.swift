import AsyncLayer
import DequeModule
import Dispatch
import Foundation
import Synchronization

/// What a batch run does.
struct BatchConfiguration: Sendable {
  var input: String
  var outDir: String
  var parser: TileParser
  var workers: Int
  /// Whether PNG files, their checksums and the manifest are written by a thread of their own
  /// (`BatchWriteThread`): the workers then only render and encode.
  var writeThread = false
  /// Tiles read but not yet in the manifest, at most (rendering, or waiting for an earlier line).
  var window: Int
  var shard: Shard?
  var failFast = false
  var resume = true
  var maxLineBytes = 1 << 20
  /// Debug: the process kills itself (SIGKILL) once this many records are in the manifest.
  var killAfter: Int?
  /// Seconds between progress lines when standard error is not a terminal (0: none).
  var progressInterval: Double = 10
  var encoder = PNGEncoder()
  /// Whether the run keeps a manifest (and so can resume); `render --file` writes only the PNGs.
  var writesManifest = true
  /// Called with each record in input order as it is committed (on a worker thread, one call at a time).
  var onCommit: (@Sendable (ManifestRecord) -> Void)?

  var manifestName: String { shard?.manifestName ?? "manifest.jsonl" }
  /// Names this run's temporary files apart from other shards' writing into the same directory.
  var temporaryTag: String { shard.map { "s\($0.index)of\($0.count)" } ?? "all" }
}

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

/// Counters the workers bump and the progress line reads. (Locks below are `ThreadSanitizedMutex`: the
/// standard `Mutex` locks with a futex TSan cannot see, and `make test-tsan` runs the CLI tests.)
final class BatchCounters: Sendable {
  let records = Atomic<Int>(0)
  let rendered = Atomic<Int>(0)
  let reused = Atomic<Int>(0)
  let failures = Atomic<Int>(0)
  let bytesWritten = Atomic<Int>(0)
  let inputBytesRead = Atomic<Int>(0)
  /// Set by SIGINT, --fail-fast or a write error: read no more lines.
  let stop = Atomic<Bool>(false)
  let interrupted = Atomic<Bool>(false)
}

/// Streams an input file through K worker threads into PNG files and a manifest.
///
/// Each worker takes a window slot, reads the next line of the input under the feed's lock (no
/// reader thread: nothing to wake per tile), parses, renders, encodes and writes the PNG (temporary
/// file, then rename), and hands the record to the commit step, which appends records to the
/// manifest in input order and frees their slots. With `writeThread`, the worker hands the encoded
/// PNG to one writer thread instead, which writes it, checksums it and commits its record: a core
/// the workers leave free then takes the file system's share (about a fifth of a tile's CPU).
/// Memory is bounded by the window: at most `window` input lines, records and encoded PNGs, and
/// `workers` images at once.
final class BatchEngine: Sendable {
  let configuration: BatchConfiguration
  let counters = BatchCounters()
  private let fingerprint: Data

  private struct Job: Sendable {
    var sequence: Int
    var line: Int
    var bytes: Data
    var isTooLong: Bool
    var previous: ManifestRecord?
  }

  /// A finished tile on its way to the manifest: the record and its JSON line, encoded on the worker.
  private struct Committed {
    var record: ManifestRecord
    var line: Data
    var reused: Bool
  }

  private struct CommitState {
    var next = 0
    var pending: [Int: Committed] = [:]
    var firstError: String?
    var writeError: String?
    /// Manifest lines committed but not yet written: one `write` per ~32 KiB or 100 ms instead of one
    /// per tile. A kill loses at most these; their tiles are rendered again on resume, to the same bytes.
    var unwritten = Data()
    /// When the oldest unwritten line was committed (uptime nanoseconds).
    var unwrittenSince: UInt64 = 0
  }

  /// Manifest lines are written once this many bytes wait...
  private static let manifestFlushBytes = 32 << 10
  /// ...or once the oldest has waited this long, checked at each commit (and at the end of the run).
  private static let manifestFlushNanoseconds: UInt64 = 100_000_000

  /// The input side, which the workers read in turn.
  private struct Feed {
    var lines: LineReader?
    var previous: ManifestReader?
    var sequence = 0
    var blankLines = 0
    var error: (any Error)?
  }

  /// A rendered, encoded tile the writer thread has still to write.
  private struct Encoded: Sendable {
    var sequence: Int
    var record: ManifestRecord
    var file: String
    var png: Data
    var width: Int
    var height: Int
    var lines: Int
    var unknownGlyphs: Int
    /// Nanoseconds the worker spent on it (the record's `ms` adds the write).
    var workNanoseconds: UInt64
  }

  /// What a worker made of a job: a finished record, or a PNG to write.
  private enum Outcome {
    case finished(ManifestRecord, reused: Bool)
    case encoded(Encoded)
  }

  /// The writer thread's input: encoded tiles in the order they were encoded.
  private struct WriteQueue {
    var tiles = Deque<Encoded>()
    var isClosed = false
    /// The writer is (about to be) waiting on `writerWake`: the next append or close signals it.
    var isSleeping = false
  }

  private let feed = ThreadSanitizedMutex(Feed())
  private let writeQueue = ThreadSanitizedMutex(WriteQueue())
  private let writerWake = DispatchSemaphore(value: 0)
  private let windowSlots: DispatchSemaphore
  private let commitState = ThreadSanitizedMutex(CommitState())
  private let manifestFD = ThreadSanitizedMutex<Int32>(-1)

  init(configuration: BatchConfiguration) {
    self.configuration = configuration
    self.fingerprint = Data(("\u{1e}" + configuration.parser.fingerprint).utf8)
    windowSlots = DispatchSemaphore(value: configuration.window)
  }

  var manifestPath: String { (configuration.outDir as NSString).appendingPathComponent(configuration.manifestName) }

  func run() throws -> BatchSummary {
    let config = configuration
    let start = DispatchTime.now().uptimeNanoseconds
    do {
      try FileAccess.createDirectory(config.outDir)
    } catch {
      throw BatchError("\(error)")
    }
    let directory = try OutputDirectory(path: config.outDir, temporaryTag: config.temporaryTag)
    let staleTemporaryFiles = directory.removeTemporaryFiles()
    let inputSize = (try? FileManager.default.attributesOfItem(atPath: config.input)[.size] as? Int) ?? 0
    // The readers are made inside the lock that keeps them (they are not Sendable).
    try feed.withLock { feed in
      feed.lines = try LineReader(path: config.input, maxLineBytes: config.maxLineBytes)
      feed.previous = config.writesManifest ? try prepareManifest() : nil
    }
    if config.writesManifest {
      if let shard = config.shard { unlinkat(directory.descriptor, shard.completionName, 0) }
      let fd = open(manifestPath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
      guard fd >= 0 else { throw BatchError("\(manifestPath): cannot create: \(String(cString: strerror(errno)))") }
      manifestFD.withLock { $0 = fd }
    }
    defer { manifestFD.withLock { if $0 >= 0 { close($0) } } }

    let progress = BatchProgress(counters: counters, inputSize: inputSize, interval: config.progressInterval)
    progress.start()
    let interruption = installInterruptHandler()
    defer {
      interruption.cancel()
      signal(SIGINT, SIG_DFL)
    }

    let finished = DispatchSemaphore(value: 0)
    let writerFinished = DispatchSemaphore(value: 0)
    if config.writeThread {
      let writer = Thread { [self] in
        // Its temporary files are named apart from the workers' (0..<workers).
        write(as: config.workers, directory: directory)
        writerFinished.signal()
      }
      writer.name = "batch-writer"
      writer.start()
    }
    for worker in 0..<config.workers {
      let thread = Thread { [self] in
        work(worker: worker, directory: directory)
        finished.signal()
      }
      thread.stackSize = 8 << 20
      thread.name = "batch-\(worker)"
      thread.start()
    }

    for _ in 0..<config.workers { finished.wait() }
    if config.writeThread {
      closeWriteQueue()
      writerFinished.wait()
    }
    flushManifest()
    progress.stop()
    let (blankLines, inputLines, readError) = feed.withLock { feed in
      let read = (feed.blankLines, feed.lines?.lineCount ?? 0, feed.error)
      feed = Feed()  // closes the input and the previous manifest
      return read
    }

    let state = commitState.withLock { $0 }
    var summary = BatchSummary()
    summary.records = counters.records.load(ordering: .relaxed)
    summary.rendered = counters.rendered.load(ordering: .relaxed)
    summary.reused = counters.reused.load(ordering: .relaxed)
    summary.failures = counters.failures.load(ordering: .relaxed)
    summary.bytesWritten = counters.bytesWritten.load(ordering: .relaxed)
    summary.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    summary.interrupted = counters.interrupted.load(ordering: .relaxed)
    summary.stoppedByFailure = config.failFast && summary.failures > 0
    summary.manifestPath = manifestPath
    summary.firstError = state.firstError
    summary.staleTemporaryFiles = staleTemporaryFiles
    if let writeError = state.writeError { throw BatchError(writeError) }
    if let readError { throw readError }

    let complete = !summary.interrupted && !summary.stoppedByFailure
    if complete, config.writesManifest {
      unlink(manifestPath + ".resume")
      if let shard = config.shard {
        let completion = ShardCompletion(
          shard: shard.description, inputLines: inputLines, blankLines: blankLines, records: summary.records,
          failures: summary.failures)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try directory.writeAtomically(try encoder.encode(completion), named: shard.completionName, worker: 0)
      }
    }
    return summary
  }

  /// Moves the previous run's manifest aside as `<manifest>.resume` (merging it with an older one
  /// that an interrupted resume left) and returns a reader over it; nil for a fresh start.
  private func prepareManifest() throws -> ManifestReader? {
    let current = manifestPath
    let resume = current + ".resume"
    guard configuration.resume else {
      unlink(resume)
      return nil
    }
    switch (BatchFiles.exists(current), BatchFiles.exists(resume)) {
    case (true, true):
      // An interrupted resume: `current` holds the lines it finished (a prefix, in input order),
      // `resume` the older records. Take the newer record of each line.
      let combined = current + ".combined"
      let fd = open(combined, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      guard fd >= 0 else { throw BatchError("\(combined): cannot create: \(String(cString: strerror(errno)))") }
      defer { close(fd) }
      let newer = try ManifestReader(path: current)
      let older = try ManifestReader(path: resume)
      var a = try newer.next()
      var b = try older.next()
      while a != nil || b != nil {
        let record: ManifestRecord
        if let x = a, b == nil || x.line <= b!.line {
          if let y = b, y.line == x.line { b = try older.next() }
          record = x
          a = try newer.next()
        } else {
          record = b!
          b = try older.next()
        }
        try BatchFiles.writeAll(fd, record.jsonLine(), path: combined)
      }
      guard rename(combined, resume) == 0 else { throw BatchError("\(resume): cannot replace") }
      unlink(current)
    case (true, false):
      guard rename(current, resume) == 0 else { throw BatchError("\(current): cannot move aside for resume") }
    case (false, true), (false, false):
      break
    }
    return BatchFiles.exists(resume) ? try ManifestReader(path: resume) : nil
  }

  private func installInterruptHandler() -> any DispatchSourceSignal {
    signal(SIGINT, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    let counters = counters
    source.setEventHandler { [self] in
      if counters.interrupted.exchange(true, ordering: .relaxed) {
        // A second Ctrl-C: leave now, with every record committed so far in the manifest.
        flushManifest()
        _exit(130)
      }
      counters.stop.store(true, ordering: .relaxed)
      FileHandle.standardError.write(
        Data("\ninterrupted: finishing the tiles in flight (Ctrl-C again to quit now)\n".utf8))
    }
    source.resume()
    return source
  }

  /// The next line of this run (of its shard, not blank) as a job, or nil at the end of the input,
  /// on a stop, or after a read error (kept for the summary).
  private func nextJob() -> Job? {
    let (counters, shard) = (counters, configuration.shard)
    return feed.withLock { feed -> Job? in
      guard feed.error == nil, let lines = feed.lines else { return nil }
      do {
        while !counters.stop.load(ordering: .relaxed), let line = try lines.next() {
          counters.inputBytesRead.store(lines.consumed, ordering: .relaxed)
          if let shard, !shard.contains(line: line.number) { continue }
          if !line.isTooLong, TileParser.isBlank(line.bytes) {
            feed.blankLines += 1
            continue
          }
          let previous = try feed.previous?.record(forLine: line.number)
          feed.sequence += 1
          return Job(
            sequence: feed.sequence - 1, line: line.number, bytes: line.bytes, isTooLong: line.isTooLong,
            previous: previous)
        }
      } catch {
        feed.error = error
        counters.stop.store(true, ordering: .relaxed)
      }
      return nil
    }
  }

  private func work(worker: Int, directory: OutputDirectory) {
    while true {
      // A slot first: a worker never holds a line the window has no room for.
      windowSlots.wait()
      guard let job = nextJob() else {
        windowSlots.signal()
        return
      }
      switch process(job, directory: directory) {
      case .finished(let record, let reused):
        finish(record, reused: reused, sequence: job.sequence)
      case .encoded(let encoded) where configuration.writeThread:
        enqueueForWriting(encoded)
      case .encoded(let encoded):
        finish(written(encoded, as: worker, in: directory), reused: false, sequence: encoded.sequence)
      }
    }
  }

  /// Hands a record to the commit step, with its JSON line encoded here, in parallel, not by the
  /// one committing thread.
  private func finish(_ record: ManifestRecord, reused: Bool, sequence: Int) {
    let line = configuration.writesManifest ? record.jsonLine() : Data()
    commit(Committed(record: record, line: line, reused: reused), sequence: sequence)
  }

  /// Parses, renders and encodes a job; or reuses the previous run's tile, or records its error.
  private func process(_ job: Job, directory: OutputDirectory) -> Outcome {
    let start = DispatchTime.now().uptimeNanoseconds
    var record = ManifestRecord(line: job.line)
    if job.isTooLong {
      record.error = "line is longer than \(configuration.maxLineBytes) bytes"
      return .finished(record, reused: false)
    }
    record.input = String(SHA256.hex(job.bytes, followedBy: fingerprint).prefix(16))
    do {
      let spec = try configuration.parser.parse(job.bytes, lineNumber: job.line)
      record.id = spec.id
      let file = spec.id + ".png"
      if let previous = job.previous, isReusable(previous, as: record, file: file, in: directory) {
        return .finished(previous, reused: true)
      }
      let rendered = try spec.tile.render()
      let png = try configuration.encoder.encode(rendered.image)
      return .encoded(
        Encoded(
          sequence: job.sequence, record: record, file: file, png: png, width: rendered.image.pixelWidth,
          height: rendered.image.pixelHeight, lines: rendered.lineCount, unknownGlyphs: rendered.unknownGlyphCount,
          workNanoseconds: DispatchTime.now().uptimeNanoseconds - start))
    } catch let error as TileSpecError {
      record.id = error.id
      record.error = error.description
    } catch {
      record.error = "\(error)"
    }
    record.ms = Self.milliseconds(DispatchTime.now().uptimeNanoseconds - start)
    return .finished(record, reused: false)
  }

  /// Writes an encoded tile's PNG (temporary file, then rename) and returns its finished record.
  private func written(_ encoded: Encoded, as writer: Int, in directory: OutputDirectory) -> ManifestRecord {
    let start = DispatchTime.now().uptimeNanoseconds
    var record = encoded.record
    do {
      try directory.writeAtomically(encoded.png, named: encoded.file, worker: writer)
      record.file = encoded.file
      record.width = encoded.width
      record.height = encoded.height
      record.lines = encoded.lines
      record.unknownGlyphs = encoded.unknownGlyphs
      record.bytes = encoded.png.count
      record.sha256 = SHA256.hex(encoded.png)
    } catch {
      record.error = "\(error)"
    }
    record.ms = Self.milliseconds(encoded.workNanoseconds + DispatchTime.now().uptimeNanoseconds - start)
    return record
  }

  private static func milliseconds(_ nanoseconds: UInt64) -> Double { (Double(nanoseconds) / 1e3).rounded() / 1e3 }

  // MARK: The writer thread

  private func enqueueForWriting(_ encoded: Encoded) {
    let wakeWriter = writeQueue.withLock { queue -> Bool in
      queue.tiles.append(encoded)
      defer { queue.isSleeping = false }
      return queue.isSleeping
    }
    if wakeWriter { writerWake.signal() }
  }

  /// Called once every worker has ended: the writer writes what is queued, then ends.
  private func closeWriteQueue() {
    let wakeWriter = writeQueue.withLock { queue -> Bool in
      queue.isClosed = true
      defer { queue.isSleeping = false }
      return queue.isSleeping
    }
    if wakeWriter { writerWake.signal() }
  }

  /// The writer thread: writes each encoded tile and commits its record, until the queue closes.
  private func write(as writer: Int, directory: OutputDirectory) {
    while true {
      let next = writeQueue.withLock { queue -> (tile: Encoded?, sleeps: Bool) in
        if let tile = queue.tiles.popFirst() { return (tile, false) }
        if queue.isClosed { return (nil, false) }
        queue.isSleeping = true
        return (nil, true)
      }
      if let tile = next.tile {
        finish(written(tile, as: writer, in: directory), reused: false, sequence: tile.sequence)
      } else if next.sleeps {
        writerWake.wait()
      } else {
        return
      }
    }
  }

  /// Whether the previous run's record for this line still describes the file on disk.
  private func isReusable(
    _ previous: ManifestRecord, as record: ManifestRecord, file: String, in directory: OutputDirectory
  ) -> Bool {
    guard previous.succeeded, previous.id == record.id, previous.input == record.input, previous.file == file,
      let bytes = previous.bytes, let data = directory.contents(of: file, expectedSize: bytes)
    else { return false }
    return SHA256.hex(data) == previous.sha256
  }

  /// Appends records to the manifest in input order, as soon as every earlier one is there, in
  /// writes of up to `manifestFlushBytes` or `manifestFlushNanoseconds` worth of records.
  private func commit(_ finished: Committed, sequence: Int) {
    commitState.withLock { state in
      state.pending[sequence] = finished
      var killAt: Int?
      while let ready = state.pending.removeValue(forKey: state.next) {
        state.next += 1
        if state.unwritten.isEmpty { state.unwrittenSince = DispatchTime.now().uptimeNanoseconds }
        state.unwritten.append(ready.line)
        let record = ready.record
        if let error = record.error {
          counters.failures.add(1, ordering: .relaxed)
          if state.firstError == nil { state.firstError = "line \(record.line): \(error)" }
          if configuration.failFast { counters.stop.store(true, ordering: .relaxed) }
        } else if ready.reused {
          counters.reused.add(1, ordering: .relaxed)
        } else {
          counters.rendered.add(1, ordering: .relaxed)
          counters.bytesWritten.add(record.bytes ?? 0, ordering: .relaxed)
        }
        configuration.onCommit?(record)
        let records = counters.records.add(1, ordering: .relaxed).newValue
        windowSlots.signal()
        if let limit = configuration.killAfter, records >= limit {
          killAt = records
          break
        }
      }
      let isDue =
        state.unwritten.count >= Self.manifestFlushBytes
        || DispatchTime.now().uptimeNanoseconds - state.unwrittenSince >= Self.manifestFlushNanoseconds
      if isDue || killAt != nil { writeUnwritten(&state) }
      if killAt != nil { kill(getpid(), SIGKILL) }
    }
  }

  /// Writes the manifest lines still waiting: at the end of the run and before a second Ctrl-C quits.
  private func flushManifest() {
    commitState.withLock { writeUnwritten(&$0) }
  }

  private func writeUnwritten(_ state: inout CommitState) {
    guard !state.unwritten.isEmpty else { return }
    defer { state.unwritten.removeAll(keepingCapacity: true) }
    guard state.writeError == nil else { return }
    do {
      try manifestFD.withLock { fd in try BatchFiles.writeAll(fd, state.unwritten, path: manifestPath) }
    } catch {
      state.writeError = "\(error)"
      counters.stop.store(true, ordering: .relaxed)
    }
  }
}
