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
