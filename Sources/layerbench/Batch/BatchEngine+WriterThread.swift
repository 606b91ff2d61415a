import AsyncLayer
import DequeModule
import Foundation

/// The writer thread (`--write-thread`): the workers hand it encoded tiles, which it writes, checksums
/// and commits, in the order they were encoded. With `--output webdataset` it checksums them and
/// commits them, the commit step placing them in the tar file. The workers wake it once a batch of
/// tiles is queued (or before they wait for a window slot), not for every tile, and write a tile
/// themselves while it is a backlog behind.
extension BatchEngine {
  /// A rendered, encoded tile the writer thread has still to write.
  struct Encoded: Sendable {
    var sequence: Int
    var record: ManifestRecord
    var file: String
    var png: Data
    /// What its boxes sidecar is written from (`--boxes`), on the thread that writes the tile.
    var boxes: BatchBoxes.Source?
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
    /// The writer is (about to be) waiting on `writerWake`: an append that fills a hand-off batch,
    /// a worker about to wait for a window slot, or the close signals it.
    var isSleeping = false
  }

  /// How many queued tiles wake a sleeping writer: a quarter of the window, at most 8. Waking it
  /// for every tile cost a futex wake on the worker and a sleep and wake-up on the writer's core
  /// per tile; a batch of tiles makes that once per batch. A quarter of the window leaves the
  /// worker three quarters to go on with while the writer drains the batch, and a window under 8
  /// (`--window`) wakes it for every tile, as before.
  static func writerWakeBatch(window: Int) -> Int { max(1, min(8, window / 4)) }

  /// Queued tiles at which a worker writes its tile itself instead of queueing it: three quarters
  /// of the window (at least two wake batches), i.e. shortly before the worker would sleep on a
  /// full window. When the file system is slower than the render (ext4 without a journal scanning
  /// past recently deleted inodes for each new file took two thirds of the writer's time in a
  /// `perf record` of 5,000 tiles, 2026-11-26 17:56 UTC), a writer doing every file alone sets the
  /// pace and the worker waits; sharing the files, both threads work. Not sooner: a writer only
  /// waiting for a core (other processes) catches up by itself.
  static func writerBacklog(window: Int) -> Int { max(2 * writerWakeBatch(window: window), window * 3 / 4) }

  /// Hands an encoded tile to the writer thread, waking it when it sleeps and a batch is queued.
  /// Returns the tile when the writer is `writerBacklog` tiles behind: the worker writes it itself.
  func enqueueForWriting(_ encoded: Encoded) -> Encoded? {
    let (batch, backlog) = (writerWakeBatch, writerBacklog)
    let (queued, wakeWriter) = writeQueue.withLock { queue -> (Bool, Bool) in
      let queued = queue.tiles.count < backlog
      if queued { queue.tiles.append(encoded) }
      guard queue.isSleeping, queue.tiles.count >= (queued ? batch : 1) else { return (queued, false) }
      queue.isSleeping = false
      return (queued, true)
    }
    if wakeWriter { writerWake.signal() }
    return queued ? nil : encoded
  }

  /// Wakes a sleeping writer that has tiles queued, however few: a worker calls it before it waits
  /// for a window slot, which only the commit of a queued tile may free.
  func wakeWriterForQueuedTiles() {
    let wakeWriter = writeQueue.withLock { queue -> Bool in
      guard queue.isSleeping, !queue.tiles.isEmpty else { return false }
      queue.isSleeping = false
      return true
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
