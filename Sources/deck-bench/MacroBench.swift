import DeckDocument
import Foundation
import PersistenceMacros

/// The benchmark model declared through `@Model`: the same four columns as ``BenchCard``.
@Model final class MacroBenchCard {
    var front: String
    var back: String
    var created: Date
    var score: Int
    #Index<MacroBenchCard>([\.score])
    init(front: String, back: String, created: Date, score: Int) {
        self.front = front; self.back = back; self.created = created; self.score = score
    }
}

/// `@Model` against the hand-written model and the raw C-API loops, and the cost of the
/// macros at build time.
enum MacroBench {
    static func run(count: Int, runs: Int, scratch: Scratch) throws -> [Measurement] {
        var results: [Measurement] = []
        var rawPath = "", oursURL = scratch.url
        var keep: ModelContext?
        var insert = try compare("insert+save \(count) cards, @Model", runs: runs, bar: 1.4,
            setup: { keep = nil; rawPath = scratch.file("raw-insert.sqlite").path; oursURL = scratch.file("macro-insert.sqlite") },
            ours: {
                let container = try ModelContainer(for: MacroBenchCard.self, configurations: ModelConfiguration(url: oursURL))
                let context = ModelContext(container)
                for i in 0..<count {
                    context.insert(MacroBenchCard(front: PersistenceBench.front(i), back: PersistenceBench.back(i),
                                                  created: Date(timeIntervalSince1970: 1_800_000_000 + Double(i)), score: i % 1000))
                }
                try context.save()
                keep = context
            },
            reference: { PersistenceBench.rawInsert(path: rawPath, count: count) })
        insert.group = "@Model insert"
        insert.reference_name = "hand-written SQLite C-API loop, one transaction"
        results.append(insert)
        var handInsert = try compare("insert+save \(count) cards, hand-written model", runs: runs, bar: 1.4,
            setup: { keep = nil; rawPath = scratch.file("raw-insert.sqlite").path; oursURL = scratch.file("hand-insert.sqlite") },
            ours: { keep = try PersistenceBench.oursInsert(url: oursURL, count: count) },
            reference: { PersistenceBench.rawInsert(path: rawPath, count: count) })
        handInsert.group = "@Model insert"
        handInsert.reference_name = insert.reference_name
        results.append(handInsert)

        let fetchPath = scratch.file("macro-fetch.sqlite")
        do {
            let writer = ModelContext(try ModelContainer(for: MacroBenchCard.self, configurations: ModelConfiguration(url: fetchPath)))
            for i in 0..<count {
                writer.insert(MacroBenchCard(front: PersistenceBench.front(i), back: PersistenceBench.back(i),
                                             created: Date(timeIntervalSince1970: 1_800_000_000 + Double(i)), score: i % 1000))
            }
            try writer.save()
        }
        let container = try ModelContainer(for: MacroBenchCard.self, configurations: ModelConfiguration(url: fetchPath, allowsSave: false))
        let handPath = scratch.file("hand-fetch.sqlite")
        PersistenceBench.rawInsert(path: handPath.path, count: count)
        let handContainer = try ModelContainer(for: BenchCard.self, configurations: ModelConfiguration(url: handPath, allowsSave: false))
        var models: [MacroBenchCard] = [], handModels: [BenchCard] = [], rows: [RawCard] = []
        var fetch = try compare("fetch \(count) cards as @Model models", runs: runs, bar: 2.2,
            setup: { keep = nil; models = []; rows = [] },
            ours: { let context = ModelContext(container); models = try context.fetch(FetchDescriptor<MacroBenchCard>()); keep = context },
            reference: { rows = PersistenceBench.rawFetch(path: handPath.path) })
        precondition(models.count == count)
        fetch.group = "@Model fetch"
        fetch.reference_name = "raw C-API step loop into structs"
        results.append(fetch)
        var handFetch = try compare("fetch \(count) cards as hand-written models", runs: runs, bar: 2.2,
            setup: { keep = nil; handModels = []; rows = [] },
            ours: { let context = ModelContext(handContainer); handModels = try context.fetch(FetchDescriptor<BenchCard>()); keep = context },
            reference: { rows = PersistenceBench.rawFetch(path: handPath.path) })
        handFetch.group = "@Model fetch"
        handFetch.reference_name = fetch.reference_name
        results.append(handFetch)
        withExtendedLifetime((keep, models, handModels, rows)) {}

        if let build = try buildTime(classes: 50, runs: max(1, min(runs, 3)), scratch: scratch) { results.append(build) }
        results.append(try schemaBuild(runs: max(3, runs)))
        return results
    }

    // MARK: Schema build

    /// The child (`deck-bench schema-build`): builds the schema of format v2's models twice
    /// and prints wall and CPU seconds of each build. The first is what every `deck` command
    /// pays when it opens a deck (the models' `schemaMetadata`, their key paths and the
    /// runtime's metadata are made then); the second is the same work with all of that made.
    static func schemaBuildChild() {
        let first = timeBoth { _ = Schema(DeckSchemaV2.models) }
        let again = timeBoth { _ = Schema(DeckSchemaV2.models) }
        print("\(first.wall) \(first.cpu) \(again.wall) \(again.cpu)")
    }

    /// A figure, not a bar: the first schema build in a fresh process (median of `runs`
    /// children) against the second in the same process.
    static func schemaBuild(runs: Int) throws -> Measurement {
        var first: [(wall: Double, cpu: Double)] = [], again: [(wall: Double, cpu: Double)] = []
        for _ in 0..<runs {
            let fields = try ChildProcess.run(ChildProcess.benchTool, ["schema-build"]).stdout
                .split(separator: "\n").last?.split(separator: " ").compactMap { Double($0) } ?? []
            guard fields.count == 4 else { throw BenchError("deck-bench schema-build printed no figures") }
            first.append((fields[0], fields[1]))
            again.append((fields[2], fields[3]))
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let oursWall = median(first.map(\.wall)), oursCPU = median(first.map(\.cpu))
        let referenceWall = median(again.map(\.wall)), referenceCPU = median(again.map(\.cpu))
        var measurement = Measurement(
            name: "Schema of format v2's @Model classes, first build in a process", ours_s: oursWall, reference_s: referenceWall,
            ratio: oursWall / max(referenceWall, 1e-9), bar: nil, peak_mib: nil, met: nil, runs: runs,
            spread: (first.map(\.wall).max() ?? 0) / max(first.map(\.wall).min() ?? 1, 1e-9))
        measurement.ours_cpu_s = oursCPU
        measurement.reference_cpu_s = referenceCPU
        measurement.cpu_ratio = oursCPU / max(referenceCPU, 1e-9)
        measurement.group = "@Model schema build"
        measurement.reference_name = "the same schema built again in that process"
        measurement.note = "The open cost of every deck command: Schema(DeckSchemaV2.models) in a fresh deck-bench child, wall and CPU medians; the second build shows what is left once the models' metadata and key paths exist. No bar (issue 13/18: as cheap as hand-written models)."
        measurement.command = "deck-bench schema-build"
        return measurement
    }

    // MARK: Build time

    /// Compiles a module of `classes` `@Model` classes and the same classes written by hand,
    /// with the `swiftc` on PATH against this build's modules and macro plugin; nil (with a
    /// note on stdout) when the compiler or the plugin isn't there.
    static func buildTime(classes: Int, runs: Int, scratch: Scratch) throws -> Measurement? {
        let buildDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let plugin = buildDirectory.appendingPathComponent("PersistenceMacrosPlugin-tool").path
        let modules = buildDirectory.appendingPathComponent("Modules").path
        guard FileManager.default.isExecutableFile(atPath: plugin), let swiftc = findOnPath("swiftc") else {
            print("deck-bench: no swiftc on PATH or no \(plugin): build-time row skipped")
            return nil
        }
        // The system-library module maps (CSQLite, CMD) the Persistence module depends on.
        var root = buildDirectory
        while root.path != "/", !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            root = root.deletingLastPathComponent()
        }
        let moduleMaps = ["CSQLite", "CMD"].flatMap { ["-I", root.appendingPathComponent("Sources/\($0)").path] }
        let macroFile = scratch.file("models-macro.swift"), handFile = scratch.file("models-hand.swift")
        try macroSource(classes: classes).write(to: macroFile, atomically: true, encoding: .utf8)
        try handSource(classes: classes).write(to: handFile, atomically: true, encoding: .utf8)
        func compile(_ file: URL) throws {
            try ChildProcess.run(swiftc, [
                "-frontend", "-c", "-primary-file", file.path, "-module-name", "Models", "-parse-as-library",
                "-I", modules, "-load-plugin-executable", "\(plugin)#PersistenceMacrosPlugin",
            ] + moduleMaps + [
                "-o", scratch.file("models.o").path,
            ])
        }
        var measurement = try compare("build a module of \(classes) @Model classes", runs: runs, bar: 2.0,
                                      ours: { try compile(macroFile) }, reference: { try compile(handFile) })
        measurement.group = "@Model build time"
        measurement.reference_name = "the same \(classes) classes written out by hand"
        measurement.note = "One swiftc -frontend -c of each file (debug, the edit-build loop), CPU of the compiler and the plugin."
        return measurement
    }

    private static func findOnPath(_ name: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static func macroSource(classes: Int) -> String {
        var source = "import Foundation\nimport PersistenceMacros\n\nenum Level: String, Codable { case low, high }\n"
        for i in 0..<classes {
            source += """

            @Model final class Item\(i) {
                var name: String
                var count: Int = 0
                var score: Double = 0
                var created: Date
                var note: String?
                var level: Level = .low
                @Relationship(deleteRule: .cascade, inverse: \\Part\(i).owner) var parts: [Part\(i)] = []
                init(name: String, created: Date) { self.name = name; self.created = created }
            }
            @Model final class Part\(i) {
                var label: String = ""
                var owner: Item\(i)?
                init(label: String) { self.label = label }
            }

            """
        }
        return source
    }

    static func handSource(classes: Int) -> String {
        var source = "import Foundation\nimport Persistence\n\nenum Level: String, Codable { case low, high }\n"
        for i in 0..<classes {
            source += """

            final class Item\(i): PersistentModel {
                var name: String = ""
                var count: Int = 0
                var score: Double = 0
                var created: Date = Date(timeIntervalSinceReferenceDate: 0)
                var note: String? = nil
                var level: Level = .low
                var parts: [Part\(i)] {
                    get { getValue(forKey: \\.parts) }
                    set { setValue(forKey: \\.parts, to: newValue) }
                }
                static let schemaMetadata: [Schema.PropertyMetadata] = [
                    .attribute("name", \\Item\(i).name),
                    .attribute("count", \\Item\(i).count),
                    .attribute("score", \\Item\(i).score),
                    .attribute("created", \\Item\(i).created),
                    .attribute("note", \\Item\(i).note),
                    .attribute("level", \\Item\(i).level),
                    .relationship("parts", \\Item\(i).parts, deleteRule: .cascade, inverse: \\Part\(i).owner),
                ]
                let persistentBackingData = BackingData()
                init() {}
                init(name: String, created: Date) { self.name = name; self.created = created }
            }
            final class Part\(i): PersistentModel {
                var label: String = ""
                var owner: Item\(i)? {
                    get { getValue(forKey: \\.owner) }
                    set { setValue(forKey: \\.owner, to: newValue) }
                }
                static let schemaMetadata: [Schema.PropertyMetadata] = [
                    .attribute("label", \\Part\(i).label),
                    .relationship("owner", \\Part\(i).owner),
                ]
                let persistentBackingData = BackingData()
                init() {}
                init(label: String) { self.label = label }
            }

            """
        }
        return source
    }
}
