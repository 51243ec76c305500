import Foundation
import CSQLite
import SQLite
import Persistence

/// Two versions of the benchmark card: V2 adds a property with a default.
enum MigrationBenchV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [BenchCard.self] }
}

enum MigrationBenchV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [BenchCard.self] }

    /// The benchmark card with one more column.
    final class BenchCard: PersistentModel {
        var front: String = ""
        var back: String = ""
        var created: Date = Date(timeIntervalSince1970: 0)
        var score: Int = 0
        var reviewed: Int = 0
        static let schemaMetadata: [Schema.PropertyMetadata] = [
            .attribute("front", \BenchCard.front),
            .attribute("back", \BenchCard.back),
            .attribute("created", \BenchCard.created),
            .attribute("score", \BenchCard.score, options: [.index]),
            .attribute("reviewed", \BenchCard.reviewed),
        ]
        let persistentBackingData = BackingData()
        init() {}
    }
}

enum MigrationBenchPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [MigrationBenchV1.self, MigrationBenchV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: MigrationBenchV1.self, toVersion: MigrationBenchV2.self)] }
}

enum MigrationBench {
    /// Opens a store of `rows` cards written by V1 with the V2 schema and its plan (a
    /// lightweight stage adding a column), against a raw `ALTER TABLE … ADD COLUMN`.
    ///
    /// Both run on a fresh copy of the same store each time; the bar (3x) holds only if the
    /// migration edits the schema instead of copying the table.
    static func run(scratch: Scratch, rows: Int = 1_000_000, runs: Int = 3) throws -> Measurement {
        let template = scratch.file("migration-template.sqlite")
        PersistenceBench.rawInsert(path: template.path, count: rows)
        // Record version 1.0.0 as the V1 app would have.
        try ModelContainer(for: MigrationBenchV1.schema, configurations: [ModelConfiguration(url: template)]).close()
        let ours = scratch.file("migration-ours.sqlite"), reference = scratch.file("migration-raw.sqlite")
        return try compare("lightweight migration adding a column, \(rows) rows", runs: runs, bar: 3,
            setup: {
                for url in [ours, reference] {
                    _ = scratch.file(url.lastPathComponent)
                    try FileManager.default.copyItem(at: template, to: url)
                }
            },
            ours: {
                let container = try ModelContainer(for: MigrationBenchV2.schema, migrationPlan: MigrationBenchPlan.self,
                                                   configurations: [ModelConfiguration(url: ours)])
                try container.close()
            },
            reference: {
                var db: OpaquePointer?
                sqlite3_open(reference.path, &db)
                sqlite3_exec(db, "BEGIN IMMEDIATE; ALTER TABLE BenchCard ADD COLUMN reviewed INTEGER NOT NULL DEFAULT 0; UPDATE persistence_metadata SET value = '2.0.0'; COMMIT", nil, nil, nil)
                sqlite3_close(db)
            })
    }
}
