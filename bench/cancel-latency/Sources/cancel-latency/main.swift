// How long from `Task.cancel()` to the `CancellationError` of an async render, per kind of work:
//   cd bench/cancel-latency && swift run -c release cancel-latency [runs]
//   ... cancel-latency [runs] --gaps   the longest stretch between cancellation checks per tile (texts
//                                      the default limits allow), in pieces and in one layout; --all both
// Each case starts a render on its own pool, waits a given delay (this is a benchmark: real time),
// cancels, and times cancel → throw on the continuous clock. Medians and maxima per delay.
@_spi(Benchmarks) import AsyncLayer
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

// The longest stretch a render spends between two cancellation checks (from its start to the first
// check, between checks, from the last check to its end): the worst cancel → throw latency of
// that render, whenever the cancel comes. Texts the default limits allow.
// The same gaps in this thread's CPU time: the work between checks, which is what a cancel waits
// for on an idle core (wall-clock gaps on a loaded machine also count time spent waiting for a core).
func threadCPUMilliseconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
}

final class CheckGaps: @unchecked Sendable {  // used on one thread, inside one synchronous render
  var last = ContinuousClock.now
  var longest = Duration.zero
  var lastCPU = threadCPUMilliseconds()
  var longestCPU = 0.0
  var count = 0
  func check() -> Bool {
    let now = ContinuousClock.now
    longest = max(longest, now - last)
    last = now
    let cpu = threadCPUMilliseconds()
    longestCPU = max(longestCPU, cpu - lastCPU)
    lastCPU = cpu
    count += 1
    return false
  }
}

/// One render's figures: thread CPU, wall, checks, longest gap (CPU, wall), how it ended.
struct GapRun {
  var cpu = 0.0
  var wall = 0.0
  var checks = 0
  var longestCPU = 0.0
  var longestWall = 0.0
  var outcome = "ok"
}

func checkGaps(_ tile: TextTile) -> GapRun {
  let gaps = CheckGaps()
  let start = clock.now
  let startCPU = threadCPUMilliseconds()
  var outcome = "ok"
  do {
    _ = try tile.render(isCancelled: gaps.check)
  } catch {
    outcome = "threw \(error)"
  }
  gaps.longest = max(gaps.longest, clock.now - gaps.last)
  let endCPU = threadCPUMilliseconds()
  gaps.longestCPU = max(gaps.longestCPU, endCPU - gaps.lastCPU)
  return GapRun(
    cpu: endCPU - startCPU, wall: ms(clock.now - start), checks: gaps.count, longestCPU: gaps.longestCPU,
    longestWall: ms(gaps.longest), outcome: outcome)
}

/// Renders `tile` in pieces and in one layout, alternately, once each to warm the caches and then
/// `runs` times each; prints the medians of each.
func compareGaps(_ name: String, _ tile: TextTile) {
  var single = tile
  single.laysOutLongTextInPieces = false
  _ = checkGaps(tile)
  _ = checkGaps(single)
  var results: [[GapRun]] = [[], []]
  for _ in 0..<runs {
    results[0].append(checkGaps(tile))
    results[1].append(checkGaps(single))
  }
  for (label, list) in zip(["", "  one layout: "], results) {
    let outcomes = Set(list.map(\.outcome)).sorted().joined(separator: ", ")
    print(
      String(
        format: "%-70@ CPU %8.1f ms (wall %8.1f), %5d checks, longest gap CPU %7.2f ms (max %7.2f; wall %7.2f)  %@",
        (label + name) as NSString, median(list.map(\.cpu)), median(list.map(\.wall)), list[0].checks,
        median(list.map(\.longestCPU)), list.map(\.longestCPU).max() ?? .nan, median(list.map(\.longestWall)),
        outcomes as NSString))
  }
}

func limitedText(_ unit: String, bytes: Int = 256 << 10) -> String {
  var text = String(repeating: unit, count: bytes / unit.utf8.count)
  while text.utf8.count > bytes { text.removeLast() }
  return text
}

if CommandLine.arguments.contains("--gaps") || CommandLine.arguments.contains("--all") {
  let latin = limitedText("lorem ipsum dolor sit amet consectetur ")
  let arabic = limitedText("مرحبا بالعالم، هذا نص عربي طويل يلتف على عدة أسطر في الفقرة. ")
  let cjk = limitedText("天地玄黄，宇宙洪荒。日月盈昃，辰宿列张。寒来暑往，秋收冬藏。")
  let markup = limitedText("word <b>bold <i>and italic</i> running on</b> <span size=\"x-large\">big</span> ")
  let paragraphs = (0..<1_000).map { _ in String(latin.prefix(255)) }.joined(separator: "\n")
  var wordChar = style
  wordChar.wrap = .wordChar
  var ellipsized = style
  ellipsized.ellipsize = .end
  var hanging = style
  hanging.firstLineIndent = -20
  var hangingCentred = hanging
  hangingCentred.alignment = .center
  var startEllipsis = style
  startEllipsis.ellipsize = .start
  var middleEllipsis = style
  middleEllipsis.ellipsize = .middle
  var lineLimit = ellipsized
  lineLimit.maxLines = 5
  var verticalLatin = style
  verticalLatin.orientation = .vertical
  var verticalCJK = TextStyle(font: "Noto Sans CJK JP 14")
  verticalCJK.orientation = .vertical
  let unbroken = String(repeating: "abcdefghij", count: (16 << 10) / 10)
  var khmerRun = ""
  for word in Array(repeating: khmerWords, count: 400).joined() where khmerRun.utf8.count + word.utf8.count <= 16 << 10
  {
    khmerRun += word
  }
  let cases: [(String, TextTile)] = [
    ("normal tile (375 pt, scale 2)", normalTile),
    ("12000×10268 px tile", bigTile),
    ("256 KiB paragraph, 375 pt × 800 pt, scale 2", hugeTile),
    ("256 KiB paragraph, 4000 pt, all lines", TextTile(.plain(latin), style: style, width: 4000, background: .white)),
    (
      "1,000 paragraphs of 256 B, 2000 pt, all lines",
      TextTile(.plain(paragraphs), style: style, width: 2000, background: .white)
    ),
    ("256 KiB markup, 4000 pt, all lines", TextTile(.markup(markup), style: style, width: 4000, background: .white)),
    ("256 KiB Arabic paragraph, 4000 pt, all lines", TextTile(.plain(arabic), style: style, width: 4000)),
    ("256 KiB CJK paragraph, 4000 pt, all lines", TextTile(.plain(cjk), style: style, width: 4000)),
    ("16 KiB Latin run, .wordChar, 375 pt, all lines", TextTile(.plain(unbroken), style: wordChar, width: 375)),
    (
      "16 KiB Khmer without spaces, 375 pt, all lines",
      TextTile(.plain(khmerRun), style: TextStyle(font: "Khmer OS 14"), width: 375)
    ),
    ("256 KiB paragraph, 375 × 800 pt, ellipsis", TextTile(.plain(latin), style: ellipsized, width: 375, height: 800)),
    (
      "256 KiB paragraph, 4000 × 800 pt, ellipsis", TextTile(.plain(latin), style: ellipsized, width: 4000, height: 800)
    ),
    (
      "256 KiB Arabic, 375 × 800 pt, ellipsis", TextTile(.plain(arabic), style: ellipsized, width: 375, height: 800)
    ),
    (
      "12000×10268 px tile of 256 KiB, ellipsis",
      TextTile(.plain(latin), style: ellipsized, width: 6000, height: 5134, scale: 2)
    ),
    ("256 KiB paragraph, 4000 pt, hanging indent", TextTile(.plain(latin), style: hanging, width: 4000)),
    ("256 KiB Arabic, 4000 pt, hanging indent", TextTile(.plain(arabic), style: hanging, width: 4000)),
    ("256 KiB paragraph, 4000 pt, centred hanging indent", TextTile(.plain(latin), style: hangingCentred, width: 4000)),
    (
      "256 KiB paragraph, 375 × 800 pt, ellipsis .start",
      TextTile(.plain(latin), style: startEllipsis, width: 375, height: 800)
    ),
    (
      "256 KiB paragraph, 375 × 800 pt, ellipsis .middle",
      TextTile(.plain(latin), style: middleEllipsis, width: 375, height: 800)
    ),
    ("256 KiB paragraph, 375 pt, maxLines 5, ellipsis", TextTile(.plain(latin), style: lineLimit, width: 375)),
    (
      "1,000 paragraphs of 256 B, 375 pt, maxLines 5, ellipsis",
      TextTile(.plain(paragraphs), style: lineLimit, width: 375)
    ),
    ("256 KiB paragraph, 375 pt, ellipsis, no height", TextTile(.plain(latin), style: ellipsized, width: 375)),
    ("256 KiB CJK, vertical, 4000 pt, all lines", TextTile(.plain(cjk), style: verticalCJK, width: 4000)),
    ("256 KiB Latin, vertical, 4000 pt, all lines", TextTile(.plain(latin), style: verticalLatin, width: 4000)),
    (
      "256 KiB CJK, vertical, 800 × 375 pt", TextTile(.plain(cjk), style: verticalCJK, width: 800, height: 375)
    ),
  ]
  print(
    "check gaps: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date()); medians of \(runs) renders each,"
      + " in pieces and in one layout alternately, after one warm-up render of each")
  let only = CommandLine.arguments.first { $0.hasPrefix("--only=") }.map { String($0.dropFirst(7)) }
  for (name, tile) in cases where only.map({ name.contains($0) }) ?? true {
    compareGaps(name, tile)
  }
  // Whole-layout time of the 256 KiB paragraph, in pieces and in one layout, interleaved.
  var inPieces: [Double] = []
  var inOne: [Double] = []
  let full = TextTile(.plain(latin), style: style, width: 4000, background: .white)
  var fullSingle = full
  fullSingle.laysOutLongTextInPieces = false
  for _ in 0..<runs {
    for (tile, into) in [(full, 0), (fullSingle, 1)] {
      let start = clock.now
      _ = try? tile.render()
      if into == 0 { inPieces.append(ms(clock.now - start)) } else { inOne.append(ms(clock.now - start)) }
    }
  }
  print(
    String(
      format: "256 KiB paragraph at 4000 pt, whole render, median of %d: in pieces %.1f ms, one layout %.1f ms",
      runs, median(inPieces), median(inOne)))
  if !CommandLine.arguments.contains("--all") { exit(0) }
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
