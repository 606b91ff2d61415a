import AsyncLayer
import DequeModule
import Foundation

/// The writer thread (`--write-thread`): everything of a tile but its drawing, so that the workers
/// only draw. Ahead of them it prepares lines (reads, parses and checks them, begins their records,
/// keeps the previous run's tiles); behind them it writes, checksums and commits their encoded tiles,
/// in the order they were encoded (with `--output webdataset` it checksums them and the commit step
/// places them in the tar file). A worker hands over an encoded tile and takes the next prepared
/// line under one lock, and wakes the writer once a batch of tiles is queued or the prepared lines
/// run low, not for every tile. Nothing waits for the writer: a worker with no prepared line reads
/// and prepares one itself, and writes a tile itself while the writer is a backlog behind.
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

  /// What the workers and the writer thread hand each other, under one lock.
  struct WriteQueue {
    /// Encoded tiles for the writer, in the order they were encoded.
    var tiles = Deque<Encoded>()
    /// Lines the writer prepared for the workers, in input order.
    var ready = Deque<Prepared>()
    /// Lines the writer is preparing now (taken from the input, not yet in `ready`): a worker at
    /// the end of the input waits for them rather than end while one is still to be drawn.
    var preparing = 0
    /// Workers waiting for `preparing` lines (`waitForPreparedLine(orSlot:)`), woken
    /// by `readyWake`.
    var waitingWorkers = 0
    /// Workers waiting for a window slot: the writer prepares no line meanwhile, so that the slots
    /// its commits free go to them (a line it prepared with the last slot would wait in `ready`
    /// while they wait for a slot).
    var slotWaiters = 0
    /// The input gave the writer no line: it prepares no more.
    var inputEnded = false
    var isClosed = false
    /// The writer is (about to be) waiting on `writerWake`: an append that fills a hand-off batch,
    /// prepared lines running low, a worker about to wait for a window slot, or the close signals it.
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

  /// Prepared lines the writer keeps ready for the workers: two hand-off batches, so that the
  /// workers still have lines while the writer sleeps until the next batch of tiles; at most half
  /// the window, so that prepared lines do not hold the slots the tiles in flight need.
  static func readyTarget(window: Int) -> Int { max(1, min(2 * writerWakeBatch(window: window), window / 2)) }

  /// Prepared lines at or below which a worker wakes a sleeping writer to prepare more.
  static func readyLowWater(window: Int) -> Int { readyTarget(window: window) / 2 }

  /// Hands an encoded tile to the writer thread and takes the next prepared line, if there is one,
  /// under one lock; wakes the writer when it sleeps and a batch is queued or prepared lines run
  /// low. Returns the tile as `backlog` when the writer is `writerBacklog` tiles behind: the worker
  /// writes it itself.
  func enqueueForWriting(_ encoded: Encoded) -> (backlog: Encoded?, next: Prepared?) {
    let (batch, backlog, lowWater) = (writerWakeBatch, writerBacklog, readyLowWater)
    let (queued, next, wakeWriter) = writeQueue.withLock { queue -> (Bool, Prepared?, Bool) in
      let queued = queue.tiles.count < backlog
      if queued { queue.tiles.append(encoded) }
      let next = queue.ready.popFirst()
      let wakes =
        queue.tiles.count >= (queued ? batch : 1) || (!queue.inputEnded && queue.ready.count <= lowWater)
      guard queue.isSleeping, wakes else { return (queued, next, false) }
      queue.isSleeping = false
      return (queued, next, true)
    }
    if wakeWriter { writerWake.signal() }
    return (queued ? nil : encoded, next)
  }

  /// The next line the writer prepared, if there is one; wakes a sleeping writer when they run low.
  func takePrepared() -> Prepared? {
    let lowWater = readyLowWater
    let (prepared, wakeWriter) = writeQueue.withLock { queue -> (Prepared?, Bool) in
      let prepared = queue.ready.popFirst()
      guard queue.isSleeping, !queue.inputEnded, queue.ready.count <= lowWater else { return (prepared, false) }
      queue.isSleeping = false
      return (prepared, true)
    }
    if wakeWriter { writerWake.signal() }
    return prepared
  }

  /// What a worker waiting on the writer got: a prepared line, a window slot, or neither.
  enum LineOrSlot {
    case line(Prepared)
    case slot
    case none
  }

  /// A line the writer has prepared or is preparing (it holds that line's slot), one at a time;
  /// when there is none, with `orSlot` the next window slot to be freed, once the writer was woken
  /// for the tiles that free it, else `.none`. A worker waits here with the window full, or at the
  /// end of the input for a line the writer took from it just before — never in the steady run.
  func waitForPreparedLine(orSlot: Bool) -> LineOrSlot {
    enum Wait { case line(Prepared), forLine, forSlot, none }
    while true {
      let wait = writeQueue.withLock { queue -> Wait in
        if let prepared = queue.ready.popFirst() { return .line(prepared) }
        if queue.preparing > 0 {
          queue.waitingWorkers += 1
          return .forLine
        }
        guard orSlot else { return .none }
        queue.slotWaiters += 1
        return .forSlot
      }
      switch wait {
      case .line(let prepared):
        return .line(prepared)
      case .forLine:
        readyWake.wait()
      case .forSlot:
        wakeWriterForQueuedTiles()
        windowSlots.wait()
        writeQueue.withLock { $0.slotWaiters -= 1 }
        return .slot
      case .none:
        return .none
      }
    }
  }

  /// On the writer thread: prepares lines until `readyTarget` are ready, never waiting for a window
  /// slot (the writer's commits are what free them), and not while it is more than a batch of tiles
  /// behind. A line that needs no drawing (an error, the previous run's tile kept) is finished here.
  /// Stops at the end of the input.
  private func prepareLines(as writer: Int, directory: OutputDirectory, counts: inout HandOffCounts) {
    let (target, batch) = (readyTarget, writerWakeBatch)
    while true {
      let proceeds = writeQueue.withLock { queue -> Bool in
        // More than a batch of tiles behind, the writer writes first: its commits free the slots,
        // and the workers prepare their own lines meanwhile, so that the queue can reach the
        // backlog at which they write tiles too (on a file system slower than the drawing).
        guard !queue.inputEnded, !queue.isClosed, queue.slotWaiters == 0, queue.tiles.count <= batch,
          queue.ready.count + queue.preparing < target
        else { return false }
        queue.preparing += 1
        return true
      }
      guard proceeds else { return }
      var prepared: Prepared?
      var inputEnded = false
      if windowSlots.wait(timeout: .now()) == .success {
        if let job = nextJob() {
          counts.preparedByWriter += 1
          prepared = prepare(job, directory: directory)
        } else {
          windowSlots.signal()
          inputEnded = true
        }
      }
      let wakes = writeQueue.withLock { queue -> Int in
        queue.preparing -= 1
        if inputEnded { queue.inputEnded = true }
        var appended = false
        if case .draw? = prepared, let prepared {
          queue.ready.append(prepared)
          appended = true
        }
        // One waiting worker per line; all of them once nothing is left being prepared.
        let wakes = queue.preparing == 0 ? queue.waitingWorkers : min(appended ? 1 : 0, queue.waitingWorkers)
        queue.waitingWorkers -= wakes
        return wakes
      }
      for _ in 0..<wakes { readyWake.signal() }
      switch prepared {
      case .draw?: continue
      case .done(let outcome, let sequence)?:
        countProcessed(outcome, isFirst: false)
        complete(outcome, sequence: sequence, as: writer, in: directory)
      case nil: return  // no window slot free, or the end of the input
      }
    }
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

  /// The writer thread: keeps lines prepared for the workers, and writes each encoded tile and
  /// commits its record, until the queue closes.
  func write(as writer: Int, directory: OutputDirectory) {
    var counts = HandOffCounts()
    defer { counters.handOffs.withLock { $0 = $0 + counts } }
    // An enum, not a tuple of an optional tile and a flag: the tuple was destroyed through the
    // runtime's generic witnesses (`tuple_destroy`, ~850 instructions a tile, callgrind).
    enum Next {
      case tile(Encoded)
      case sleep
      case end
    }
    while true {
      prepareLines(as: writer, directory: directory, counts: &counts)
      let next = writeQueue.withLock { queue -> Next in
        if let tile = queue.tiles.popFirst() { return .tile(tile) }
        if queue.isClosed { return .end }
        queue.isSleeping = true
        return .sleep
      }
      switch consume next {
      case .tile(let tile):
        counts.writtenByWriter += 1
        complete(.encoded(tile), sequence: tile.sequence, as: writer, in: directory)
      case .sleep:
        writerWake.wait()
      case .end:
        return
      }
    }
  }
}
