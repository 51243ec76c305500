import Foundation
import Persistence
import SQLite

/// Undo and redo for a `deck open` session, kept in the session's private working copy of
/// the store (never in the deck itself).
///
/// Triggers on every table of the working copy record, for each row written, the SQL that
/// reverts it (SQLite's classic undo-log technique). One session command is one step: undoing
/// it runs its reverting statements newest first in one transaction, and the triggers record
/// what re-does it. Card identifiers are row keys, so a card brought back by undo or redo
/// keeps its identifier.
///
/// The log and its triggers live in the working copy's main schema so they survive reopening
/// the working document (its model context caches rows and must be dropped after an undo);
/// ``strip(_:)`` removes them from a copy before it is written to the deck.
struct UndoJournal {
    /// The log table: `seq` orders the statements, `sql` reverts one row change.
    static let logTable = "deck_session_undo_log"
    static let triggerPrefix = "deck_session_undo_"

    /// A recorded step: the log rows with `first < seq <= last`.
    struct Step: Equatable {
        var first: Int64
        var last: Int64
        var isEmpty: Bool { last <= first }
    }

    private(set) var undoSteps: [Step] = []
    private(set) var redoSteps: [Step] = []

    var canUndo: Bool { !undoSteps.isEmpty }
    var canRedo: Bool { !redoSteps.isEmpty }

    /// Creates the log and one insert, update and delete trigger per table of the store.
    static func install(in db: Database) throws {
        try db.execute("CREATE TABLE IF NOT EXISTS \(quoteIdentifier(logTable)) (seq INTEGER PRIMARY KEY, sql TEXT NOT NULL)")
        let tables = try db.rows("""
            SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
            AND name NOT LIKE 'CardSearch%' AND name <> ? AND name <> ?
            """, [.text(logTable), .text(Schema.metadataTable)])
        for row in tables {
            guard case .text(let table)? = row.first else { continue }
            let definition: String = if row.count > 1, case .text(let text) = row[1] { text } else { "" }
            try installTriggers(on: table, withoutRowID: definition.uppercased().contains("WITHOUT ROWID"), in: db)
        }
    }

    private static func installTriggers(on table: String, withoutRowID: Bool, in db: Database) throws {
        let columns = try db.columns(of: table)
        guard !columns.isEmpty else { return }
        let quotedTable = quoteIdentifier(table)
        let log = quoteIdentifier(logTable)
        // SQL text pieces built inside the trigger: 'literal' || quote(old."c") || ...
        func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        func match(_ row: String) -> String {
            if !withoutRowID { return literal(" WHERE rowid = ") + " || \(row).rowid" }
            return literal(" WHERE ") + " || " + columns.map { column in
                literal("\(quoteIdentifier(column)) IS ") + " || quote(\(row).\(quoteIdentifier(column)))"
            }.joined(separator: " || \(literal(" AND ")) || ")
        }
        let insertColumns = (withoutRowID ? [] : ["rowid"]) + columns.map(quoteIdentifier)
        let insertValues = (withoutRowID ? [] : ["old.rowid"]) + columns.map { "quote(old.\(quoteIdentifier($0)))" }
        let assignments = columns.map { column in
            literal("\(quoteIdentifier(column)) = ") + " || quote(old.\(quoteIdentifier(column)))"
        }.joined(separator: " || ', ' || ")
        let name = { (suffix: String) in quoteIdentifier(triggerPrefix + table + "_" + suffix) }
        try db.execute("""
            CREATE TRIGGER IF NOT EXISTS \(name("insert")) AFTER INSERT ON \(quotedTable) BEGIN
              INSERT INTO \(log)(sql) VALUES (\(literal("DELETE FROM \(quotedTable)")) || \(match("new")));
            END
            """)
        try db.execute("""
            CREATE TRIGGER IF NOT EXISTS \(name("update")) AFTER UPDATE ON \(quotedTable) BEGIN
              INSERT INTO \(log)(sql) VALUES (\(literal("UPDATE \(quotedTable) SET ")) || \(assignments) || \(match("new")));
            END
            """)
        try db.execute("""
            CREATE TRIGGER IF NOT EXISTS \(name("delete")) BEFORE DELETE ON \(quotedTable) BEGIN
              INSERT INTO \(log)(sql) VALUES (\(literal("INSERT INTO \(quotedTable)(\(insertColumns.joined(separator: ", "))) VALUES (")) || \
            \(insertValues.joined(separator: " || ', ' || ")) || ')');
            END
            """)
    }

    /// Removes the log and its triggers (from a copy about to become the deck's store).
    static func strip(_ db: Database) throws {
        let triggers = try db.rows("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name LIKE ?", [.text(triggerPrefix + "%")])
        for case .text(let name)? in triggers.map(\.first) {
            try db.execute("DROP TRIGGER IF EXISTS \(quoteIdentifier(name))")
        }
        try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(logTable))")
    }

    static func lastSequence(in db: Database) throws -> Int64 {
        try db.scalar("SELECT coalesce(max(seq), 0) FROM \(quoteIdentifier(logTable))", as: Int64.self) ?? 0
    }

    /// The position before a command; pass it to ``record(since:in:)`` afterwards.
    func mark(in db: Database) throws -> Int64 { try Self.lastSequence(in: db) }

    /// Records what a command wrote since `mark` as one undoable step; a new step drops
    /// everything that could have been redone. Returns whether anything was written.
    @discardableResult
    mutating func record(since mark: Int64, in db: Database) throws -> Bool {
        let step = Step(first: mark, last: try Self.lastSequence(in: db))
        guard !step.isEmpty else { return false }
        for dropped in redoSteps { try delete(dropped, in: db) }
        redoSteps.removeAll()
        undoSteps.append(step)
        return true
    }

    /// Reverts the last step; returns false when there is nothing to undo.
    mutating func undo(in db: Database) throws -> Bool {
        guard let step = undoSteps.popLast() else { return false }
        do {
            redoSteps.append(try replay(step, in: db))
        } catch {
            undoSteps.append(step)
            throw error
        }
        return true
    }

    /// Re-applies the last undone step; returns false when there is nothing to redo.
    mutating func redo(in db: Database) throws -> Bool {
        guard let step = redoSteps.popLast() else { return false }
        do {
            undoSteps.append(try replay(step, in: db))
        } catch {
            redoSteps.append(step)
            throw error
        }
        return true
    }

    /// Runs a step's statements newest first, in one transaction, and returns the step the
    /// triggers recorded meanwhile (its inverse).
    private func replay(_ step: Step, in db: Database) throws -> Step {
        // Rows come back in reverse order of their removal (a card before its tag links
        // when they were removed the other way round): check foreign keys at commit.
        try db.execute("PRAGMA defer_foreign_keys = ON")
        return try db.transaction(.immediate) {
            let statements = try db.rows("SELECT sql FROM \(quoteIdentifier(Self.logTable)) WHERE seq > ? AND seq <= ? ORDER BY seq DESC",
                                         [.integer(step.first), .integer(step.last)])
            try delete(step, in: db)
            let start = try Self.lastSequence(in: db)
            for case .text(let sql)? in statements.map(\.first) {
                try db.execute(sql)
            }
            return Step(first: start, last: try Self.lastSequence(in: db))
        }
    }

    private func delete(_ step: Step, in db: Database) throws {
        try db.execute("DELETE FROM \(quoteIdentifier(Self.logTable)) WHERE seq > ? AND seq <= ?", [.integer(step.first), .integer(step.last)])
    }
}
