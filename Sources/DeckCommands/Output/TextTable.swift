import ArgumentParsing

/// A plain table of short cells: columns as wide as their widest cell (in terminal cells),
/// two spaces apart; cells that would run past `width` are cut with `…` from the widest
/// left-aligned column. Cells must already be escaped (``String/escapingControlCharacters()``).
enum TextTable {
    static func render(headers: [String], rows: [[String]], rightAligned: Set<Int> = [], width: Int) -> String {
        let all = [headers] + rows
        var widths = headers.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].terminalCellWidth : 0 }.max() ?? 0 }
        let available = max(width, 40) - 2 * (headers.count - 1)
        let shrinkable = headers.indices.filter { !rightAligned.contains($0) }
        while widths.reduce(0, +) > available {
            guard let widest = shrinkable.max(by: { widths[$0] < widths[$1] }), widths[widest] > 6 else { break }
            widths[widest] -= 1
        }
        var text = ""
        for row in all {
            var line = ""
            for column in headers.indices {
                let cell = CardPrinter.truncate(row.indices.contains(column) ? row[column] : "", to: widths[column])
                let padding = String(repeating: " ", count: max(0, widths[column] - cell.terminalCellWidth))
                if column > 0 { line += "  " }
                line += rightAligned.contains(column) ? padding + cell : cell + padding
            }
            while line.hasSuffix(" ") { line.removeLast() }
            text += line + "\n"
        }
        return text
    }

    /// Multi-line text with each line's control characters escaped, the line breaks kept.
    static func escapedLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).escapingControlCharacters() }.joined(separator: "\n")
    }
}
