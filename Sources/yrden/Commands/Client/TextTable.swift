/// Rows of text in aligned columns for people: a header, two spaces between columns, numbers aligned right,
/// the last column unpadded.
struct TextTable {
    var header: [String]
    var rows: [[String]] = []
    /// Indices of the columns aligned to the right.
    var rightAligned: Set<Int> = []

    /// The width of each column: its widest cell.
    var widths: [Int] {
        header.indices.map { column in
            ([header] + rows).map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
    }

    func rendered() -> String {
        let widths = widths
        return ([header] + rows).map { row in
            row.enumerated().map { column, cell in
                let isLast = column == row.count - 1
                let padding = String(repeating: " ", count: max(widths[column] - cell.count, 0))
                if rightAligned.contains(column) { return padding + cell }
                return isLast ? cell : cell + padding
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
