import AsyncLayer
import Foundation
import Synchronization

/// CPU time of the whole process (all threads), for "CPU ms" columns.
func processCPUTime() -> Duration {
  var spec = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
  return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
}

private let nextThreadNumber = Atomic<Int>(1)
private let threadNumbers = ThreadLocal { nextThreadNumber.add(1, ordering: .relaxed).oldValue }

/// A number unique to the calling thread for the life of the process (pthread ids are recycled as
/// soon as a thread exits, which would undercount thread-per-task).
func currentThreadNumber() -> Int { threadNumbers.value }

extension Duration {
  /// Milliseconds as a Double.
  var milliseconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
  }
}

/// Percentiles of a sample, by nearest rank.
func percentile(_ values: [Double], _ p: Double) -> Double {
  guard !values.isEmpty else { return 0 }
  let sorted = values.sorted()
  let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
  return sorted[min(max(rank, 0), sorted.count - 1)]
}

/// The median of a sample.
func median(_ values: [Double]) -> Double { percentile(values, 50) }

/// A plain text table with right-aligned numeric columns.
struct TextTable {
  let headers: [String]
  var rows: [[String]] = []

  mutating func add(_ row: [String]) { rows.append(row) }

  func render() -> String {
    let widths = headers.indices.map { column in
      ([headers[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
    }
    func line(_ cells: [String]) -> String {
      cells.enumerated().map { index, cell in
        let pad = String(repeating: " ", count: widths[index] - cell.count)
        return index == 0 ? cell + pad : pad + cell
      }.joined(separator: "  ")
    }
    let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
    return ([line(headers), rule] + rows.map(line)).joined(separator: "\n")
  }
}

/// Writes `value` as pretty JSON to `path`.
func writeJSON<T: Encodable>(_ value: T, to path: String) throws {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
  try FileAccess.write(encoder.encode(value), to: path)
}

/// An error whose description is its message.
struct ValidationErrorMessage: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
