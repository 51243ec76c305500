import ArgumentParsing
import Foundation
import Interchange

/// What the CSV and TSV files of one import skipped or cut, summed over the files.
struct TextRowCounts {
    var emptyFirstField = 0
    var emptyRows = 0
    var truncated = 0
    var ignoredColumns: [Int] = []

    /// `; skipped 2 rows with an empty first field, …` for the report line, or "".
    var sentence: String {
        var parts: [String] = []
        if emptyFirstField > 0 { parts.append("skipped \(rows(emptyFirstField)) with an empty first field") }
        if emptyRows > 0 { parts.append("skipped \(emptyRows) empty row\(emptyRows == 1 ? "" : "s")") }
        if truncated > 0 {
            let columns = ignoredColumns.sorted().map(String.init).joined(separator: ", ")
            parts.append("dropped the values of \(rows(truncated)) in column\(ignoredColumns.count == 1 ? "" : "s") \(columns) (no field to go to)")
        }
        return parts.isEmpty ? "" : "; " + parts.joined(separator: "; ")
    }

    private func rows(_ count: Int) -> String { "\(count) row\(count == 1 ? "" : "s")" }
}

extension ImportCommand {
    static func rowCounts(_ diagnostics: [(file: String, TextImportDiagnostics)]) -> TextRowCounts {
        var counts = TextRowCounts()
        for (_, file) in diagnostics {
            counts.emptyFirstField += file.emptyFirstFieldLines.count
            counts.emptyRows += file.emptyRowLines.count
            counts.truncated += file.truncatedRowLines.count
            for column in file.ignoredColumns where !counts.ignoredColumns.contains(column) { counts.ignoredColumns.append(column) }
        }
        return counts
    }

    /// `--verbose`: one line on standard error per row skipped or cut, in line order.
    static func name(_ diagnostics: [(file: String, TextImportDiagnostics)]) {
        let stderr = Terminal.current.stderr
        for (file, found) in diagnostics {
            var lines: [(Int, String)] = []
            lines += found.emptyFirstFieldLines.map { ($0, "skipped: the first field is empty") }
            lines += found.emptyRowLines.map { ($0, "skipped: the row is empty") }
            lines += found.truncatedRowLines.map { ($0, "values dropped from columns with no field to go to") }
            for (line, what) in lines.sorted(by: { $0.0 < $1.0 }) {
                stderr.write("deck: \(file.escapingControlCharacters()):\(line): \(what)\n")
            }
        }
    }

    /// A CSV error of `file` as a command failure, with a hint at the option that helps.
    static func explained(_ error: CSVError, file: String) -> any Error {
        let mapped = ErrorMapping.map(error, path: file)
        guard let failure = mapped as? CommandFailure else { return mapped }
        let hint: String
        switch error.reason {
        case .unmappedColumn: hint = "; name the columns with --columns, or drop it with --ignore-extra-columns"
        case .invalidUTF8: hint = " (if the file is not UTF-8, give its --encoding: latin-1, windows-1252, utf-16)"
        default: return mapped
        }
        return CommandFailure(failure.exitCode, path: failure.path, reason: failure.reason + hint)
    }

    /// `--dry-run`: reads each CSV/TSV file as the import would and prints what it found,
    /// without opening the deck.
    func preview() throws {
        let out = Terminal.current.stdout
        for file in files {
            let settings = text.settings(format: format(of: file), file: file)
            try ErrorMapping.run(path: file) {
                var reader = file == "-" ? TextImportReader.standardInput(settings: settings)
                                         : try TextImportReader(url: URL(fileURLWithPath: file), settings: settings)
                var sample: [TextImportRow] = []
                var count = 0
                do {
                    try reader.readHeaders()
                    while let row = try reader.next() {
                        if sample.count < 5 { sample.append(row) }
                        count += 1
                    }
                } catch let error as CSVError {
                    throw Self.explained(error, file: file)
                }
                out.write(Self.describe(file: file, reader: reader, sample: sample, count: count))
            }
        }
    }

    static func describe(file: String, reader: TextImportReader, sample: [TextImportRow], count: Int) -> String {
        let settings = reader.settings, resolution = reader.resolution
        let fields = settings.fieldNames ?? ["Front", "Back"]
        func shown(_ text: String) -> String {
            let line = text.count > 40 ? String(text.prefix(39)) + "…" : text
            return "\"" + line.escapingControlCharacters() + "\""
        }
        var text = "\(file.escapingControlCharacters()) (dry run, nothing written)\n"
        text += "  encoding:   \(resolution.encoding)\n"
        let separator = settings.separator.map(\.ankiName) ?? "tab"
        let source = switch resolution.separatorSource {
        case .sniffed: " (guessed from the first lines)"
        case .header: " (from #separator:)"
        case .given: " (given)"
        case .none, .headerRow: ""
        }
        text += "  separator:  \(separator)\(source)\n"
        if resolution.headerLines > 0 { text += "  header lines: \(resolution.headerLines) (Anki's #key:value)\n" }
        if let line = resolution.headerRowLine {
            text += "  header row: line \(line) (skipped)\n"
        } else {
            text += "  header row: none (the first row is a note)\n"
        }
        if resolution.backslashEscapes { text += "  escapes:    \\n \\t \\r \\\\ decoded\n" }
        if let notetype = settings.notetype { text += "  note type:  \(notetype.escapingControlCharacters())\n" }
        if let deck = settings.deck { text += "  deck:       \(deck.escapingControlCharacters())\n" }
        if !settings.tags.isEmpty { text += "  tags:       \(settings.tags.joined(separator: " ").escapingControlCharacters())\n" }
        text += "  columns:\n"
        let labels = settings.columns ?? []
        for (index, role) in reader.columnRoles.enumerated() {
            let label = index < labels.count && !labels[index].isEmpty ? " " + shown(labels[index]) : ""
            let target: String = switch role {
            case .front: fields[0]
            case .back: fields.count > 1 ? fields[1] : "Back"
            case .tags: "tags"
            case .guid: "GUID"
            case .notetype: "note type"
            case .deck: "deck"
            case .extra(let name):
                if let name, fields.dropFirst(2).contains(where: { $0.lowercased() == name.lowercased() }) { name } else { "(dropped: no field)" }
            }
            text += "    \(index + 1)\(label) → \(target)\n"
        }
        let diagnostics = reader.diagnostics
        var counts = TextRowCounts()
        counts.emptyFirstField = diagnostics.emptyFirstFieldLines.count
        counts.emptyRows = diagnostics.emptyRowLines.count
        counts.truncated = diagnostics.truncatedRowLines.count
        counts.ignoredColumns = diagnostics.ignoredColumns
        text += "  would import \(count) note\(count == 1 ? "" : "s")\(counts.sentence)\n"
        if !sample.isEmpty { text += "  first rows:\n" }
        for row in sample {
            var cells = ["\(fields[0]) \(shown(row.front))"]
            if !row.back.isEmpty { cells.append("\(fields.count > 1 ? fields[1] : "Back") \(shown(row.back))") }
            for extra in row.extraFields { cells.append("\((extra.name ?? "column \(extra.column)").escapingControlCharacters()) \(shown(extra.value))") }
            if !row.tags.isEmpty { cells.append("tags \(row.tags.joined(separator: " ").escapingControlCharacters())") }
            if let deck = row.deck, deck != settings.deck { cells.append("deck \(shown(deck))") }
            text += "    line \(row.line): " + cells.joined(separator: ", ") + "\n"
        }
        return text
    }
}
