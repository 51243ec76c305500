import DeckFilter
import Foundation
import SQLite

/// Translates a ``FilterExpression`` into an SQL condition over a note (alias `n`), its first
/// card (alias `c`, the card of the lowest key) and its note type (alias `t0`), with every
/// value bound as a parameter (``source`` is the FROM clause).
///
/// Fields: `front` and `back` (the note's first and second field), `text` (any field), `tag`,
/// `kind` (of the note type), `created`, `modified` (the note's), `due`, `id`, `ease`,
/// `interval`, `reps`, `lapses` (the first card's). Text comparisons with
/// `contains`/`starts with` ignore case, diacritics and width as search does (they need
/// ``Database/registerTextFunctions()`` on the connection); a date without a time means the whole UTC day
/// (`created = 2026-01-01` is any time that day).
struct CardFilterTranslator {
    enum FieldType { case text, date, integer, real, kind, tag, anyText, deck, template, state, noteField }

    /// The rows a listing reads: each note with its first card and its note type.
    ///
    /// Driven by the cards in key order (each kept when it is its note's first, found through
    /// the `Card_note` index), so that a listing in id order streams: driven by the notes, the
    /// rows had to be sorted by card id in a temporary B-tree, every row of a 1,000,000-card
    /// deck read before the first was printed.
    static let source = """
        "Card" c JOIN "Note" n ON n."pk" = c."note" AND c."pk" = (SELECT min(c1."pk") FROM "Card" c1 WHERE c1."note" = c."note") \
        JOIN "NoteType" t0 ON t0."pk" = n."noteType"
        """
    /// The rows a listing of cards reads: each card with its note and the note's type.
    static let cardSource = """
        "Card" c JOIN "Note" n ON n."pk" = c."note" JOIN "NoteType" t0 ON t0."pk" = n."noteType"
        """
    static func source(perCard: Bool) -> String { perCard ? cardSource : source }

    /// The name of the card's deck.
    static let deckExpression = #"(SELECT d."name" FROM "Deck" d WHERE d."pk" = c."deck")"#
    /// The name of the card's template (a cloze type's one template for every cloze card).
    static let templateExpression = """
        (SELECT ct."name" FROM "CardTemplate" ct WHERE ct."noteType" = t0."pk" AND ct."ordinal" = (CASE WHEN t0."kind" = 1 THEN 0 ELSE c."ordinal" END))
        """
    /// The current study day (day numbers of `due` count from `DeckInfo.dayZero`), for a bound "now" in Unix seconds.
    static let todayExpression = #"(SELECT (? - "dayZero") / 86400 FROM "DeckInfo" ORDER BY "pk" LIMIT 1)"#
    /// The states `is = …` names, Anki's meanings: new (card type new), learning (queue
    /// learning, intraday or interday), review (type review or relearning), due (learning due
    /// now, review or interday learning due today), suspended, buried (by hand or as a sibling).
    static let states = ["new", "learning", "review", "due", "suspended", "buried"]
    /// The kind of the note's type, as ``CardKind`` names it; NULL for a kind the format doesn't
    /// have (a listing then refuses the row as a model fetch would).
    static let kindExpression = """
        CASE WHEN t0."kind" = 1 THEN 'cloze' WHEN t0."kind" IS NOT 0 THEN NULL WHEN t0."stockKind" = 2 THEN 'reversible' ELSE 'basic' END
        """
    /// The note's first and second field; NULL when `fields` is not a JSON array as the format
    /// says (a value that is not text stays what it is: the listing refuses both).
    static let frontExpression = field(0)
    static let backExpression = field(1)
    static func field(_ index: Int) -> String {
        #"(CASE WHEN typeof(n."fields") = 'text' AND json_valid(n."fields") AND json_type(n."fields") = 'array' "#
            + #"THEN coalesce(json_extract(n."fields", '$[\#(index)]'), '') END)"#
    }
    /// The first card's due time in Unix seconds: learning cards' `due` as it is, review and
    /// interday cards' day number from `DeckInfo.dayZero`; NULL for new cards.
    static let dueExpression = """
        (CASE WHEN c."type" = 0 THEN NULL WHEN c."queue" IN (1, 4) OR (c."queue" < 0 AND c."due" > 1000000000) THEN c."due" \
        ELSE (SELECT "dayZero" FROM "DeckInfo" ORDER BY "pk" LIMIT 1) + c."due" * 86400 END)
        """

    /// Field name → (SQL expression, type).
    static let fields: [String: (column: String, type: FieldType)] = [
        "front": (frontExpression, .text), "back": (backExpression, .text), "text": ("", .anyText), "tag": ("", .tag),
        "kind": (kindExpression, .kind), "created": (#"n."created""#, .date), "modified": (#"n."modified""#, .date),
        "due": (dueExpression, .date), "id": (#"c."pk""#, .integer), "ease": (#"(CASE WHEN c."easeFactor" = 0 THEN 2.5 ELSE c."easeFactor" / 1000.0 END)"#, .real),
        "interval": (#"c."interval""#, .integer), "reps": (#"c."repetitions""#, .integer), "lapses": (#"c."lapses""#, .integer),
        "notetype": (#"t0."name""#, .text), "deck": (deckExpression, .deck), "card": (#"c."ordinal""#, .template), "template": (#"c."ordinal""#, .template),
        "is": ("", .state), "flag": (#"c."flag""#, .integer), "note": (#"n."pk""#, .integer),
    ]

    /// The names accepted, sorted (`field.<name>` besides: a field of the note's type by name).
    static var fieldNames: [String] { fields.keys.sorted() }

    /// The prefix of a field named by the note type's field name (`field.Reading`).
    static let noteFieldPrefix = "field."

    /// The value of the note's field named `name` (ignoring case) in its type; NULL when the type has no such field.
    static func noteFieldExpression(_ placeholder: String) -> String {
        #"(CASE WHEN typeof(n."fields") = 'text' AND json_valid(n."fields") AND json_type(n."fields") = 'array' THEN "#
            + #"json_extract(n."fields", '$[' || (SELECT nf."ordinal" FROM "NoteField" nf WHERE nf."noteType" = n."noteType" "#
            + #"AND nf."name" = \#(placeholder) COLLATE NOCASE ORDER BY nf."ordinal" LIMIT 1) || ']') END)"#
    }

    private(set) var arguments: [SQLValue] = []
    /// The time `is = due` compares with.
    var now = Date()

    mutating func translate(_ expression: FilterExpression) throws -> String {
        switch expression {
        case .and(let a, let b): return "(\(try translate(a)) AND \(try translate(b)))"
        case .or(let a, let b): return "(\(try translate(a)) OR \(try translate(b)))"
        case .not(let inner): return "NOT coalesce(\(try translate(inner)), 0)"
        case .comparison(let field, let op, let value): return try comparison(field, op, value)
        case .in(let field, let values):
            let parts = try values.map { try comparison(field, .equal, $0) }
            return "(" + parts.joined(separator: " OR ") + ")"
        }
    }

    static func field(_ name: String) throws -> (column: String, type: FieldType) {
        if name.lowercased().hasPrefix(noteFieldPrefix) {
            guard name.count > noteFieldPrefix.count else {
                throw DeckQueryError(field: name, message: "'\(name)' names no field: write field.<name>, e.g. field.Front")
            }
            return ("", .noteField)
        }
        guard let field = fields[name.lowercased()] else {
            throw DeckQueryError(field: name, message: "unknown field '\(name)'; known fields: \(fieldNames.joined(separator: ", "))")
        }
        return field
    }

    private mutating func bind(_ value: SQLValue) -> String {
        arguments.append(value)
        return "?"
    }

    private mutating func comparison(_ name: String, _ op: FilterOperator, _ value: FilterValue) throws -> String {
        let field = try Self.field(name)
        switch field.type {
        case .text: return try textComparison(field.column, name, op, value)
        case .anyText:
            let condition = try textComparison("f.\"value\"", name, op == .notEqual ? .equal : op, value)
            let any = "EXISTS (SELECT 1 FROM json_each(CASE WHEN typeof(n.\"fields\") = 'text' AND json_valid(n.\"fields\") THEN n.\"fields\" ELSE '[]' END) f WHERE \(condition))"
            return op == .notEqual ? "NOT \(any)" : any
        case .noteField:
            let fieldName = String(name.dropFirst(Self.noteFieldPrefix.count))
            let column = Self.noteFieldExpression(bind(.text(fieldName)))
            return "coalesce(\(try textComparison(column, name, op, value)), 0)"
        case .deck:
            // A deck includes its subdecks, as in Anki: deck = "Languages" is Languages and Languages::….
            let condition: String
            switch op {
            case .equal, .notEqual:
                let text = try stringValue(name, value)
                condition = "(d.\"name\" = \(bind(.text(text))) COLLATE NOCASE OR d.\"name\" LIKE \(bind(.text(Self.escapeLike(text) + "::%"))) ESCAPE '\\')"
            default:
                condition = try textComparison("d.\"name\"", name, op, value)
            }
            let exists = "EXISTS (SELECT 1 FROM \"Deck\" d WHERE d.\"pk\" = c.\"deck\" AND \(condition))"
            return op == .notEqual ? "NOT \(exists)" : exists
        case .template:
            switch value {
            case .integer(let number):
                // card = 1 is the first template (or cloze 1), as Anki's card:1.
                return "c.\"ordinal\" \(try sqlOperator(name, op)) \(bind(.integer(Int64(number) - 1)))"
            default:
                return "coalesce(\(try textComparison(Self.templateExpression, name, op, value)), 0)"
            }
        case .state:
            let text = try stringValue(name, value).lowercased()
            guard op == .equal || op == .notEqual else {
                throw DeckQueryError(field: name, message: "is supports = and !=, not '\(op)'")
            }
            let condition: String
            switch text {
            case "new": condition = "c.\"type\" = 0"
            case "learning": condition = "c.\"queue\" IN (1, 3)"
            case "review": condition = "c.\"type\" IN (2, 3)"
            case "suspended": condition = "c.\"queue\" = -1"
            case "buried": condition = "c.\"queue\" IN (-2, -3)"
            case "due":
                let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
                condition = "((c.\"queue\" = 1 AND c.\"due\" <= \(bind(.integer(seconds)))) OR (c.\"queue\" IN (2, 3) AND c.\"due\" <= "
                    + Self.todayExpression.replacingOccurrences(of: "?", with: bind(.integer(seconds))) + "))"
            default:
                throw DeckQueryError(field: name, message: "is must be one of \(Self.states.joined(separator: ", ")), not '\(text)'")
            }
            return op == .equal ? condition : "NOT \(condition)"
        case .tag:
            if op == .equal || op == .notEqual {
                // A tag includes the tags below it: tag = lang is lang and lang::….
                let text = try stringValue(name, value)
                let condition = "(t.\"name\" = \(bind(.text(text))) OR t.\"name\" LIKE \(bind(.text(Self.escapeLike(text) + "::%"))) ESCAPE '\\')"
                let exists = "EXISTS (SELECT 1 FROM \"Note_tags\" j JOIN \"Tag\" t ON t.\"pk\" = j.\"target\" WHERE j.\"source\" = n.\"pk\" AND \(condition))"
                return op == .notEqual ? "NOT \(exists)" : exists
            }
            let condition = try textComparison("t.\"name\"", name, op == .notEqual ? .equal : op, value)
            let exists = "EXISTS (SELECT 1 FROM \"Note_tags\" j JOIN \"Tag\" t ON t.\"pk\" = j.\"target\" WHERE j.\"source\" = n.\"pk\" AND \(condition))"
            return op == .notEqual ? "NOT \(exists)" : exists
        case .kind:
            let text = try stringValue(name, value)
            guard let kind = CardKind(rawValue: text.lowercased()) else {
                throw DeckQueryError(field: name, message: "kind must be one of \(CardKind.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
            }
            guard op == .equal || op == .notEqual else {
                throw DeckQueryError(field: name, message: "kind supports = and !=, not '\(op)'")
            }
            return "\(Self.kindExpression) \(op == .equal ? "=" : "<>") \(bind(.text(kind.rawValue)))"
        case .integer, .real:
            let column = field.column
            let number: SQLValue
            switch value {
            case .integer(let v): number = .integer(Int64(v))
            case .double(let v) where field.type == .real: number = .real(v)
            default: throw DeckQueryError(field: name, message: "\(name) compares with \(field.type == .real ? "a number" : "an integer"), not \(value)")
            }
            return "\(column) \(try sqlOperator(name, op)) \(bind(number))"
        case .date:
            let column = field.column
            let date: FilterDate
            switch value {
            case .date(let d): date = d
            case .string(let s):
                guard let d = FilterDate.parse(s) else { throw DeckQueryError(field: name, message: "\(name) compares with a date like 2026-01-01, not \(value)") }
                date = d
            default: throw DeckQueryError(field: name, message: "\(name) compares with a date like 2026-01-01, not \(value)")
            }
            let start = date.date.timeIntervalSince1970, end = date.endOfDay.timeIntervalSince1970
            switch op {
            case .equal where date.isWholeDay: return "(\(column) >= \(bind(.real(start))) AND \(column) < \(bind(.real(end))))"
            case .notEqual where date.isWholeDay: return "(\(column) < \(bind(.real(start))) OR \(column) >= \(bind(.real(end))))"
            case .greater: return "\(column) >= \(bind(.real(end)))" + (date.isWholeDay ? "" : " AND \(column) <> \(bind(.real(end)))")
            case .lessOrEqual: return date.isWholeDay ? "\(column) < \(bind(.real(end)))" : "\(column) <= \(bind(.real(start)))"
            case .equal, .notEqual, .less, .greaterOrEqual: return "\(column) \(try sqlOperator(name, op)) \(bind(.real(start)))"
            case .contains, .startsWith: throw DeckQueryError(field: name, message: "\(name) is a date; use =, !=, <, <=, > or >=, not '\(op)'")
            }
        }
    }

    private mutating func textComparison(_ column: String, _ name: String, _ op: FilterOperator, _ value: FilterValue) throws -> String {
        let text = try stringValue(name, value)
        switch op {
        // Folded on both sides as full-text search folds (case, diacritics, width): `contains "cafe"` finds "Café".
        case .contains: return "\(Database.foldFunctionName)(\(column)) LIKE \(bind(.text("%" + Self.escapeLike(Database.folded(text)) + "%"))) ESCAPE '\\'"
        case .startsWith: return "\(Database.foldFunctionName)(\(column)) LIKE \(bind(.text(Self.escapeLike(Database.folded(text)) + "%"))) ESCAPE '\\'"
        default: return "\(column) \(try sqlOperator(name, op)) \(bind(.text(text)))"
        }
    }

    private func stringValue(_ name: String, _ value: FilterValue) throws -> String {
        switch value {
        case .string(let s): return s
        case .integer(let v): return String(v)
        case .double(let v): return v.description
        case .date(let d): return d.description
        case .bool: throw DeckQueryError(field: name, message: "\(name) compares with text, not \(value)")
        }
    }

    private func sqlOperator(_ name: String, _ op: FilterOperator) throws -> String {
        switch op {
        case .equal: "="
        case .notEqual: "<>"
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        case .contains, .startsWith: throw DeckQueryError(field: name, message: "'\(op)' applies to text fields, not to \(name)")
        }
    }

    static func escapeLike(_ text: String) -> String {
        var result = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// The ORDER BY term for a sort key: text as a reader sorts it (``Database/sortKey(_:)``:
    /// case, accents and leading punctuation ignored, bytes breaking ties), or by bytes alone
    /// with `byteOrder`. Text terms need ``Database/registerSortKeyFunction()`` on the connection.
    static func orderTerm(_ name: String, descending: Bool, byteOrder: Bool = false) throws -> String {
        let field = try field(name)
        let direction = descending ? " DESC" : ""
        switch field.type {
        case .tag, .anyText, .state, .noteField: throw DeckQueryError(field: name, message: "can't sort by \(name)")
        case .text where !byteOrder, .deck where !byteOrder:
            return "\(Database.sortKeyFunctionName)(\(field.column))\(direction), \(field.column)\(direction)"
        default: return "\(field.column)\(direction)"
        }
    }
}
