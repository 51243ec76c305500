import CardTemplates
import Digest
import FileSafety
import Foundation
import SQLite

extension DeckStoreV2 {
    /// A value rule of one column (docs/FORMAT.md): a SQL condition that holds for every valid
    /// row, and the same condition in Swift (``NativeCheck``) where it is one of the simple kinds.
    struct ColumnRule {
        let table: String, column: String, valid: String, meaning: String
        var native: NativeCheck? = nil
    }

    static let integer = "typeof(%c) = 'integer'"
    static func range(_ low: Int, _ high: Int) -> String { "typeof(%c) = 'integer' AND %c BETWEEN \(low) AND \(high)" }
    static func values(_ list: [Int]) -> String { "typeof(%c) = 'integer' AND %c IN (\(list.map(String.init).joined(separator: ", ")))" }
    static let boolean = values([0, 1])
    static let nonNegative = range(0, Int(Int64.max))
    static let real = "typeof(%c) IN ('real', 'integer')"
    /// Seconds from 1970 to the end of year 9999 (and back to year 1, roughly): the bound of
    /// integer times (`due`, `lastReview`, `dayZero`; `Review.time` in milliseconds).
    static let secondsRange = 253_402_300_800
    /// A date: seconds since 1970 within years 1 to 9999 (what readers convert without a trap).
    static let date = "typeof(%c) IN ('real', 'integer') AND %c BETWEEN -62135596800 AND 253402300800"
    static let optionalReal = "typeof(%c) IN ('real', 'integer', 'null')"
    static let optionalInteger = "typeof(%c) IN ('integer', 'null')"
    static let text = "typeof(%c) = 'text'"
    // SQLite may evaluate both sides of AND: json_type runs only on valid JSON. The value most
    // rows hold ('{}', '[]') is tested first: a CASE stops at the first WHEN that holds (AND and
    // OR outside a WHERE evaluate both sides), and SQLite 3.40 parses the JSON again for each
    // of json_valid and json_type.
    static let jsonObject = "CASE WHEN %c = '{}' THEN 1 WHEN typeof(%c) = 'text' AND json_valid(%c) THEN json_type(%c) = 'object' ELSE 0 END"
    static let jsonArray = "CASE WHEN %c = '[]' THEN 1 WHEN typeof(%c) = 'text' AND json_valid(%c) THEN json_type(%c) = 'array' ELSE 0 END"

    /// The value rules `check` applies, column by column.
    static let columnRules: [ColumnRule] = {
        var rules: [ColumnRule] = []
        func add(_ table: String, _ columns: [String], _ valid: String, _ meaning: String, native: NativeCheck? = nil) {
            for column in columns { rules.append(ColumnRule(table: table, column: column, valid: valid, meaning: meaning, native: native)) }
        }
        let seconds = Int64(secondsRange)
        add("NoteType", ["kind"], values([0, 1]), "an unknown note type kind", native: .integerIn([0, 1]))
        add("NoteType", ["stockKind"], "%c IS NULL OR (" + range(1, 6) + ")", "an unknown stock kind", native: .nullOr(.integer(1...6)))
        add("NoteType", ["sortField"], nonNegative, "not a field ordinal", native: .integer(0...Int64.max))
        add("NoteType", ["latexSVG"], boolean, "not 0 or 1", native: .integerIn([0, 1]))
        add("NoteType", ["name", "css", "latexPre", "latexPost"], text, "not text", native: .text)
        add("NoteType", ["modified"], date, "not a date in years 1 to 9999", native: .date)
        add("NoteField", ["ordinal", "fontSize"], nonNegative, "not a count", native: .integer(0...Int64.max))
        add("NoteField", ["rightToLeft", "sticky", "plainText", "collapsed", "excludeFromSearch"], boolean, "not 0 or 1", native: .integerIn([0, 1]))
        add("NoteField", ["name", "font", "fieldDescription"], text, "not text", native: .text)
        add("CardTemplate", ["ordinal", "browserFontSize"], nonNegative, "not a count", native: .integer(0...Int64.max))
        add("CardTemplate", ["name", "questionFormat", "answerFormat", "browserQuestionFormat", "browserAnswerFormat", "browserFont"], text, "not text", native: .text)
        add("Note", ["guid"], "typeof(%c) = 'text' AND length(%c) BETWEEN 1 AND 64 AND %c NOT GLOB '*[^!-~]*'", "not a GUID (1–64 printable ASCII characters)")
        add("Note", ["fields"], jsonArray, "not a JSON array")
        add("Note", ["sortText"], text, "not text", native: .text)
        add("Note", ["created", "modified"], date, "not a date in years 1 to 9999", native: .date)
        add("Card", ["ordinal"], range(0, NoteLayout.maximumClozeOrdinal), "not a template or cloze ordinal",
            native: .integer(0...Int64(NoteLayout.maximumClozeOrdinal)))
        add("Card", ["type"], values([0, 1, 2, 3]), "an unknown card type", native: .integerIn([0, 1, 2, 3]))
        add("Card", ["queue"], values([-3, -2, -1, 0, 1, 2, 3, 4]), "an unknown queue", native: .integerIn([-3, -2, -1, 0, 1, 2, 3, 4]))
        add("Card", ["due", "originalDue"], range(-secondsRange, secondsRange), "out of range (a position, a day or a time up to year 9999)",
            native: .integer(-seconds...seconds))
        add("Card", ["interval", "repetitions", "lapses"], range(0, Int(Int32.max)), "out of range (0–2147483647)",
            native: .integer(0...Int64(Int32.max)))
        add("Card", ["remainingSteps"], nonNegative, "negative or not an integer", native: .integer(0...Int64.max))
        add("Card", ["easeFactor"], range(0, 100_000), "out of range (0–100000 permille)", native: .integer(0...100_000))
        add("Card", ["flag"], range(0, 7), "not a flag (0–7)", native: .integer(0...7))
        add("Card", ["stability", "decay"], optionalReal, "not a number", native: .nullOr(.number))
        add("Card", ["difficulty"], "%c IS NULL OR (typeof(%c) IN ('real', 'integer') AND %c BETWEEN 1 AND 10)", "out of range (1–10)",
            native: .nullOr(.numberBetween(1, 10)))
        add("Card", ["desiredRetention"], "%c IS NULL OR (typeof(%c) IN ('real', 'integer') AND %c > 0 AND %c < 1)", "out of range (0–1)",
            native: .nullOr(.numberInside(0, 1)))
        add("Card", ["lastReview"], "%c IS NULL OR (" + range(-secondsRange, secondsRange) + ")", "not a time in years 1 to 9999",
            native: .nullOr(.integer(-seconds...seconds)))
        add("Card", ["originalPosition"], "%c IS NULL OR (" + nonNegative + ")", "not a position", native: .nullOr(.integer(0...Int64.max)))
        add("Card", ["ankiID"], optionalInteger, "not an integer", native: .nullOr(.integer(Int64.min...Int64.max)))
        add("Card", ["customData"], "CASE WHEN %c = '' THEN 1 ELSE " + jsonObject + " END", "not a JSON object")
        add("Card", ["created", "modified"], date, "not a date in years 1 to 9999", native: .date)
        add("Deck", ["kind"], values([0, 1]), "an unknown deck kind")
        add("Deck", ["markdownDescription", "collapsed", "reschedules"], boolean, "not 0 or 1")
        add("Deck", ["filterTerms"], jsonArray, "not a JSON array")
        add("Deck", ["name"], "typeof(%c) = 'text' AND %c <> '' AND %c NOT LIKE '::%' AND %c NOT LIKE '%::' AND instr(%c, '::::') = 0", "not a deck path")
        // What the scheduler computes with and Anki's importers accept: 32-bit counts and days,
        // an ease in permille as a card's, multipliers up to 1000, steps under 1e9 minutes
        // (a preset beyond them made an answer trap converting an interval or ease to Int).
        add("Preset", ["newPerDay", "reviewsPerDay", "graduatingInterval", "easyInterval", "minimumLapseInterval", "leechThreshold"],
            range(0, Int(Int32.max)), "out of range (0–2147483647)")
        add("Preset", ["startingEase"], range(0, 100_000), "out of range (0–100000 permille)")
        add("Preset", ["maximumInterval"], range(1, Int(Int32.max)), "out of range (1–2147483647 days)")
        add("Preset", ["learningSteps", "relearningSteps"],
            "CASE WHEN typeof(%c) = 'text' AND json_valid(%c) THEN CASE WHEN json_type(%c) = 'array' THEN NOT EXISTS (SELECT 1 FROM "
            + "json_each(%c) WHERE type NOT IN ('integer', 'real') OR value <= 0 OR value >= 1e9) ELSE 0 END ELSE 0 END",
            "not a JSON array of steps (more than 0, less than 1e9 minutes)")
        add("Preset", ["fsrsParameters"], jsonArray, "not a JSON array")
        add("Preset", ["desiredRetention"], "typeof(%c) IN ('real', 'integer') AND %c > 0 AND %c < 1", "out of range (0–1)")
        add("Preset", ["usesFSRS", "buryNewSiblings", "buryReviewSiblings", "buryInterdaySiblings"], boolean, "not 0 or 1")
        add("Preset", ["easyBonus", "hardMultiplier", "intervalMultiplier", "lapseMultiplier"], real + " AND %c BETWEEN 0 AND 1000",
            "out of range (0–1000)")
        add("Review", ["time"], range(-secondsRange * 1000, secondsRange * 1000), "not a time in years 1 to 9999")
        add("Review", ["interval", "lastInterval"], range(Int(Int32.min), Int(Int32.max)), "out of range (a 32-bit number of days or seconds)")
        add("Review", ["easeFactor"], range(0, 100_000), "out of range (0–100000 permille)")
        add("Review", ["rating"], range(0, 4), "not an answer (0–4)")
        add("Review", ["duration"], range(0, 86_400_000), "out of range (0–86400000 ms)")
        add("Review", ["kind"], range(0, 5), "an unknown review kind")
        add("Tag", ["name"], "typeof(%c) = 'text' AND length(%c) BETWEEN 1 AND 100 AND %c NOT GLOB '*[ \t\n\r]*'", "not a tag name")
        add("Tag", ["collapsed"], boolean, "not 0 or 1")
        add("MediaFile", ["sha256"], "typeof(%c) = 'text' AND length(%c) = 64 AND %c NOT GLOB '*[^0-9a-f]*'", "not a SHA-256")
        add("MediaFile", ["sha1"], "%c = '' OR (typeof(%c) = 'text' AND length(%c) = 40 AND %c NOT GLOB '*[^0-9a-f]*')", "not a SHA-1")
        add("MediaFile", ["size"], nonNegative, "negative or not an integer")
        add("MediaName", ["name"], "typeof(%c) = 'text' AND %c <> '' AND %c NOT IN ('.', '..') AND %c NOT GLOB '*[/\\\\]*'", "not a media name")
        add("DeckInfo", ["dayZero"], range(-secondsRange, secondsRange), "not a time in years 1 to 9999")
        add("DeckInfo", ["dayStartsAt"], range(0, 23), "not an hour (0–23)")
        add("DeckInfo", ["ankiConfig"], jsonObject, "not a JSON object")
        for table in ["NoteType", "NoteField", "CardTemplate", "Card", "Deck", "Preset"] {
            add(table, ["ankiOptions"], jsonObject, "not a JSON object")
        }
        add("CardTemplate", ["modified"], date, "not a date in years 1 to 9999")
        add("Deck", ["modified"], date, "not a date in years 1 to 9999")
        add("Preset", ["modified"], date, "not a date in years 1 to 9999")
        for table in ["NoteType", "NoteField", "CardTemplate", "Note", "Deck", "Preset", "Review"] {
            add(table, ["ankiID"], optionalInteger, "not an integer", native: .nullOr(.integer(Int64.min...Int64.max)))
        }
        return rules
    }()

    /// The value rules of `table` as one SQL expression over the row named `alias`: NULL when
    /// the row keeps every rule, else the name of the first column that breaks one. Readers add
    /// it to the statements they read rows with, so a store edited outside SampleDeck is refused
    /// (``valueError(_:deck:table:key:column:)``) by the rules `check` applies, as rows arrive.
    static func firstInvalidColumn(of table: String, alias: String, except excluded: Set<String> = []) -> String {
        let cases = columnRules.filter { $0.table == table && !excluded.contains($0.column) }.map { rule in
            let condition = substituting(rule.valid, column: "\(alias).\(quoteIdentifier(rule.column))")
            return "WHEN NOT coalesce(\(condition), 0) THEN '\(rule.column)'"
        }
        return cases.isEmpty ? "NULL" : "CASE " + cases.joined(separator: " ") + " END"
    }

    /// `template` with each `%c` replaced by `column`, by a scan of its bytes (`replacing(_:with:)`
    /// of the string-processing library made building the rules of every table cost each
    /// process about 4.5 M instructions, 6 % of a `deck review`).
    static func substituting(_ template: String, column: String) -> String {
        let bytes = template.utf8
        var result = ""
        var start = bytes.startIndex, index = bytes.startIndex
        while index != bytes.endIndex {
            let next = bytes.index(after: index)
            if bytes[index] == UInt8(ascii: "%"), next != bytes.endIndex, bytes[next] == UInt8(ascii: "c") {
                result += template[start..<index]
                result += column
                index = bytes.index(after: next)
                start = index
            } else {
                index = next
            }
        }
        result += template[start...]
        return result
    }

    /// ``firstInvalidColumn(of:alias:except:)`` of each of ``valueTables`` over its own rows, built
    /// once (every study command checks some of them at open).
    static let ownRowChecks: [String: String] = Dictionary(uniqueKeysWithValues: valueTables.map {
        ($0, firstInvalidColumn(of: $0, alias: quoteIdentifier($0)))
    })

    static func ownRowCheck(_ table: String) -> String {
        ownRowChecks[table] ?? firstInvalidColumn(of: table, alias: quoteIdentifier(table))
    }

    /// The refusal of a row that breaks a value rule (exit 65): the deck, the row and the column
    /// with its value and what it should be, as `check` words it
    /// (`French.sampledeck: Card 7.interval = -1: out of range (0–2147483647)`).
    static func valueError(_ db: Database, deck: URL, table: String, key: Int64, column: String) -> DeckError {
        let meaning = columnRules.first { $0.table == table && $0.column == column }?.meaning ?? "out of range"
        // The value is for the message only: a failure to read it leaves it out.
        let value = (try? db.rows("SELECT quote(\(quoteIdentifier(column))) FROM \(quoteIdentifier(table)) WHERE \"pk\" = ?",
                                  [.integer(key)]).first?.first).map { " = " + displayed($0) } ?? ""
        return DeckError(path: deck.path, reason: "\(table) \(key).\(column)\(value): \(meaning) (deck check lists every such value)",
                         kind: .corrupt)
    }

    /// Refuses the first row of `tables` that breaks a value rule (``valueError(_:deck:table:key:column:)``),
    /// reading each table once: for readers that go on to read those tables through models.
    static func verifyValues(_ db: Database, deck: URL, tables: [String]) throws {
        for table in tables {
            let check = ownRowCheck(table)
            let bad = try db.rows("SELECT \"pk\", \(check) FROM \(quoteIdentifier(table)) WHERE (\(check)) IS NOT NULL ORDER BY \"pk\" LIMIT 1")
            if let row = bad.first, case .integer(let key) = row[0], case .text(let column) = row[1] {
                throw valueError(db, deck: deck, table: table, key: key, column: column)
            }
        }
    }

    /// ``verifyValues(_:deck:tables:)`` for tables of few rows (the settings; one note and its
    /// cards, selected by `filter` on `key`): the rule is computed for each row and the first
    /// breaking one found here, so SQLite compiles it once, not again in a WHERE clause (what
    /// every study command pays at open: about half of the check's cost).
    static func verifyFewRows(_ db: Database, deck: URL, tables: [String], filter: (column: String, key: Int64)? = nil) throws {
        for table in tables {
            var sql = "SELECT \"pk\", \(ownRowCheck(table)) FROM \(quoteIdentifier(table))"
            if let filter { sql += " WHERE \(quoteIdentifier(filter.column)) = ?" }
            let statement = try db.prepare(sql + " ORDER BY \"pk\"")
            if let filter { statement.bind(int64: filter.key, at: 1) }
            var bad: (key: Int64, column: String)?
            while try statement.step() {
                guard statement.isNull(at: 1) else {
                    bad = (statement.int64(at: 0), statement.string(at: 1))
                    break
                }
            }
            statement.reset()
            if let bad { throw valueError(db, deck: deck, table: table, key: bad.key, column: bad.column) }
        }
    }

    /// Refuses the first row that answering or showing card `id` reads and that breaks a value
    /// rule: the deck's settings (``settingsTables``, read whole: a deck has few of them), the
    /// card's note and every card of that note (its siblings are buried by the answer), each
    /// read through its index. Nothing when there is no such card (the caller says so).
    static func verifyValues(_ db: Database, deck: URL, forCard id: Int64) throws {
        try verifyFewRows(db, deck: deck, tables: settingsTables)
        guard let note = try db.scalar("SELECT \"note\" FROM \"Card\" WHERE \"pk\" = ?", [.integer(id)], as: Int64.self) else { return }
        try verifyFewRows(db, deck: deck, tables: ["Note"], filter: ("pk", note))
        try verifyFewRows(db, deck: deck, tables: ["Card"], filter: ("note", note))
    }

    /// The tables of a deck's settings and note types: read whole by every study command.
    static let settingsTables = ["DeckInfo", "Preset", "Deck", "NoteType", "NoteField", "CardTemplate"]

    /// The tables whose values the scheduler and the exports convert.
    public static let valueTables = ["DeckInfo", "Preset", "Deck", "NoteType", "NoteField", "CardTemplate", "Note", "Card", "Review"]

    /// Required relationships: a NULL there is damage (the key itself is checked by `foreign_key_check`).
    static let requiredRelationships: [(table: String, column: String)] = [
        ("NoteField", "noteType"), ("CardTemplate", "noteType"), ("Note", "noteType"),
        ("Card", "note"), ("Card", "deck"), ("Review", "card"), ("MediaName", "file"),
    ]

    /// Checks a format version 2 store and its media folder and returns what is wrong, errors
    /// first (docs/FORMAT.md, "Checking a deck"): SQLite's integrity and foreign keys, the schema
    /// objects, every column's values, each note against its type, each card against its note's
    /// templates or cloze numbers, the deck tree, the search index against the notes, and every
    /// media file. Opens the store read-only and writes nothing.
    public static func check(storeAt store: URL, mediaFolder: URL) -> [DeckProblem] {
        var problems: [DeckProblem] = []
        let storeName = store.lastPathComponent
        func error(_ message: String) { problems.append(DeckProblem(severity: .error, message: "\(storeName): \(message)")) }
        func warning(_ message: String) { problems.append(DeckProblem(severity: .warning, message: "\(storeName): \(message)")) }
        var mediaRows: [(pk: Int64, fileName: String, sha256: String, size: Int64)] = []
        do {
            let db = try Database(path: store.path, mode: .readOnly)
            defer { db.close() }
            let integrity = try db.integrityCheck()
            if integrity != ["ok"] { for line in integrity.prefix(20) { error("integrity_check: \(line)") } }
            let violations = try db.foreignKeyViolations()
            if violations > 0 { error("\(violations) foreign key violation(s) (PRAGMA foreign_key_check)") }
            if try db.userVersion() != formatVersion { error("user_version is \(try db.userVersion()), expected \(formatVersion)") }

            // Schema objects: every table and index of the store's revision, nothing else, each
            // as the format defines it.
            let objects = try db.schemaObjects()
            let revision = try storedRevision(db, objects: objects)
            let layout: [String]
            switch revision {
            case DeckSchemaV2.versionIdentifier?:
                layout = statements
            case DeckSchemaV2_0.versionIdentifier?:
                layout = version2_0Statements
                warning("schemaVersion is \(DeckSchemaV2_0.versionIdentifier), the layout before \(DeckSchemaV2.versionIdentifier) (with the indexes Card_note and Card_deck); the next writer upgrades it")
            default:
                layout = statements
                error("persistence_metadata schemaVersion is \(revision?.description ?? "missing"), expected \(DeckSchemaV2.versionIdentifier)")
            }
            let expected = Set(layout.compactMap(objectName(of:))).union(searchShadowTables)
            var present: Set<String> = []
            for row in try db.rows("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'") {
                if case .text(let name) = row[0] { present.insert(name) }
            }
            for name in expected.subtracting(present).sorted() { error("\(name) is missing") }
            for name in present.subtracting(expected).sorted() { error("\(name) is not part of the format") }
            let reference = revision == DeckSchemaV2_0.versionIdentifier ? DeckStore.referenceSchemaV2_0 : DeckStore.referenceSchemaV2
            let faults = try DeckStore.schemaFaults(db, objects: objects, reference: reference, formatVersion: formatVersion)
            for fault in faults where !fault.isForeign { error(fault.description) }
            // No row is read from a table the format does not define as it is (a generated
            // column would compute on reading), nor through a view in a table's place.
            guard expected.isSubset(of: present), !faults.contains(where: { !$0.isForeign || $0.object.type == "view" }) else {
                return problems.sorted { $0.severity < $1.severity }
            }

            for rule in columnRules {
                let condition = rule.valid.replacingOccurrences(of: "%c", with: quoteIdentifier(rule.column))
                let table = quoteIdentifier(rule.table)
                let bad: [[SQLValue]]
                do {
                    bad = try db.rows("SELECT \"pk\", quote(\(quoteIdentifier(rule.column))) FROM \(table) WHERE NOT coalesce(\(condition), 0) ORDER BY \"pk\" LIMIT 6")
                } catch let failure {
                    error("\(rule.table).\(rule.column) can't be checked: \(failure.message)")
                    continue
                }
                for row in bad.prefix(5) {
                    error("\(rule.table) \(row[0].description).\(rule.column) = \(displayed(row[1])): \(rule.meaning)")
                }
                if bad.count > 5 { error("\(rule.table).\(rule.column): more rows like these") }
            }
            for (table, column) in requiredRelationships {
                for row in try db.rows("SELECT \"pk\" FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(column)) IS NULL ORDER BY \"pk\" LIMIT 5") {
                    error("\(table) \(row[0].description) has no \(column)")
                }
            }
            if let count = try db.scalar("SELECT count(*) FROM \"DeckInfo\"", as: Int.self), count != 1 {
                error("DeckInfo has \(count) rows, expected 1")
            }
            try checkDeckTree(db, error)
            try checkNotesAndCards(db, error, warning)
            try checkSearchIndex(db, error)
            for row in try db.rows("SELECT \"pk\", \"fileName\", \"sha256\", \"size\" FROM \"MediaFile\" ORDER BY \"pk\"") {
                guard case .integer(let pk) = row[0], case .text(let name) = row[1] else { continue }
                let digest: String = if case .text(let d) = row[2] { d } else { "" }
                let size: Int64 = if case .integer(let s) = row[3] { s } else { -1 }
                mediaRows.append((pk, name, digest, size))
            }
        } catch {
            problems.append(DeckProblem(severity: .error, message: "\(storeName): \(error)"))
            return problems.sorted { $0.severity < $1.severity }
        }
        problems += checkMedia(mediaRows, folder: mediaFolder)
        return problems.sorted { $0.severity < $1.severity }
    }

    /// The object a DDL statement creates (`CREATE TABLE "X"`, `CREATE INDEX "X"`, …).
    static func objectName(of statement: String) -> String? {
        let text = normalized(statement)
        for prefix in ["CREATE TABLE \"", "CREATE VIRTUAL TABLE \"", "CREATE INDEX \"", "CREATE UNIQUE INDEX \"", "CREATE TRIGGER \""] where text.hasPrefix(prefix) {
            return text.dropFirst(prefix.count).split(separator: "\"", maxSplits: 1).first.map(String.init)
        }
        return nil
    }

    static func displayed(_ value: SQLValue) -> String {
        let text: String = if case .text(let t) = value { t } else { value.description }
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }

    static func checkDeckTree(_ db: Database, _ error: (String) -> Void) throws {
        var names: Set<String> = []
        for row in try db.rows("SELECT \"name\" FROM \"Deck\"") { if case .text(let name) = row[0] { names.insert(name) } }
        for name in names.sorted() where name.contains("::") {
            let parent = name.components(separatedBy: "::").dropLast().joined(separator: "::")
            if !names.contains(parent) { error("Deck \"\(name)\": its parent deck \"\(parent)\" is missing") }
        }
    }

    static func checkNotesAndCards(_ db: Database, _ error: (String) -> Void, _ warning: (String) -> Void) throws {
        // Note types: kind, field count, template ordinals.
        var kinds: [Int64: Int64] = [:], fieldCounts: [Int64: Int] = [:], templates: [Int64: Set<Int64>] = [:]
        for row in try db.rows("SELECT \"pk\", \"kind\" FROM \"NoteType\"") {
            if case .integer(let pk) = row[0], case .integer(let kind) = row[1] { kinds[pk] = kind }
        }
        for row in try db.rows("SELECT \"noteType\", count(*) FROM \"NoteField\" GROUP BY \"noteType\"") {
            if case .integer(let type) = row[0], case .integer(let count) = row[1] { fieldCounts[type] = Int(count) }
        }
        for row in try db.rows("SELECT \"noteType\", \"ordinal\" FROM \"CardTemplate\"") {
            if case .integer(let type) = row[0], case .integer(let ordinal) = row[1] { templates[type, default: []].insert(ordinal) }
        }
        var clozeNumbers: [Int64: Set<Int>] = [:]
        var noteKinds: [Int64: Int64] = [:], noteTypes: [Int64: Int64] = [:]
        let decoder = JSONDecoder()
        for row in try db.rows("SELECT \"pk\", \"noteType\", \"fields\" FROM \"Note\" ORDER BY \"pk\"") {
            guard case .integer(let pk) = row[0], case .integer(let type) = row[1] else { continue }
            noteTypes[pk] = type
            guard case .text(let json) = row[2], let fields = try? decoder.decode([String].self, from: Data(json.utf8)) else {
                error("Note \(pk).fields is not a JSON array of strings")
                continue
            }
            let expected = fieldCounts[type] ?? 0
            if fields.count != expected { error("Note \(pk) has \(fields.count) field value(s); its note type has \(expected) field(s)") }
            if let kind = kinds[type] {
                noteKinds[pk] = kind
                if kind == 1 {
                    let numbers = Cloze.numbers(inFields: fields)
                    if numbers.isEmpty { error("Note \(pk) is a cloze note without cloze numbers") }
                    clozeNumbers[pk] = numbers
                }
            }
        }
        for row in try db.rows("SELECT \"pk\", \"note\", \"ordinal\" FROM \"Card\" ORDER BY \"pk\"") {
            guard case .integer(let pk) = row[0], case .integer(let note) = row[1], case .integer(let ordinal) = row[2],
                  let type = noteTypes[note], let kind = noteKinds[note] else { continue }
            if kind == 0, !(templates[type] ?? []).contains(ordinal) {
                error("Card \(pk) has ordinal \(ordinal), but its note type has no such template")
            } else if kind == 1, let numbers = clozeNumbers[note], !numbers.isEmpty,
                      !numbers.contains(Int(clamping: ordinal) + 1), ordinal < NoteLayout.maximumClozeOrdinal {
                warning("Card \(pk): its note has no cloze number \(ordinal + 1) (an empty card)")
            }
        }
    }

    /// Notes up to the pending marker must be in the index with the text the notes give.
    static func checkSearchIndex(_ db: Database, _ error: (String) -> Void) throws {
        let pending = try db.scalar("SELECT min(\"indexedThrough\") FROM \"NoteSearchPending\"", as: Int64.self)
        let through = pending ?? Int64.max
        var indexed: [Int64: (String, String)] = [:]
        for row in try db.rows("SELECT rowid, fields, tags FROM \"NoteSearch\"") {
            guard case .integer(let key) = row[0] else { continue }
            let fields: String = if case .text(let t) = row[1] { t } else { "" }
            let tags: String = if case .text(let t) = row[2] { t } else { "" }
            indexed[key] = (fields, tags)
        }
        var missing = 0, differing: [Int64] = []
        var notes: Set<Int64> = []
        let decoder = JSONDecoder()
        for row in try db.rows("SELECT n.\"pk\", n.\"fields\", \(tagsOfNoteSQL) FROM \"Note\" n WHERE n.\"pk\" <= ?", [.integer(through)]) {
            guard case .integer(let key) = row[0] else { continue }
            notes.insert(key)
            guard let entry = indexed[key] else { missing += 1; continue }
            guard case .text(let json) = row[1], let fields = try? decoder.decode([String].self, from: Data(json.utf8)) else { continue }
            let tags: String = if case .text(let t) = row[2] { t } else { "" }
            if entry.0 != searchText(ofFields: fields) || Set(entry.1.split(separator: " ")) != Set(tags.split(separator: " ")) {
                differing.append(key)
            }
        }
        let stale = indexed.keys.filter { $0 <= through && !notes.contains($0) }.count
        if missing > 0 { error("\(missing) note(s) missing from the search index") }
        if stale > 0 { error("\(stale) search index row(s) for deleted notes") }
        if !differing.isEmpty {
            error("the search index text differs from the notes for \(differing.count) note(s) (first: note \(differing.sorted()[0]))")
        }
    }

    static func checkMedia(_ rows: [(pk: Int64, fileName: String, sha256: String, size: Int64)], folder: URL) -> [DeckProblem] {
        var problems: [DeckProblem] = []
        let mediaName = folder.lastPathComponent
        var named: Set<String> = []
        for row in rows {
            let label = "\(mediaName)/\(row.fileName)"
            guard isValidMediaFileName(row.fileName) else {
                problems.append(DeckProblem(severity: .error, message: "MediaFile \(row.pk).fileName \"\(row.fileName)\" is not a content-addressed file name: it is not a media file name (<sha256>.<ext>)"))
                continue
            }
            named.insert(row.fileName)
            let path = folder.appendingPathComponent(row.fileName).path
            var status = stat()
            guard lstat(path, &status) == 0 else {
                problems.append(DeckProblem(severity: .error, message: "\(label): referenced by the store but missing"))
                continue
            }
            guard (status.st_mode & S_IFMT) == S_IFREG else {
                let found = (try? UntrustedFile.type(atPath: path)).flatMap { $0 }.map { " (it is \($0.rawValue))" } ?? ""
                problems.append(DeckProblem(severity: .error, message: "\(label): not a regular file\(found)"))
                continue
            }
            if Int64(status.st_size) != row.size {
                problems.append(DeckProblem(severity: .error, message: "\(label): size is \(status.st_size) bytes, the store says \(row.size)"))
            }
            do {
                let digest = try SHA256.hex(fileAt: URL(fileURLWithPath: path))
                if digest != row.sha256 {
                    problems.append(DeckProblem(severity: .error, message: "\(label): contents differ (sha256 \(digest), expected \(row.sha256))"))
                }
            } catch {
                problems.append(DeckProblem(severity: .error, message: "\(label): can't be read: \(error.localizedDescription)"))
            }
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue {
            do {
                for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where !name.hasPrefix(".") && !named.contains(name) {
                    problems.append(DeckProblem(severity: .warning, message: "\(mediaName)/\(name): not referenced by the store"))
                }
            } catch {
                problems.append(DeckProblem(severity: .error, message: "\(mediaName): can't be listed: \(error.localizedDescription)"))
            }
        }
        return problems
    }

    /// `<64 lowercase hex>` with an optional `.<1–10 of [a-z0-9]>` (docs/FORMAT.md, "Names"): the
    /// rule every reader applies before using the name as a path (``MediaReference/isValidFileName(_:)``),
    /// so a name `check` accepts is one the exports and archives accept too.
    static func isValidMediaFileName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let hash = parts.first, hash.utf8.count == 64, hash.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return false }
        guard parts.count == 2 else { return true }
        let ext = parts[1]
        return (1...10).contains(ext.utf8.count) && ext.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }
    }
}

/// What ``DeckDocument/verifyValues(_:)`` reads.
public enum DeckValueScope: Sendable, Equatable {
    /// Every table the scheduler and the exports convert, each read once.
    case everything
    /// The deck's settings and note types (decks, presets, note types with their fields and
    /// templates): what building a study queue converts.
    case settings
    /// The settings, card `id`'s note and every card of that note: what showing or answering
    /// the card reads, through indexes, whatever the deck's size.
    case card(Int64)
}

extension DeckDocument {
    /// Refuses a store holding a value outside the ranges `check` applies (docs/FORMAT.md,
    /// "Value ranges") in the rows `scope` names: ``DeckError`` `corrupt` naming the deck, the
    /// row and the column. For readers that then work through models (`deck study`, `review`,
    /// `due`), which trust what they fetch.
    public func verifyValues(_ scope: DeckValueScope = .everything) throws {
        try requireOpen()
        try container.withDatabase(for: Note.self) { db in
            switch scope {
            case .everything: try DeckStoreV2.verifyValues(db, deck: url, tables: DeckStoreV2.valueTables)
            case .settings: try DeckStoreV2.verifyFewRows(db, deck: url, tables: DeckStoreV2.settingsTables)
            case .card(let id): try DeckStoreV2.verifyValues(db, deck: url, forCard: id)
            }
        }
    }
}
