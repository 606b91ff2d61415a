import AsyncLayer
import DequeModule
import Foundation

/// The writer thread (`--write-thread`): the workers hand it encoded tiles, which it writes, checksums
/// and commits, in the order they were encoded. With `--output webdataset` it checksums them and
/// commits them, the commit step placing them in the tar file.
extension BatchEngine {
  /// A rendered, encoded tile the writer thread has still to write.
  struct Encoded: Sendable {
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

  /// The writer thread's input: encoded tiles in the order they were encoded.
  struct WriteQueue {
    var tiles = Deque<Encoded>()
    var isClosed = false
    /// The writer is (about to be) waiting on `writerWake`: the next append or close signals it.
    var isSleeping = false
  }

  /// Hands an encoded tile to the writer thread, waking it when it sleeps.
  func enqueueForWriting(_ encoded: Encoded) {
    let wakeWriter = writeQueue.withLock { queue -> Bool in
      queue.tiles.append(encoded)
      defer { queue.isSleeping = false }
      return queue.isSleeping
    }
    if wakeWriter { writerWake.signal() }
  }

  /// Called once every worker has ended: the writer writes what is queued, then ends.
  func closeWriteQueue() {
    let wakeWriter = writeQueue.withLock { queue -> Bool in
      queue.isClosed = true
      defer { queue.isSleeping = false }
      return queue.isSleeping
    }
    if wakeWriter { writerWake.signal() }
  }

  /// The writer thread: writes each encoded tile and commits its record, until the queue closes.
  func write(as writer: Int, directory: OutputDirectory) {
    while true {
      let next = writeQueue.withLock { queue -> (tile: Encoded?, sleeps: Bool) in
        if let tile = queue.tiles.popFirst() { return (tile, false) }
        if queue.isClosed { return (nil, false) }
        queue.isSleeping = true
        return (nil, true)
      }
      if let tile = next.tile, configuration.output == .webdataset {
        let (record, payload) = member(tile)
        finish(record, payload: payload, reused: false, sequence: tile.sequence)
      } else if let tile = next.tile {
        finish(written(tile, as: writer, in: directory), reused: false, sequence: tile.sequence)
      } else if next.sleeps {
        writerWake.wait()
      } else {
        return
      }
    }
  }
}
