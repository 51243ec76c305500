import Foundation
import CSQLite
import SQLite
import Persistence

/// The benchmark model: a card of four columns, as in the reference library's measurement.
final class BenchCard: PersistentModel {
    var front: String = ""
    var back: String = ""
    var created: Date = Date(timeIntervalSince1970: 0)
    var score: Int = 0
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("front", \BenchCard.front),
        .attribute("back", \BenchCard.back),
        .attribute("created", \BenchCard.created),
        .attribute("score", \BenchCard.score, options: [.index]),
    ]
    var persistentBackingData = BackingData()
    init() {}
    init(front: String, back: String, created: Date, score: Int) {
        self.front = front; self.back = back; self.created = created; self.score = score
    }
}

/// What the raw loop reads a row into (the fair counterpart of a model).
struct RawCard {
    let id: Int64
    let front: String
    let back: String
    let created: Double
    let score: Int64
}

enum PersistenceBench {
    static let tableDDL = Schema([BenchCard.self]).makeDDL()

    static func front(_ i: Int) -> String { "front of card number \(i)" }
    static func back(_ i: Int) -> String { "back \(i)" }

    /// The reference: a hand-written C-API loop of inserts in one transaction.
    static func rawInsert(path: String, count: Int) {
        var db: OpaquePointer?
        sqlite3_open(path, &db)
        defer { sqlite3_close(db) }
        sqlite3_exec(db, "PRAGMA journal_mode=WAL", nil, nil, nil)
        for sql in tableDDL { sqlite3_exec(db, sql, nil, nil, nil) }
        sqlite3_exec(db, "BEGIN IMMEDIATE", nil, nil, nil)
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO BenchCard (pk, front, back, created, score) VALUES (?, ?, ?, ?, ?)", -1, &statement, nil)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for i in 0..<count {
            sqlite3_bind_int64(statement, 1, Int64(i + 1))
            sqlite3_bind_text(statement, 2, front(i), -1, transient)
            sqlite3_bind_text(statement, 3, back(i), -1, transient)
            sqlite3_bind_double(statement, 4, 1_800_000_000 + Double(i))
            sqlite3_bind_int64(statement, 5, Int64(i % 1000))
            sqlite3_step(statement)
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        sqlite3_exec(db, "COMMIT", nil, nil, nil)
    }

    /// Inserts and saves; returns the context so that freeing the models is not timed.
    @discardableResult
    static func oursInsert(url: URL, count: Int) throws -> ModelContext {
        let container = try ModelContainer(for: BenchCard.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        for i in 0..<count {
            context.insert(BenchCard(front: front(i), back: back(i), created: Date(timeIntervalSince1970: 1_800_000_000 + Double(i)), score: i % 1000))
        }
        try context.save()
        return context
    }

    static func rawFetch(path: String, sql: String = "SELECT pk, front, back, created, score FROM BenchCard") -> [RawCard] {
        var db: OpaquePointer?
        sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil)
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        var cards: [RawCard] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            cards.append(RawCard(id: sqlite3_column_int64(statement, 0),
                                 front: String(cString: sqlite3_column_text(statement, 1)),
                                 back: String(cString: sqlite3_column_text(statement, 2)),
                                 created: sqlite3_column_double(statement, 3),
                                 score: sqlite3_column_int64(statement, 4)))
        }
        return cards
    }

    static func run(counts: (insert: Int, fetch: Int, query: Int, enumerate: Int), runs: Int, scratch: Scratch, enumerateOnly: Bool = false) throws -> [Measurement] {
        var results: [Measurement] = []
        var rawPath = "", oursURL = scratch.url
        var keep: ModelContext?
        results.append(try compare("insert+save \(counts.insert) cards", runs: runs, bar: 1.5,
            setup: { keep = nil; rawPath = scratch.file("raw-insert.sqlite").path; oursURL = scratch.file("ours-insert.sqlite") },
            ours: { keep = try oursInsert(url: oursURL, count: counts.insert) },
            reference: { rawInsert(path: rawPath, count: counts.insert) }))

        let fetchPath = scratch.file("fetch.sqlite")
        rawInsert(path: fetchPath.path, count: counts.fetch)
        let container = try ModelContainer(for: BenchCard.self, configurations: ModelConfiguration(url: fetchPath, allowsSave: false))
        var fetched = 0
        var models: [BenchCard] = [], rows: [RawCard] = []
        // Both sides keep their results until the next setup, so freeing them is not timed.
        results.append(try compare("fetch \(counts.fetch) cards as models", runs: runs, bar: 2.5,
            setup: { keep = nil; models = []; rows = [] },
            ours: { let context = ModelContext(container); models = try context.fetch(FetchDescriptor<BenchCard>()); keep = context; fetched = models.count },
            reference: { rows = rawFetch(path: fetchPath.path); fetched = rows.count }))
        precondition(fetched == counts.fetch)

        let bigPath = scratch.file("big.sqlite")
        rawInsert(path: bigPath.path, count: counts.query)
        let big = try ModelContainer(for: BenchCard.self, configurations: ModelConfiguration(url: bigPath, allowsSave: false))
        var descriptor = FetchDescriptor<BenchCard>(predicate: #Predicate { $0.score >= 500 && $0.score < 510 }, sortBy: [SortDescriptor(\.score, order: .reverse)])
        descriptor.fetchLimit = 100
        let rawSQL = "SELECT pk, front, back, created, score FROM BenchCard WHERE score >= 500 AND score < 510 ORDER BY score DESC, pk LIMIT 100"
        var queryRuns = 0
        results.append(try compare("indexed query+sort+limit on \(counts.query)", runs: runs * 5, bar: 1.5,
            ours: { for _ in 0..<20 { queryRuns += try ModelContext(big).fetch(descriptor).count } },
            reference: { for _ in 0..<20 { queryRuns += rawFetch(path: bigPath.path, sql: rawSQL).count } }))
        withExtendedLifetime(keep) {}  // what the timed bodies kept is released here, untimed
        return results
    }

    /// Enumerates a store of `count` cards in this process and reports peak memory.
    static func enumerateMemory(path: String) throws -> (seconds: Double, peak: Double, seen: Int) {
        let container = try ModelContainer(for: BenchCard.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path), allowsSave: false))
        let context = ModelContext(container)
        var seen = 0
        let seconds = try time {
            try context.enumerate(FetchDescriptor<BenchCard>(), batchSize: 5000) { card in
                if !card.front.isEmpty { seen += 1 }
            }
        }
        return (seconds, peakResidentMiB(), seen)
    }
}
