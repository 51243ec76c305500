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

    static let tsvHeader = "id\tkind\tfront\tback\ttags\n"

    static func tsv(_ cards: [CardRecord]) -> String {
        var text = tsvHeader
        for card in cards { text += tsvLine(card) }
        return text
    }

    static func tsvLine(_ card: CardRecord) -> String {
        String(card.id) + "\t" + card.kind + "\t" + escape(card.front) + "\t" + escape(card.back) + "\t"
            + card.tags.joined(separator: " ") + "\n"
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
        let layout = TableLayout(fitting: cards, width: width)
        return layout.header + cards.map(layout.line).joined()
    }

    /// The columns of a card table: widths fitted to some cards and the terminal width.
    struct TableLayout {
        static let headers = ["ID", "FRONT", "BACK", "TAGS"]
        var widths: [Int]

        init(fitting cards: [CardRecord], width: Int) {
            let rows = [Self.headers] + cards.map(Self.cells)
            var widths = (0..<4).map { column in rows.map { $0[column].terminalCellWidth }.max() ?? 0 }
            // Shrink the widest text columns until the table fits (two spaces between columns).
            let available = max(width, 40) - 2 * 3
            while widths.reduce(0, +) > available {
                guard let widest = (1...3).max(by: { widths[$0] < widths[$1] }), widths[widest] > 6 else { break }
                widths[widest] -= 1
            }
            self.widths = widths
        }

        /// A card's cells: on one line, control characters and escape sequences shown escaped
        /// (a card from someone else's package must not drive the terminal).
        static func cells(_ card: CardRecord) -> [String] {
            [String(card.id), oneLine(card.front).escapingControlCharacters(), oneLine(card.back).escapingControlCharacters(),
             card.tags.joined(separator: " ").escapingControlCharacters()]
        }

        var header: String { format(Self.headers) }

        func line(_ card: CardRecord) -> String { format(Self.cells(card)) }

        private func format(_ row: [String]) -> String {
            let cells = (0..<4).map { column -> String in
                let cell = truncate(row[column], to: widths[column])
                return column == 3 ? cell : cell + String(repeating: " ", count: max(0, widths[column] - cell.terminalCellWidth))
            }
            return cells.joined(separator: "  ").trimmingTrailingSpaces() + "\n"
        }
    }

    /// The text cut to `width` terminal cells, ending in `…` when cut.
    static func truncate(_ text: String, to width: Int) -> String {
        text.terminalCellWidth <= width ? text : String(text.prefix(cells: max(width - 1, 0))) + "…"
    }

    /// A table cell: on one line, control characters escaped.
    static func oneLineCell(_ text: String) -> String {
        oneLine(text).escapingControlCharacters()
    }

    static func escapeTSV(_ text: String) -> String { escape(text) }

    fileprivate static func oneLine(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else { return text }
        return text.replacingOccurrences(of: "\r\n", with: " ").replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "\t", with: " ")
    }

    private static func escape(_ text: String) -> String {
        // Most fields hold nothing to escape: one pass over the bytes finds out.
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else { return text }
        return text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\t", with: "\\t")
            .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
    }
}

extension String {
    /// The text without the spaces that end it. Walks back over the bytes: the generic
    /// `String(reversed().drop(while:).reversed())` it replaces made the runtime look up
    /// conformances of three new sequence types, ~0.2 ms of a one-line `deck search`.
    fileprivate func trimmingTrailingSpaces() -> String {
        let bytes = utf8
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[bytes.index(before: end)] == UInt8(ascii: " ") { end = bytes.index(before: end) }
        return String(self[..<end])
    }
}

/// Prints cards as they arrive, so a listing of any size starts at once and holds only a
/// few cards in memory: TSV and JSON a card at a time; a table fitted to its first
/// ``CardStream/tableSample`` cards (later cards are truncated to those widths).
///
/// ``add(_:)`` returns false once standard output is closed by its reader (`deck list |
/// head -1`): the listing stops quietly.
struct CardStream {
    static let tableSample = 256

    let format: CardFormat
    let width: Int
    let out: OutputWriter
    /// Chosen columns (`--columns`, `--cards`); nil for the classic listing.
    let columns: ColumnPrinter?
    private var pending: [CardRecord] = []
    private var layout: CardPrinter.TableLayout?
    private var columnWidths: [Int]?
    private(set) var count = 0
    private(set) var isClosed = false

    /// With `quiet`, cards are counted and nothing is printed (`--quiet`).
    let quiet: Bool

    init(format: CardFormat, width: Int, quiet: Bool = false, columns: [ListColumn]? = nil, out: OutputWriter = Terminal.current.stdout) {
        self.format = format
        self.width = width
        self.quiet = quiet
        self.columns = columns.map(ColumnPrinter.init)
        self.out = out
    }

    /// Prints (or holds, for a table's first cards) one card; false when output is closed.
    mutating func add(_ card: CardRecord) throws -> Bool {
        defer { count += 1 }
        if quiet { return true }
        if let columns { return try addColumns(card, columns) }
        switch format {
        case .tsv:
            try emit(count == 0 ? CardPrinter.tsvHeader + CardPrinter.tsvLine(card) : CardPrinter.tsvLine(card))
        case .json:
            try emit((count == 0 ? "[" : ",") + "\n  " + CardPrinter.object(card))
        case .table:
            if let layout {
                try emit(layout.line(card))
            } else {
                pending.append(card)
                if pending.count == Self.tableSample { try flushTable() }
            }
        }
        return !isClosed
    }

    private mutating func addColumns(_ card: CardRecord, _ columns: ColumnPrinter) throws -> Bool {
        switch format {
        case .tsv:
            try emit(count == 0 ? columns.tsvHeader + columns.tsvLine(card) : columns.tsvLine(card))
        case .json:
            try emit((count == 0 ? "[" : ",") + "\n  " + columns.object(card))
        case .table:
            if let columnWidths {
                try emit(columns.line(columns.cells(card), widths: columnWidths))
            } else {
                pending.append(card)
                if pending.count == Self.tableSample { try flushTable() }
            }
        }
        return !isClosed
    }

    /// Ends the listing (closing JSON's array, printing a short table).
    mutating func finish() throws {
        guard !isClosed, !quiet else { return }
        if let columns, format == .tsv {
            if count == 0 { try emit(columns.tsvHeader) }
            return
        }
        if columns != nil, format == .table {
            if columnWidths == nil { try flushTable() }
            return
        }
        switch format {
        case .tsv: if count == 0 { try emit(CardPrinter.tsvHeader) }
        case .json: try emit(count == 0 ? "[]\n" : "\n]\n")
        case .table: if layout == nil { try flushTable() }
        }
    }

    private mutating func flushTable() throws {
        if let columns {
            let widths = columns.widths(fitting: pending, width: width)
            columnWidths = widths
            var text = columns.line(columns.columns.map(\.header), widths: widths)
            for card in pending { text += columns.line(columns.cells(card), widths: widths) }
            pending.removeAll()
            return try emit(text)
        }
        let layout = CardPrinter.TableLayout(fitting: pending, width: width)
        self.layout = layout
        var text = layout.header
        for card in pending { text += layout.line(card) }
        pending.removeAll()
        try emit(text)
    }

    /// Writes text; a reader that went away (EPIPE) ends the listing, any other failure throws.
    private mutating func emit(_ text: String) throws {
        guard !isClosed else { return }
        do {
            try out.write(contentsOf: text.utf8)
        } catch let error where error.code == EPIPE {
            isClosed = true
        }
    }
}

/// A column `deck list --columns` and `deck search --columns` can show.
enum ListColumn: String, CaseIterable, ExpressibleByArgument, Sendable {
    case id, note, kind, notetype, template, deck, front, back, tags, created, modified, state, due, interval, ease, reps, lapses, flag

    /// The columns `--cards` shows when `--columns` is not given.
    static let cardDefaults: [ListColumn] = [.id, .note, .deck, .template, .state, .due, .front, .back]

    /// Whether the column needs the card's ``CardRecord/details`` read.
    var needsDetails: Bool {
        switch self {
        case .id, .kind, .front, .back, .tags, .created, .modified: false
        default: true
        }
    }

    /// Columns whose text a table may cut to fit.
    var isText: Bool { [.front, .back, .tags, .deck, .notetype, .template].contains(self) }

    var header: String { rawValue.uppercased() }

    /// The value as a table or TSV cell (unescaped).
    func text(_ card: CardRecord, forTable: Bool) -> String {
        let details = card.details
        switch self {
        case .id: return String(card.id)
        case .note: return details.map { String($0.note) } ?? ""
        case .kind: return card.kind
        case .notetype: return details?.noteType ?? ""
        case .template: return details?.template ?? ""
        case .deck: return details?.deck ?? ""
        case .front: return card.front
        case .back: return card.back
        case .tags: return card.tags.joined(separator: " ")
        case .created: return Self.date(card.created, forTable: forTable)
        case .modified: return Self.date(card.modified, forTable: forTable)
        case .state: return details?.state ?? ""
        case .due: return details?.due.map { Self.date($0, forTable: forTable) } ?? ""
        case .interval: return details.map { String($0.interval) } ?? ""
        case .ease: return details.map { String(format: "%.2f", $0.ease) } ?? ""
        case .reps: return details.map { String($0.repetitions) } ?? ""
        case .lapses: return details.map { String($0.lapses) } ?? ""
        case .flag: return details.map { String($0.flag) } ?? ""
        }
    }

    /// The value as JSON.
    func json(_ card: CardRecord) -> JSONValue {
        let details = card.details
        switch self {
        case .id: return .integer(card.id)
        case .note: return details.map { .integer($0.note) } ?? .null
        case .kind: return .string(card.kind)
        case .notetype: return details.map { .string($0.noteType) } ?? .null
        case .template: return details.map { .string($0.template) } ?? .null
        case .deck: return details.map { .string($0.deck) } ?? .null
        case .front: return .string(card.front)
        case .back: return .string(card.back)
        case .tags: return .strings(card.tags)
        case .created: return .date(card.created)
        case .modified: return .date(card.modified)
        case .state: return details.map { .string($0.state) } ?? .null
        case .due: return details?.due.map { .date($0) } ?? .null
        case .interval: return details.map { .int($0.interval) } ?? .null
        case .ease: return details.map { .number($0.ease) } ?? .null
        case .reps: return details.map { .int($0.repetitions) } ?? .null
        case .lapses: return details.map { .int($0.lapses) } ?? .null
        case .flag: return details.map { .int($0.flag) } ?? .null
        }
    }

    /// Tables show minutes in UTC (`2026-01-01 04:00`); TSV and JSON ISO 8601 with milliseconds.
    static func date(_ date: Date, forTable: Bool) -> String {
        let text = JSONText.date(date)
        return forTable ? String(text.prefix(16)).replacingOccurrences(of: "T", with: " ") : text
    }
}

/// Prints cards with chosen columns (``ListColumn``), in each format.
struct ColumnPrinter {
    let columns: [ListColumn]

    var tsvHeader: String { columns.map(\.rawValue).joined(separator: "\t") + "\n" }

    func tsvLine(_ card: CardRecord) -> String {
        columns.map { CardPrinter.escapeTSV($0.text(card, forTable: false)) }.joined(separator: "\t") + "\n"
    }

    func object(_ card: CardRecord) -> String {
        JSONValue.object(columns.map { ($0.rawValue, $0.json(card)) }).text
    }

    func cells(_ card: CardRecord) -> [String] {
        columns.map { CardPrinter.oneLineCell($0.text(card, forTable: true)) }
    }

    /// Column widths fitted to `cards` and the terminal width.
    func widths(fitting cards: [CardRecord], width: Int) -> [Int] {
        let rows = [columns.map(\.header)] + cards.map(cells)
        var widths = columns.indices.map { column in rows.map { $0[column].terminalCellWidth }.max() ?? 0 }
        let available = max(width, 40) - 2 * (columns.count - 1)
        let shrinkable = columns.indices.filter { columns[$0].isText }
        while widths.reduce(0, +) > available {
            guard let widest = shrinkable.max(by: { widths[$0] < widths[$1] }), widths[widest] > 6 else { break }
            widths[widest] -= 1
        }
        return widths
    }

    func line(_ row: [String], widths: [Int]) -> String {
        var line = ""
        for column in columns.indices {
            let cell = CardPrinter.truncate(row[column], to: widths[column])
            if column > 0 { line += "  " }
            line += cell + String(repeating: " ", count: max(0, widths[column] - cell.terminalCellWidth))
        }
        while line.hasSuffix(" ") { line.removeLast() }
        return line + "\n"
    }
}
