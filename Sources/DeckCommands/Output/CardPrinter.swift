import ArgumentParsing
import Foundation

/// Prints cards as a table that fits the terminal, as TSV, or as JSON.
///
/// Tables truncate long fields visibly (with `…`); TSV and JSON print everything.
enum CardPrinter {
    static func print(_ cards: [CardRecord], format: CardFormat, width: Int) {
        let out = Terminal.current.stdout
        switch format {
        case .json: out.write(json(cards) + "\n")
        case .tsv: out.write(tsv(cards))
        case .table: out.write(table(cards, width: width))
        }
    }

    static func tsv(_ cards: [CardRecord]) -> String {
        var text = "id\tkind\tfront\tback\ttags\n"
        for card in cards {
            text += [String(card.id), card.kind, escape(card.front), escape(card.back), card.tags.joined(separator: " ")]
                .joined(separator: "\t") + "\n"
        }
        return text
    }

    static func json(_ cards: [CardRecord]) -> String {
        "[" + cards.map { "\n  " + object($0) }.joined(separator: ",") + (cards.isEmpty ? "]" : "\n]")
    }

    static func object(_ card: CardRecord) -> String {
        let tags = card.tags.map(JSONText.quoted).joined(separator: ", ")
        return "{\"id\": \(card.id), \"kind\": \(JSONText.quoted(card.kind)), \"front\": \(JSONText.quoted(card.front)), "
            + "\"back\": \(JSONText.quoted(card.back)), \"tags\": [\(tags)], "
            + "\"created\": \(JSONText.quoted(JSONText.date(card.created))), \"modified\": \(JSONText.quoted(JSONText.date(card.modified)))}"
    }

    static func table(_ cards: [CardRecord], width: Int) -> String {
        let headers = ["ID", "FRONT", "BACK", "TAGS"]
        var rows = cards.map { [String($0.id), oneLine($0.front), oneLine($0.back), $0.tags.joined(separator: " ")] }
        rows.insert(headers, at: 0)
        var widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        // Shrink the widest text columns until the table fits (two spaces between columns).
        let available = max(width, 40) - 2 * 3
        while widths.reduce(0, +) > available {
            guard let widest = (1...3).max(by: { widths[$0] < widths[$1] }), widths[widest] > 6 else { break }
            widths[widest] -= 1
        }
        var text = ""
        for row in rows {
            let cells = (0..<4).map { column -> String in
                let cell = truncate(row[column], to: widths[column])
                return column == 3 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            text += cells.joined(separator: "  ").trimmingTrailingSpaces() + "\n"
        }
        return text
    }

    static func truncate(_ text: String, to width: Int) -> String {
        text.count <= width ? text : String(text.prefix(max(width - 1, 0))) + "…"
    }

    private static func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: " ").replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "\t", with: " ")
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\t", with: "\\t")
            .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        String(reversed().drop { $0 == " " }.reversed())
    }
}
