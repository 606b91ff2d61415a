import AsyncLayer
import Dispatch
import Foundation
import Synchronization

/// Streams an input file through K worker threads into PNG files and a manifest.
///
/// Each worker takes a window slot, reads the next line of the input under the feed's lock (no
/// reader thread: nothing to wake per tile), prepares it (parses and checks it, begins its record),
/// draws and encodes it, writes the PNG (temporary file, then rename), and hands the record to the
/// commit step, which appends records to the manifest in input order and frees their slots. With
/// `writeThread`, one writer thread takes everything but the drawing off the workers: it prepares
/// lines ahead of them and writes, checksums and commits their encoded PNGs behind them, so that a
/// worker with a core of its own draws as fast as `layerbench throughput` does (see
/// `BatchEngine+WriterThread.swift`). With `--output webdataset` the writer thread (or else the
/// worker) checksums the tile and commits it, and the commit step appends it to the tar file.
/// Memory is bounded by the window: at most `window` input lines, records and encoded PNGs, and
/// `workers` images at once.
///
/// The run and the workers are here; preparing and drawing a line, the manifest's commit step,
/// resume and the writer thread are in `BatchEngine+Tiles.swift`, `BatchEngine+Commit.swift`,
/// `BatchEngine+Resume.swift` and `BatchEngine+WriterThread.swift`. Locks are `ThreadSanitizedMutex`
/// (its `withLock` is inlinable, so it is specialised here): the standard `Mutex` locks with a futex
/// TSan cannot see, and `make test-tsan` runs the CLI tests.
final class BatchEngine: Sendable {
  let configuration: BatchConfiguration
  let counters = BatchCounters()
  let fingerprint: Data

  struct Job: Sendable {
    var sequence: Int
    var line: Int
    var bytes: Data
    var isTooLong: Bool
    var previous: ManifestRecord?
    /// A top-level key the line gives twice (JSON Lines).
    var duplicateKey: String?
    /// The earlier line with the same id, when there is one (JSON Lines).
    var firstLine: Int?
  }

  /// The input side, which the workers read in turn.
  private struct Feed {
    var lines: LineReader?
    var previous: ManifestReader?
    var sequence = 0
    var blankLines = 0
    var error: (any Error)?
    /// Every id read so far, of every shard's lines: ids are claimed in input order, here, before
    /// any worker renders, so a repeated id never overwrites the first line's tile.
    var seen = SeenIDs()
  }

  /// What was made of a job: a finished record, or a PNG to write.
  enum Outcome: Sendable {
    case finished(ManifestRecord, reused: Bool)
    case encoded(Encoded)
    /// A kept tile for a tar file (`--output webdataset`, resume), its record complete but for its
    /// place there. (Rendered tiles for tar files are `encoded`: see `member(_:)`.)
    case member(ManifestRecord, TarShardWriter.Payload, reused: Bool)
  }

  private let feed = ThreadSanitizedMutex(Feed())
  let writeQueue = ThreadSanitizedMutex(WriteQueue())
  let writerWake = DispatchSemaphore(value: 0)
  let windowSlots: DispatchSemaphore
  /// Queued tiles that wake a sleeping writer thread (`writerWakeBatch(window:)`), and at which a
  /// worker writes its tile itself (`writerBacklog(window:)`).
  let writerWakeBatch: Int
  let writerBacklog: Int
  /// Lines the writer thread keeps prepared (`readyTarget(window:)`), and at which a worker wakes it
  /// to prepare more (`readyLowWater(window:)`); workers at the end of the input wait on `readyWake`
  /// for the lines it is still preparing.
  let readyTarget: Int
  let readyLowWater: Int
  let readyWake = DispatchSemaphore(value: 0)
  let commitState = ThreadSanitizedMutex(CommitState())
  let manifestFD = ThreadSanitizedMutex<Int32>(-1)

  init(configuration: BatchConfiguration) {
    self.configuration = configuration
    // Dataset options join the hash only when used: an older run's records keep matching.
    var fingerprint = "\u{1e}" + configuration.parser.fingerprint
    if configuration.boxes { fingerprint += "\u{1e}boxes" }
    if configuration.fitsWidth { fingerprint += "\u{1e}fit" }
    if let sampler = configuration.sampler { fingerprint += "\u{1e}" + sampler.fingerprint }
    fingerprint += configuration.encoder.fingerprint
    self.fingerprint = Data(fingerprint.utf8)
    windowSlots = DispatchSemaphore(value: configuration.window)
    writerWakeBatch = Self.writerWakeBatch(window: configuration.window)
    writerBacklog = Self.writerBacklog(window: configuration.window)
    readyTarget = Self.readyTarget(window: configuration.window)
    readyLowWater = Self.readyLowWater(window: configuration.window)
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
    // Before anything in the folder is touched: one writer per folder (or per shard's part).
    let lock = try OutputLock.acquire(directory: config.outDir, shard: config.shard)
    defer { withExtendedLifetime(lock) {} }
    let directory = try OutputDirectory(path: config.outDir, temporaryTag: config.temporaryTag)
    let staleTemporaryFiles = directory.removeTemporaryFiles()
    if config.output == .webdataset {
      // Made inside the lock that keeps it (it is not Sendable: the commit step uses it under the lock).
      commitState.withLock {
        $0.tars = TarShardWriter(directory: directory, prefix: config.tarPrefix, tilesPerTar: config.tilesPerTar)
      }
    }
    let inputSize = (try? FileManager.default.attributesOfItem(atPath: config.input)[.size] as? Int) ?? 0
    // The readers are made inside the lock that keeps them (they are not Sendable).
    try feed.withLock { feed in
      feed.lines = try LineReader(path: config.input, maxLineBytes: config.maxLineBytes)
      feed.previous = config.writesManifest ? try prepareManifest() : nil
    }
    if config.writesManifest {
      if let shard = config.shard { unlinkat(directory.descriptor, shard.completionName, 0) }
      let fd = open(manifestPath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
      guard fd >= 0 else {
        throw BatchError(FileErrorDescription(path: manifestPath, operation: "cannot create", errno: errno))
      }
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
    finishTars()
    flushManifest()
    progress.stop()
    let (blankLines, inputLines, readError) = feed.withLock { feed in
      let read = (feed.blankLines, feed.lines?.lineCount ?? 0, feed.error)
      feed = Feed()  // closes the input and the previous manifest
      return read
    }

    let state = commitState.withLock { (firstError: $0.firstError, writeError: $0.writeError) }
    var summary = BatchSummary()
    summary.records = counters.records.load(ordering: .relaxed)
    summary.rendered = counters.rendered.load(ordering: .relaxed)
    summary.reused = counters.reused.load(ordering: .relaxed)
    summary.failures = counters.failures.load(ordering: .relaxed)
    summary.bytesWritten = counters.bytesWritten.load(ordering: .relaxed)
    let end = DispatchTime.now().uptimeNanoseconds
    summary.seconds = Double(end - start) / 1e9
    let steadyStart = counters.steadyStart.load(ordering: .relaxed)
    if steadyStart > 0 {
      summary.steadyTiles =
        counters.tilesProcessed.load(ordering: .relaxed) - counters.tilesBeforeSteady.load(ordering: .relaxed)
      summary.steadySeconds = Double(end - steadyStart) / 1e9
    }
    summary.interrupted = counters.interrupted.load(ordering: .relaxed)
    summary.stoppedByFailure = counters.stoppedByFailures.load(ordering: .relaxed)
    summary.manifestPath = manifestPath
    summary.firstError = state.firstError
    summary.staleTemporaryFiles = staleTemporaryFiles
    summary.handOffs = counters.handOffs.withLock { $0 }
    if let writeError = state.writeError { throw BatchError(writeError) }
    if let readError { throw readError }

    let complete = !summary.interrupted && !summary.stoppedByFailure
    if complete, config.writesManifest {
      unlink(manifestPath + ".resume")
      if let shard = config.shard {
        let completion = ShardCompletion(
          shard: shard.description, inputLines: inputLines, blankLines: blankLines, records: summary.records,
          failures: summary.failures, labels: config.labels)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try directory.writeAtomically(try encoder.encode(completion), named: shard.completionName, worker: 0)
      }
    }
    return summary
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
  func nextJob() -> Job? {
    let (counters, shard) = (counters, configuration.shard)
    let checksIDs = configuration.parser.format == .jsonl
    return feed.withLock { feed -> Job? in
      guard feed.error == nil, let lines = feed.lines else { return nil }
      do {
        while !counters.stop.load(ordering: .relaxed), let line = try lines.next() {
          counters.inputBytesRead.store(lines.consumed, ordering: .relaxed)
          let isMine = shard?.contains(line: line.number) ?? true
          if !line.isTooLong, TileParser.isBlank(line.bytes) {
            if isMine { feed.blankLines += 1 }
            continue
          }
          // Every shard reads every line's id, so that two shards never write one file either.
          var keys: LineKeys?
          var firstLine: Int?
          if checksIDs, !line.isTooLong {
            let scanned = LineKeys(line.bytes)
            if let id = scanned.id { firstLine = feed.seen.firstLine(of: id, line: line.number) }
            keys = scanned
          }
          guard isMine else { continue }
          let previous = try feed.previous?.record(forLine: line.number)
          feed.sequence += 1
          return Job(
            sequence: feed.sequence - 1, line: line.number, bytes: line.bytes, isTooLong: line.isTooLong,
            previous: previous, duplicateKey: keys?.duplicateKey, firstLine: firstLine)
        }
      } catch {
        feed.error = error
        counters.stop.store(true, ordering: .relaxed)
      }
      return nil
    }
  }

  private func work(worker: Int, directory: OutputDirectory) {
    var isFirst = true
    var handedOver: Prepared?
    var counts = HandOffCounts()
    defer { counters.handOffs.withLock { $0 = $0 + counts } }
    while let prepared = handedOver ?? nextToDraw(directory: directory, counts: &counts) {
      handedOver = nil
      let (outcome, sequence) =
        switch prepared {
        case .draw(let tile): (draw(tile), tile.sequence)
        case .done(let outcome, let sequence): (outcome, sequence)
        }
      countProcessed(outcome, isFirst: isFirst)
      isFirst = false
      guard case .encoded(let encoded) = outcome, configuration.writeThread else {
        if case .encoded = outcome { counts.writtenByWorkers += 1 }
        complete(outcome, sequence: sequence, as: worker, in: directory)
        continue
      }
      // Queued for the writer thread, unless it is a backlog behind; the next prepared line comes
      // back under the same lock.
      let (backlog, next) = enqueueForWriting(encoded)
      handedOver = next
      if let backlog {
        counts.writtenByWorkers += 1
        complete(.encoded(backlog), sequence: sequence, as: worker, in: directory)
      }
    }
  }

  /// The next line for this worker to draw: one the writer thread prepared, else the next line of
  /// the input, prepared here. Nil at the end of the input (or on a stop), once no line is left
  /// being prepared.
  private func nextToDraw(directory: OutputDirectory, counts: inout HandOffCounts) -> Prepared? {
    if configuration.writeThread {
      // A slot first, as below, unless the writer has a line ready (it took the line's slot).
      if let prepared = takePrepared() { return prepared }
      if windowSlots.wait(timeout: .now()) != .success,
        case .line(let prepared) = waitForPreparedLine(orSlot: true)
      {
        return prepared
      }
    } else {
      // A slot first: a worker never holds a line the window has no room for.
      windowSlots.wait()
    }
    if let job = nextJob() {
      counts.preparedByWorkers += 1
      return prepare(job, directory: directory)
    }
    windowSlots.signal()
    guard configuration.writeThread, case .line(let prepared) = waitForPreparedLine(orSlot: false) else { return nil }
    return prepared
  }

  /// Hands what was made of a line to the commit step: writing an encoded tile's PNG here (or
  /// checksumming it for the tar file) first.
  func complete(_ outcome: Outcome, sequence: Int, as writer: Int, in directory: OutputDirectory) {
    switch outcome {
    case .finished(let record, let reused):
      finish(record, reused: reused, sequence: sequence)
    case .encoded(let encoded) where configuration.output == .webdataset:
      let (record, payload) = member(encoded)
      finish(record, payload: payload, reused: false, sequence: encoded.sequence)
    case .encoded(let encoded):
      finish(written(encoded, as: writer, in: directory), reused: false, sequence: encoded.sequence)
    case .member(let record, let payload, let reused):
      finish(record, payload: payload, reused: reused, sequence: sequence)
    }
  }

  /// Counts a tile for the steady rate, and starts its clock once every worker has finished a line.
  func countProcessed(_ outcome: Outcome, isFirst: Bool) {
    switch outcome {
    case .finished(let record, _) where record.error != nil: break
    default: counters.tilesProcessed.add(1, ordering: .relaxed)
    }
    guard isFirst, counters.warmWorkers.add(1, ordering: .relaxed).newValue == configuration.workers else { return }
    counters.tilesBeforeSteady.store(counters.tilesProcessed.load(ordering: .relaxed), ordering: .relaxed)
    counters.steadyStart.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
  }

  /// Writes an encoded tile's PNG (temporary file, then rename) and returns its finished record.
  func written(_ encoded: Encoded, as writer: Int, in directory: OutputDirectory) -> ManifestRecord {
    let start = DispatchTime.now().uptimeNanoseconds
    var record = encoded.record
    let sidecar = encoded.boxes?.json()
    let checksums = Self.checksums(png: encoded.png, sidecar: sidecar)
    do {
      if let sidecar, let name = record.boxes {
        // Before the PNG: a tile whose PNG is in place has its boxes too.
        try directory.writeAtomically(sidecar, named: name, worker: writer)
        record.setSidecar(sidecar, sha256: checksums.sidecar)
      }
      try directory.writeAtomically(encoded.png, named: encoded.file, worker: writer)
      record.setImage(of: encoded, sha256: checksums.png)
    } catch {
      record.error = "\(error)"
    }
    record.ms = Self.milliseconds(encoded.workNanoseconds + DispatchTime.now().uptimeNanoseconds - start)
    return record
  }

  /// An encoded tile's finished record and its members for the tar writer (`--output webdataset`):
  /// the checksums are taken here, so the commit step only places the members.
  func member(_ encoded: Encoded) -> (ManifestRecord, TarShardWriter.Payload) {
    let start = DispatchTime.now().uptimeNanoseconds
    var record = encoded.record
    let sidecar = encoded.boxes?.json()
    let payload = TarShardWriter.Payload(image: encoded.png, sidecar: sidecar)
    let checksums = Self.checksums(png: encoded.png, sidecar: sidecar)
    if let sidecar { record.setSidecar(sidecar, sha256: checksums.sidecar) }
    record.setImage(of: encoded, sha256: checksums.png)
    record.ms = Self.milliseconds(encoded.workNanoseconds + DispatchTime.now().uptimeNanoseconds - start)
    return (record, payload)
  }

  /// The SHA-256 of an encoded tile's PNG and of its sidecar, if it has one: the PNG is hashed
  /// alongside the sidecar (`SHA256.hex(_:alongside:)`), nearly free beside it.
  private static func checksums(png: Data, sidecar: Data?) -> (png: String, sidecar: String?) {
    guard let sidecar else { return (SHA256.hex(png), nil) }
    let (png, boxes) = SHA256.hex(png, alongside: sidecar)
    return (png, boxes)
  }

  static func milliseconds(_ nanoseconds: UInt64) -> Double { (Double(nanoseconds) / 1e3).rounded() / 1e3 }
}

extension ManifestRecord {
  /// The sidecar's size and checksum, once it is written or handed to the tar writer.
  fileprivate mutating func setSidecar(_ sidecar: Data, sha256: String?) {
    boxesBytes = sidecar.count
    boxesSha256 = sha256
  }

  /// What the encoded image gives the record, once it is written or handed to the tar writer.
  fileprivate mutating func setImage(of encoded: BatchEngine.Encoded, sha256: String) {
    file = encoded.file
    width = encoded.width
    height = encoded.height
    lines = encoded.lines
    unknownGlyphs = encoded.unknownGlyphs
    bytes = encoded.png.count
    self.sha256 = sha256
  }
}
