import Dispatch
import Foundation
import Synchronization

/// The progress line of a batch run: redrawn in place on a terminal (bar, rate, ETA), one line
/// every `interval` seconds otherwise (CI logs). The fraction done is the share of input bytes read.
final class BatchProgress {
  private let counters: BatchCounters
  private let inputSize: Int
  private let interval: Double
  private let timer: any DispatchSourceTimer
  private let startTime = DispatchTime.now().uptimeNanoseconds
  private let onTerminal = Terminal.stderrIsTerminal
  private var started = false

  init(counters: BatchCounters, inputSize: Int, interval: Double) {
    self.counters = counters
    self.inputSize = inputSize
    self.interval = interval
    timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
  }

  func start() {
    let period = onTerminal ? 0.25 : interval
    guard period > 0 else { return }
    started = true
    timer.schedule(deadline: .now() + period, repeating: period)
    let (counters, inputSize, startTime, onTerminal) = (counters, inputSize, startTime, onTerminal)
    timer.setEventHandler {
      Self.report(counters: counters, inputSize: inputSize, startTime: startTime, onTerminal: onTerminal)
    }
    timer.resume()
  }

  func stop() {
    // A dispatch source released while suspended is a crash: resume the one that never started.
    if !started { timer.resume() }
    timer.cancel()
    if onTerminal {
      Self.report(counters: counters, inputSize: inputSize, startTime: startTime, onTerminal: true, final: true)
    }
  }

  private static func report(
    counters: BatchCounters, inputSize: Int, startTime: UInt64, onTerminal: Bool, final: Bool = false
  ) {
    let records = counters.records.load(ordering: .relaxed)
    let failures = counters.failures.load(ordering: .relaxed)
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - startTime) / 1e9
    let fraction =
      final ? 1 : min(1, Double(counters.inputBytesRead.load(ordering: .relaxed)) / Double(max(inputSize, 1)))
    let rate = Double(records) / max(elapsed, 1e-9)
    let eta = fraction > 0.001 ? Self.duration(elapsed * (1 - fraction) / fraction) : "?"
    let percent = String(format: "%3.0f%%", fraction * 100)
    let facts = "\(records) tiles, \(failures) failed, \(String(format: "%.0f", rate)) tiles/s"
    if onTerminal {
      let width = 24
      let filled = Int(fraction * Double(width))
      let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
      let line = "\r\u{1b}[K[\(bar)] \(percent) \(facts)" + (final ? "\n" : ", ETA \(eta)")
      FileHandle.standardError.write(Data(line.utf8))
    } else {
      FileHandle.standardError.write(Data("batch: \(percent) \(facts), ETA \(eta)\n".utf8))
    }
  }

  static func duration(_ seconds: Double) -> String {
    guard seconds.isFinite else { return "?" }
    let total = Int(seconds.rounded())
    return total >= 3600
      ? String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
      : String(format: "%d:%02d", total / 60, total % 60)
  }
}
