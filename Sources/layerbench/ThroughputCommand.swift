import ArgumentParser
import AsyncLayer
import Foundation

/// `layerbench throughput`: renders one tile many times per worker, without writing files.
struct ThroughputCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "throughput",
    abstract: "Render the same tile N times per worker and print tiles per second."
  )

  @Option(help: "Text of the tile.")
  var text =
    "The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."

  @Option(help: "Tiles each worker renders.")
  var tiles = 200

  @Option(help: "Worker threads.")
  var workers = 1

  @OptionGroup var options: TextOptions

  func validate() throws {
    guard tiles > 0 else { throw ValidationError("--tiles must be at least 1") }
    guard workers > 0 else { throw ValidationError("--workers must be at least 1") }
  }

  func run() async throws {
    let tile = options.tile(.plain(text))
    _ = try tile.render()  // fail early on bad input
    let start = ContinuousClock.now
    let tilesPerWorker = tiles
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
      for _ in 0..<tilesPerWorker { _ = try? tile.render() }
    }
    let seconds = (ContinuousClock.now - start) / .seconds(1)
    let total = tiles * workers
    print(
      String(
        format: "%d tiles on %d worker(s) in %.3f s: %.1f tiles/s (%.3f ms per tile per worker)", total, workers,
        seconds, Double(total) / seconds, seconds * 1000 / Double(tiles)))
  }
}
