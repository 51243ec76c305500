import Foundation
import Persistence
import SQLite

/// The format version 2 store beyond what ``DeckSchemaV2``'s models declare: the full-text
/// index over every field, its pending marker, and the indexes the scheduler and the card
/// identity need. `Schemas/store.sql` is ``storeSQL`` written out (a test keeps them equal and
/// checks a new store's `sqlite_master` against it).
public enum DeckStoreV2 {
    /// The format version these stores carry in `PRAGMA user_version` and the manifest.
    public static let formatVersion = 2

    public static func schema() -> Schema { DeckSchemaV2.schema }

    /// The FTS5 table: one row per note, rowid = `Note.pk`; `fields` is every field's text with
    /// HTML stripped (``searchText(ofFields:)``), `tags` the note's tag names separated by spaces.
    public static let searchTable = "NoteSearch"
    /// At most one row: notes with a key above `indexedThrough` may be missing from the index
    /// (0: rebuild the whole index before searching).
    public static let pendingTable = "NoteSearchPending"

    /// Statements after the models' own tables and indexes, in order.
    static let extraDDL: [String] = [
        #"CREATE VIRTUAL TABLE IF NOT EXISTS "NoteSearch" USING fts5(fields, tags, tokenize = 'unicode61 remove_diacritics 2')"#,
        #"CREATE TABLE IF NOT EXISTS "NoteSearchPending" ("indexedThrough" INTEGER NOT NULL)"#,
        """
        CREATE TRIGGER IF NOT EXISTS "Note_search_delete" AFTER DELETE ON "Note" BEGIN
          DELETE FROM "NoteSearch" WHERE rowid = old."pk";
        END
        """,
        // One card per template (or cloze number) of a note.
        #"CREATE UNIQUE INDEX IF NOT EXISTS "Card_note_ordinal" ON "Card"("note", "ordinal")"#,
        // The study queue: a deck's cards by queue and due (Anki's ix_cards_sched).
        #"CREATE INDEX IF NOT EXISTS "Card_deck_queue_due" ON "Card"("deck", "queue", "due")"#,
        // Import dedupe and updates find cards, notes and note types by Anki's ids.
        #"CREATE INDEX IF NOT EXISTS "Note_ankiID_set" ON "Note"("ankiID") WHERE "ankiID" IS NOT NULL"#,
        #"CREATE INDEX IF NOT EXISTS "Card_ankiID_set" ON "Card"("ankiID") WHERE "ankiID" IS NOT NULL"#,
    ]

    /// The metadata table of the persistence layer, as it creates it.
    static let metadataDDL = #"CREATE TABLE IF NOT EXISTS "persistence_metadata" ("key" TEXT PRIMARY KEY, "value" TEXT NOT NULL)"#

    /// Every statement that creates the store's schema, in the order a writer runs them.
    public static var statements: [String] {
        schema().makeDDL() + [metadataDDL] + extraDDL
    }

    /// The text of `Schemas/store.sql`: every statement as SQLite keeps it in `sqlite_master`
    /// (without `IF NOT EXISTS`), each ending with `;`, after the pragmas a new store sets.
    public static var storeSQL: String {
        var text = """
            -- The format version 2 store of a .sampledeck package (docs/FORMAT.md).
            -- Generated from the models (DeckSchemaV2) and DeckStoreV2; a test checks that this file
            -- and a new deck's sqlite_master agree. Regenerate: SAMPLEDECK_WRITE_STORE_SQL=1 swift test --filter StoreSQLTests
            PRAGMA page_size = 16384;
            PRAGMA user_version = 2;
            PRAGMA foreign_keys = ON;

            """
        for statement in statements { text += normalized(statement) + ";\n" }
        text += """
            INSERT INTO "persistence_metadata" ("key", "value") VALUES ('schemaVersion', '2.0.0');
            INSERT INTO "DeckInfo" ("pk", "title", "deckDescription", "dayZero", "dayStartsAt", "ankiConfig") VALUES (1, 'Untitled', '', 0, 4, '{}');

            """
        return text
    }

    /// A statement as `sqlite_master.sql` holds it: SQLite drops `IF NOT EXISTS`.
    static func normalized(_ statement: String) -> String {
        statement.replacingOccurrences(of: " IF NOT EXISTS ", with: " ")
    }

    /// The shadow tables FTS5 creates for ``searchTable`` (in `sqlite_master`, not in store.sql).
    public static let searchShadowTables: Set<String> = ["NoteSearch_data", "NoteSearch_idx", "NoteSearch_content", "NoteSearch_docsize", "NoteSearch_config"]

    /// Creates a new, empty format version 2 store at `url` (which must not exist), with its
    /// `DeckInfo` row. Used by the tests and the spec until decks are created in version 2.
    public static func createStore(at url: URL, title: String, dayZero: Int64 = 0) throws {
        try DeckStore.createEmptyStore(at: url)
        let container = try ModelContainer(for: schema(), configurations: [ModelConfiguration("Deck", url: url)])
        try container.withDatabase(for: DeckSchemaV2.Note.self) { db in try install(db) }
        let context = ModelContext(container)
        let info = DeckSchemaV2.DeckInfo(title: title)
        info.dayZero = dayZero
        context.insert(info)
        try context.save()
        try container.close()
    }

    /// Creates the index, marker table, trigger and extra indexes if missing, and stamps `user_version`.
    static func install(_ db: Database) throws {
        try db.transaction(.immediate) {
            for statement in extraDDL { try db.execute(statement) }
            if try db.userVersion() != formatVersion { try db.setUserVersion(formatVersion) }
        }
    }

    /// The text the index holds for a note's fields: each field as plain text
    /// (``plainText(fromHTML:)``), joined by line feeds.
    public static func searchText(ofFields fields: [String]) -> String {
        fields.map(plainText(fromHTML:)).joined(separator: "\n")
    }

    /// HTML as the index and the sort field keep it: `<style>` and `<script>` elements removed
    /// with their content, other tags (`<` followed by a letter, `/` or `!`, up to the next `>`) removed (`<br>`, `<div>` and `<p>` become a space), the
    /// entities `&amp;` `&lt;` `&gt;` `&quot;` `&#39;` `&apos;` `&nbsp;` and numeric ones decoded,
    /// runs of white space collapsed to one space, leading and trailing space trimmed.
    public static func plainText(fromHTML html: String) -> String {
        guard html.contains(where: { $0 == "<" || $0 == "&" }) else { return collapseSpace(html) }
        var out = ""
        out.reserveCapacity(html.utf8.count)
        var index = html.startIndex
        while index < html.endIndex {
            let character = html[index]
            let next = html.index(after: index)
            if character == "<", next < html.endIndex, html[next].isLetter || html[next] == "/" || html[next] == "!",
               let close = html[index...].firstIndex(of: ">") {
                let tag = html[html.index(after: index)..<close].lowercased()
                let name = tag.prefix { $0.isLetter || $0.isNumber || $0 == "/" }
                if name == "style" || name == "script",
                   let end = html.range(of: "</\(name)", options: [.caseInsensitive], range: close..<html.endIndex),
                   let endClose = html[end.upperBound...].firstIndex(of: ">") {
                    index = html.index(after: endClose)
                    continue
                }
                if ["br", "br/", "div", "/div", "p", "/p", "li", "/li", "tr", "/tr", "td", "/td"].contains(name) { out.append(" ") }
                index = html.index(after: close)
            } else if character == "&", let semicolon = html[index...].prefix(12).firstIndex(of: ";"),
                      let decoded = decodeEntity(html[html.index(after: index)..<semicolon]) {
                out.append(decoded)
                index = html.index(after: semicolon)
            } else {
                out.append(character)
                index = html.index(after: index)
            }
        }
        return collapseSpace(out)
    }

    static func decodeEntity(_ name: Substring) -> Character? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos", "#39": return "'"
        case "nbsp": return " "
        default:
            let number: UInt32?
            if name.hasPrefix("#x") || name.hasPrefix("#X") { number = UInt32(name.dropFirst(2), radix: 16) }
            else if name.hasPrefix("#") { number = UInt32(name.dropFirst()) }
            else { number = nil }
            return number.flatMap(Unicode.Scalar.init).map(Character.init)
        }
    }

    static func collapseSpace(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
