import Foundation
import SQLite
import Testing
@testable import DeckDocument

/// Schema statements are compared as SQLite's tokens (docs/FORMAT.md, "What a reader must
/// refuse"): what SQLite reads the same is equal, anything else is not; and every store this
/// program's own migrations make passes the comparison.
@Suite struct SchemaStatementTests {
    static func tokens(_ sql: String) throws -> SchemaStatement { try #require(SchemaStatement(sql), "\(sql)") }

    @Test func whitespaceAndTheQuotesAroundANameDoNotMatter() throws {
        let ours = try Self.tokens(#"CREATE TABLE "Tag" ("pk" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, UNIQUE("name"))"#)
        #expect(try Self.tokens("create  table [Tag]\n(`pk` integer primary key,\t\"name\" TEXT NOT NULL,UNIQUE ( [name] ) )") == ours)
        // An unquoted name is a word, not a name: SQLite may read it as a keyword.
        #expect(try Self.tokens(#"CREATE TABLE Tag ("pk" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, UNIQUE("name"))"#) != ours)
        // A quote inside a name, a string with a doubled quote, a blob, numbers.
        #expect(try Self.tokens(#"SELECT "a""b", 'it''s', x'0aFF', 1.5e-3, .5, 0x1F"#).tokens
                == [.word("SELECT"), .name("a\"b"), .symbol(","), .string("it's"), .symbol(","), .blob("0AFF"), .symbol(","),
                    .number("1.5e-3"), .symbol(","), .number(".5"), .symbol(","), .number("0x1F")])
    }

    @Test(arguments: [
        "CREATE TABLE t(a) -- a comment", "CREATE TABLE t(a /* hidden */)", "CREATE TABLE t(a DEFAULT ?)",
        "CREATE TABLE t(a DEFAULT :x)", "CREATE TABLE \"t(a)", "CREATE TABLE t(a DEFAULT 'open)", "CREATE TABLE t(a DEFAULT 12abc)",
        "CREATE TABLE t(a DEFAULT x'ABC')", "CREATE TABLE t(a) #",
    ])
    func whatTheTokenizerIsNotSureOfIsRefused(_ sql: String) {
        #expect(SchemaStatement(sql) == nil, "\(sql)")
    }

    @Test func onlyConstantDefaultsAreSetAside() throws {
        let plain = try Self.tokens(#"CREATE TABLE "DeckInfo" ("pk" INTEGER PRIMARY KEY, "dayZero" INTEGER NOT NULL, "ankiConfig" TEXT NOT NULL)"#)
        for constant in ["0", "-4", "2.5", "1e-05", "'{}'", "X'00'"] {
            let migrated = try Self.tokens(#"CREATE TABLE "DeckInfo" ("pk" INTEGER PRIMARY KEY, "dayZero" INTEGER NOT NULL DEFAULT "# + constant
                                           + #", "ankiConfig" TEXT NOT NULL DEFAULT '{}')"#)
            #expect(migrated != plain)
            #expect(migrated.withoutConstantDefaults == plain, "DEFAULT \(constant)")
        }
        for expression in ["(0)", "(random())", "CURRENT_TIMESTAMP", "NULL", "TRUE", "+1", "- -1"] {
            let other = try Self.tokens(#"CREATE TABLE "DeckInfo" ("pk" INTEGER PRIMARY KEY, "dayZero" INTEGER NOT NULL DEFAULT "# + expression
                                        + #", "ankiConfig" TEXT NOT NULL)"#)
            #expect(other.withoutConstantDefaults != plain, "DEFAULT \(expression)")
        }
        #expect(try Self.tokens("-1").isConstantLiteral && Self.tokens("'x'").isConstantLiteral && Self.tokens("X'00'").isConstantLiteral)
        #expect(try !Self.tokens("length(randomblob(7))").isConstantLiteral && !Self.tokens("(1)").isConstantLiteral)
    }

    @Test func aDifferenceIsNamedWhereItStarts() throws {
        let ours = try Self.tokens(#"CREATE TABLE "T" ("a" INTEGER NOT NULL)"#)
        #expect(try Self.tokens(#"CREATE TABLE "T" ("a" INTEGER NOT NULL CHECK (1))"#).firstDifference(from: ours) == "at CHECK, where the format has )")
        #expect(try Self.tokens(#"CREATE TABLE "T" ("a" INTEGER NOT NULL) STRICT"#).firstDifference(from: ours) == "at STRICT, where the format's statement ends")
        #expect(try Self.tokens(#"CREATE TABLE "T" ("a" INTEGER"#).firstDifference(from: ours) == "it ends where the format has NOT")
        #expect(try Self.tokens(#"CREATE TABLE [T] ( "a"   INTEGER NOT NULL )"#).firstDifference(from: ours) == nil)
    }

    /// Every reference statement of the format reads as tokens (a statement that did not would
    /// make every store refused).
    @Test func everyStatementOfTheFormatIsReadable() throws {
        for object in DeckStoreV2.layoutObjects + DeckStoreV2.version2_0LayoutObjects {
            if let sql = object.sql { #expect(SchemaStatement(sql) != nil, "\(object)") }
        }
        let reference = try #require(DeckStore.referenceSchema)
        #expect(reference.tables.count >= 10 && reference.triggers.count == 6)
        #expect(DeckStore.referenceSchemaV2.tables.count == DeckStoreV2.layoutObjects.filter { $0.type == "table" && !$0.isVirtualTable }.count)
    }

    /// A deck this library creates holds the format's statements byte for byte, so its open
    /// compares text and tokenizes nothing; the same store with one statement respaced is
    /// still the format's, through the tokens.
    @Test func aNewDeckHoldsTheFormatsTextAndARespacedOneStillMatches() throws {
        let playground = try Playground()
        let deck = playground.file("New.sampledeck")
        let document = try DeckDocument.create(at: deck, title: "New")
        let store = document.storeURL
        try document.close()
        let reference = DeckStore.referenceSchemaV2
        do {
            let db = try Database(path: store.path, mode: .readOnly)
            defer { db.close() }
            var compared = 0
            for object in try db.schemaObjects() where !object.name.hasPrefix("sqlite_") {
                guard let sql = object.sql else { continue }
                let expected = reference.tables[object.name]?.sql ?? reference.virtualTables[object.name]?.sql
                    ?? reference.indexes[object.name]?.sql.sql ?? reference.triggers[object.name]?.sql.first?.sql
                #expect(expected == sql, "\(object)")
                compared += 1
            }
            #expect(compared >= 20)
        }
        #expect(try Self.faults(store) == [])
        try HostileStoreTests.tamper(deck, HostileStoreTests.rewrite("Tag", #"(""#, #"(  ""#))
        let respaced = try Database(path: store.path, mode: .readOnly)
        let tag = try #require(try respaced.schemaObjects().first { $0.name == "Tag" }?.sql)
        respaced.close()
        #expect(tag != reference.tables["Tag"]?.sql && tag.contains("(  \""), "\(tag)")
        #expect(try Self.faults(store) == [])
        try DeckDocument.open(at: deck, mode: .readOnly).close()
        // Text is compared as bytes: Swift's == would take a KELVIN SIGN for the K of KEY.
        let key = DeckStore.ReferenceStatement(sql: "\"pk\" INTEGER PRIMARY KEY")
        let kelvin = "\"pk\" INTEGER PRIMARY \u{212A}EY"
        #expect(kelvin == key.sql && !key.isText(of: kelvin) && key.isText(of: key.sql))
    }

    /// The schema faults of the store of `deck` (its manifest's store), at format version 2.
    static func faults(_ store: URL) throws -> [String] {
        let db = try Database(path: store.path, mode: .readOnly)
        defer { db.close() }
        let objects = try db.schemaObjects()
        let reference = try DeckStore.reference(for: db, objects: objects, formatVersion: DeckStoreV2.formatVersion)
        return try DeckStore.schemaFaults(db, objects: objects, reference: reference, formatVersion: DeckStoreV2.formatVersion).map(\.description)
    }

    /// Every migration path in the test fixtures ends in a store whose every statement is the
    /// format's (constant defaults aside), which opens for reading and writing and checks clean:
    /// v0 → v2, v1 → v2, v0 → v1 → v2, and a 2.0.0 store read as it is and upgraded to 2.1.0.
    @Test(arguments: ["v0 → v2", "v1 → v2", "v0 → v1 → v2", "2.0 read", "2.0 → 2.1"])
    func everyMigrationInTheSuiteStillOpens(_ path: String) throws {
        let playground = try Playground()
        let deck: URL
        switch path {
        case "2.0 read", "2.0 → 2.1":
            deck = try StoreRevisionTests.version2_0Deck(playground)
            if path == "2.0 → 2.1" { try DeckDocument.open(at: deck, mode: .readWrite).close() }
        default:
            let fixture = path.hasPrefix("v0") ? "v0/Vocabulary.sampledeck" : "v1/Languages.sampledeck"
            deck = playground.file(URL(fileURLWithPath: fixture).lastPathComponent)
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent(fixture), to: deck)
            if path == "v0 → v1 → v2" {
                #expect(try DeckDocument.migrate(at: deck, to: 1).to == 1)
            }
            #expect(try DeckDocument.migrate(at: deck, to: 2).to == 2)
        }
        let reader = try DeckDocument.open(at: deck, mode: .readOnly)
        #expect(try Self.faults(reader.storeURL) == [])
        #expect(reader.check().filter { $0.severity == .error } == [], "\(path)")
        try reader.close()
        let writer = try DeckDocument.open(at: deck, mode: .readWrite)
        try writer.close()
        if path.hasPrefix("v") {
            // The migrated store's tables are not store.sql's text: the test compares what matters.
            let db = try Database(path: reader.storeURL.path, mode: .readOnly)
            defer { db.close() }
            let tag = try #require(try db.schemaObjects().first { $0.name == "Tag" }?.sql)
            #expect(tag.contains("DEFAULT 0"), "the v1 Tag gained collapsed by ALTER TABLE ADD COLUMN: \(tag)")
        }
    }
}
