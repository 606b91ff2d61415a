import AsyncLayer
import Dispatch
import Foundation
import Synchronization

/// The commit step: records reach the manifest in input order, in batched writes.
extension BatchEngine {
  /// A finished tile on its way to the manifest: the record and its JSON line, encoded on the worker.
  struct Committed {
    var record: ManifestRecord
    var line: Data
    var reused: Bool
    /// With `--output webdataset`: the tile's members, for the tar writer (the line is then encoded
    /// at commit, once the record has its place in the tar).
    var payload: TarShardWriter.Payload? = nil
  }

  /// What the commit step keeps between calls, under `commitState`.
  struct CommitState {
    var next = 0
    var pending: [Int: Committed] = [:]
    var firstError: String?
    var writeError: String?
    /// Manifest lines committed but not yet written: one `write` per ~32 KiB or 100 ms instead of one
    /// per tile. A kill loses at most these; their tiles are rendered again on resume, to the same bytes.
    /// Bytes, not `Data`: a line appended to `Data` went through its representation's general
    /// `append` (~1,500 instructions a record, callgrind), to an array it is copied.
    var unwritten: [UInt8] = []
    /// When the oldest unwritten line was committed (uptime nanoseconds).
    var unwrittenSince: UInt64 = 0
    /// With `--output webdataset`: the tar writer, and the manifest lines of the tar being filled,
    /// which wait for its rename (a record in the manifest always names a whole tar file).
    var tars: TarShardWriter?
    var heldLines: [UInt8] = []
  }

  /// Manifest lines are written once this many bytes wait...
  static let manifestFlushBytes = 32 << 10
  /// ...or once the oldest has waited this long, checked at each commit (and at the end of the run).
  static let manifestFlushNanoseconds: UInt64 = 100_000_000

  /// Hands a record to the commit step, with its JSON line encoded here, in parallel, not by the
  /// one committing thread.
  func finish(_ record: ManifestRecord, reused: Bool, sequence: Int) {
    let line = configuration.writesManifest ? record.jsonLine() : Data()
    commit(Committed(record: record, line: line, reused: reused), sequence: sequence)
  }

  /// Hands a tile for a tar file to the commit step (`--output webdataset`).
  func finish(_ record: ManifestRecord, payload: TarShardWriter.Payload, reused: Bool, sequence: Int) {
    commit(Committed(record: record, line: Data(), reused: reused, payload: payload), sequence: sequence)
  }

  /// Appends records to the manifest in input order, as soon as every earlier one is there, in
  /// writes of up to `manifestFlushBytes` or `manifestFlushNanoseconds` worth of records.
  private func commit(_ finished: Committed, sequence: Int) {
    commitState.withLock { state in
      // The record the manifest waits for (nearly always, at one worker) goes straight in: no trip
      // through `pending`, whose insert and removal moved the whole record twice.
      var next: Committed?
      if sequence == state.next {
        next = finished
      } else {
        state.pending[sequence] = finished
        next = state.pending.removeValue(forKey: state.next)
      }
      var killAt: Int?
      while var ready = next {
        next = nil
        state.next += 1
        if state.unwritten.isEmpty { state.unwrittenSince = DispatchTime.now().uptimeNanoseconds }
        if let tars = state.tars {
          var completed = false
          if let payload = ready.payload, ready.record.error == nil, state.writeError == nil {
            do {
              completed = try tars.append(&ready.record, payload)
            } catch {
              state.writeError = "\(error)"
              counters.stop.store(true, ordering: .relaxed)
            }
          }
          if ready.payload != nil, configuration.writesManifest { ready.line = ready.record.jsonLine() }
          ready.line.withUnsafeBytes { state.heldLines.append(contentsOf: $0) }
          if completed || !tars.isOpen {
            state.unwritten.append(contentsOf: state.heldLines)
            state.heldLines.removeAll(keepingCapacity: true)
          }
        } else {
          ready.line.withUnsafeBytes { state.unwritten.append(contentsOf: $0) }
        }
        let record = ready.record
        if let error = record.error {
          counters.failures.add(1, ordering: .relaxed)
          if state.firstError == nil { state.firstError = "line \(record.line): \(error)" }
          let failures = counters.failures.load(ordering: .relaxed)
          if configuration.maxFailures.isReached(
            failures: failures, records: counters.records.load(ordering: .relaxed) + 1)
          {
            counters.stoppedByFailures.store(true, ordering: .relaxed)
            counters.stop.store(true, ordering: .relaxed)
          }
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
        if !state.pending.isEmpty { next = state.pending.removeValue(forKey: state.next) }
      }
      let isDue =
        state.unwritten.count >= Self.manifestFlushBytes
        || DispatchTime.now().uptimeNanoseconds - state.unwrittenSince >= Self.manifestFlushNanoseconds
      if isDue || killAt != nil { writeUnwritten(&state) }
      if killAt != nil { kill(getpid(), SIGKILL) }
    }
  }

  /// Closes the last tar file (a partial one at the end of the input or on Ctrl-C) and releases its
  /// records to the manifest.
  func finishTars() {
    commitState.withLock { state in
      guard let tars = state.tars else { return }
      if state.writeError == nil {
        do {
          try tars.closeTar()
        } catch {
          state.writeError = "\(error)"
          return
        }
        state.unwritten.append(contentsOf: state.heldLines)
      }
      state.heldLines.removeAll()
    }
  }

  /// Writes the manifest lines still waiting: at the end of the run and before a second Ctrl-C quits.
  func flushManifest() {
    commitState.withLock { writeUnwritten(&$0) }
  }

  private func writeUnwritten(_ state: inout CommitState) {
    guard !state.unwritten.isEmpty else { return }
    defer { state.unwritten.removeAll(keepingCapacity: true) }
    guard state.writeError == nil else { return }
    do {
      try manifestFD.withLock { fd in
        try state.unwritten.withUnsafeBytes { try BatchFiles.writeAll(fd, $0, path: manifestPath) }
      }
    } catch {
      state.writeError = "\(error)"
      counters.stop.store(true, ordering: .relaxed)
    }
  }
}
