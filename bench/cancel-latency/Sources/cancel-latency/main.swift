// How long from `Task.cancel()` to the `CancellationError` of an async render, per kind of work:
//   cd bench/cancel-latency && swift run -c release cancel-latency [runs]
// Each case starts a render on its own pool, waits a given delay (this is a benchmark: real time),
// cancels, and times cancel → throw on the continuous clock. Medians and maxima per delay.
import AsyncLayer
import Dispatch
import Foundation

let runs = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 5
let clock = ContinuousClock()

func ms(_ duration: Duration) -> Double {
  Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

/// Starts `work`, cancels it `delay` after the start, returns (cancel → throw, how it ended).
func cancelLatency(after delay: Duration, _ work: @escaping @Sendable () async throws -> Void) async -> (
  Duration, String
) {
  let task = Task { try await work() }
  try? await Task.sleep(for: delay)
  let cancelled = clock.now
  task.cancel()
  let ended: String
  do {
    try await task.value
    ended = "returned"
  } catch is CancellationError {
    ended = "cancelled"
  } catch {
    ended = "error: \(error)"
  }
  return (clock.now - cancelled, ended)
}

func report(_ name: String, delays: [Duration], _ work: @escaping @Sendable () async throws -> Void) async {
  for delay in delays {
    var latencies: [Double] = []
    var endings: [String: Int] = [:]
    for _ in 0..<runs {
      let (latency, ended) = await cancelLatency(after: delay, work)
      latencies.append(ms(latency))
      endings[ended, default: 0] += 1
    }
    let line = String(
      format: "%-44@ cancel at %5.0f ms: cancel→end median %8.2f ms, max %8.2f ms  %@", name as NSString,
      ms(delay), median(latencies), latencies.max() ?? .nan,
      endings.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ") as NSString)
    print(line)
  }
}

func time(_ name: String, _ body: () throws -> Void) {
  let start = clock.now
  do { try body() } catch { print("  (\(name) threw \(error))") }
  print(String(format: "%-44@ uncancelled: %8.1f ms", name as NSString, ms(clock.now - start)))
}

let pool = QueuePool(queueCount: 2, name: "bench")
let style = TextStyle(font: "DejaVu Sans 14")
let prose = String(repeating: "The quick brown fox jumps over the lazy dog, and keeps running. ", count: 4)
let hugeParagraph = String(
  String(repeating: "lorem ipsum dolor sit amet consectetur ", count: 7_000).prefix(256 << 10 - 16))
let khmerWords = ["ភាសា", "ខ្មែរ", "មិន", "ដក", "ឃ្លា", "រវាង", "ពាក្យ", "ទេ", "ដូច", "ភាសា", "ថៃ", "ដែរ"]
var khmer = ""
while khmer.utf8.count < 250_000 { khmer += khmerWords[khmer.utf8.count % khmerWords.count] }
let khmerText = khmer

let normalTile = TextTile(.plain(prose), style: style, width: 375, scale: 2, background: .white)
let bigTile = TextTile(.plain(prose), style: style, width: 6000, height: 5134, scale: 2, background: .white)
let hugeTile = TextTile(.plain(hugeParagraph), style: style, width: 375, height: 800, scale: 2, background: .white)
let khmerTile = TextTile(
  .plain(khmerText), style: TextStyle(font: "Khmer OS 14"), width: 375, height: 800, scale: 2, background: .white)

if CommandLine.arguments.contains("--unbroken-scan") {
  // How a run without break opportunities grows: Khmer without spaces (wrapped word-char by
  // default) and Latin letters without spaces in .wordChar, at 375 points.
  for kib in [8, 16, 24, 32, 48, 64] {
    let khmerRun = String(khmerText.utf8.prefix(kib << 10).split(separator: 0).first.map { Substring($0) } ?? "")
    var wordChar = style
    wordChar.wrap = .wordChar
    let latin = String(repeating: "abcdefghij", count: (kib << 10) / 10)
    for (name, tile) in [
      (
        "Khmer without spaces",
        TextTile(.plain(khmerRun), style: TextStyle(font: "Khmer OS 14"), width: 375, height: 800)
      ),
      ("Latin letters, .wordChar", TextTile(.plain(latin), style: wordChar, width: 375, height: 800)),
    ] {
      time("\(kib) KiB \(name)") { _ = try tile.render() }
    }
  }
  exit(0)
}

print("cancel-latency: \(runs) runs per delay, \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date())")
time("normal tile (375 pt, scale 2)") { _ = try normalTile.render() }
time("12000×10268 px tile") { _ = try bigTile.render() }
time("256 KiB single paragraph") { _ = try hugeTile.render() }
time("250 KB Khmer without spaces") { _ = try khmerTile.render() }

// Queued: a pool of one queue held busy; the tile waits behind it.
let held = QueuePool(queueCount: 1, name: "held")
let release = DispatchSemaphore(value: 0)
held.enqueue { release.wait() }
await report("queued tile", delays: [.milliseconds(5)]) { _ = try await normalTile.render(on: held) }
release.signal()

let delays: [Duration] = [.milliseconds(2), .milliseconds(10), .milliseconds(50), .milliseconds(150)]
await report("running normal tile", delays: [.microseconds(200), .milliseconds(1)]) {
  _ = try await normalTile.render(on: pool)
}
await report("running 12000×10268 px tile", delays: delays) { _ = try await bigTile.render(on: pool) }
await report("running 256 KiB single paragraph", delays: delays) { _ = try await hugeTile.render(on: pool) }
await report("running 250 KB Khmer without spaces", delays: delays) { _ = try await khmerTile.render(on: pool) }

var document = ReportDocument(title: "Latency", pageSize: Size(width: 595, height: 842))
for index in 0..<60 { document.addParagraph("Paragraph \(index). " + String(repeating: prose, count: 6)) }
let layout = try ReportLayout(document)
print("report: \(layout.pages.count) pages")
time("report pages at scale 2, one by one") {
  for index in layout.pages.indices { _ = try layout.renderPage(index, scale: 2) }
}
await report("running report renderPages (scale 2)", delays: delays) {
  _ = try await layout.renderPages(scale: 2, on: pool)
}
await report("running report pdfData", delays: [.milliseconds(2), .milliseconds(10)]) {
  _ = try await layout.pdfData(on: pool)
}
