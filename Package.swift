// swift-tools-version:6.0
// SampleDeck: flash-card document packages (.sampledeck), a SwiftData-shaped persistence
// library, interchange with CSV/TSV, JSON and Anki, and the `deck` command-line tool.
import Foundation
import CompilerPluginSupport
import PackageDescription

// MARK: The toolchain's swift-syntax (for the macros)

/// The directory of the swift-syntax host modules shipped with the toolchain that runs this
/// build (`<toolchain>/usr/lib/swift/host`): from `SAMPLEDECK_SWIFT_HOST_LIBS` when set,
/// otherwise found beside the `swift` executable on `PATH` (symlinks resolved).
let swiftHostLibraries: String = {
    let environment = ProcessInfo.processInfo.environment
    if let override = environment["SAMPLEDECK_SWIFT_HOST_LIBS"], !override.isEmpty { return override }
    for directory in (environment["PATH"] ?? "").split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("swift")
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else { continue }
        let host = candidate.resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("../lib/swift/host").standardizedFileURL
        if FileManager.default.fileExists(atPath: host.appendingPathComponent("libSwiftSyntax.so").path) { return host.path }
    }
    return "/usr/lib/swift/host"
}()

/// The host modules the macro plugin uses, linked from `swiftHostLibraries`.
let swiftSyntaxModules = [
    "SwiftSyntax", "SwiftSyntaxMacros", "SwiftSyntaxBuilder", "SwiftDiagnostics", "SwiftBasicFormat",
    "SwiftParser", "SwiftParserDiagnostics", "SwiftOperators", "SwiftIfConfig", "SwiftSyntaxMacroExpansion",
    "SwiftCompilerPluginMessageHandling",
]
let hostModuleSettings: [SwiftSetting] = [.unsafeFlags(["-I", swiftHostLibraries])]
let hostModuleLinking: [LinkerSetting] = [.unsafeFlags(["-L", swiftHostLibraries, "-Xlinker", "-rpath", "-Xlinker", swiftHostLibraries])]
    + swiftSyntaxModules.map { .linkedLibrary($0) }

#if os(Linux)
/// `import SwiftData` where Apple's SwiftData doesn't exist.
let swiftDataProducts: [Product] = [.library(name: "SwiftData", targets: ["SwiftData"])]
#else
let swiftDataProducts: [Product] = []
#endif

let package = Package(
    name: "SampleDeck",
    products: [
        .library(name: "Persistence", targets: ["Persistence"]),
        // `@Model`, `@Attribute`, `@Relationship`, `@Transient`, `#Unique`, `#Index` over Persistence.
        .library(name: "PersistenceMacros", targets: ["PersistenceMacros"]),
        .library(name: "DeckDocument", targets: ["DeckDocument"]),
        .library(name: "Interchange", targets: ["Interchange"]),
        .library(name: "CardTemplates", targets: ["CardTemplates"]),
        .library(name: "Scheduling", targets: ["Scheduling"]),
        .library(name: "Study", targets: ["Study"]),
        .executable(name: "deck", targets: ["deck"]),
    ] + swiftDataProducts,
    targets: [
        // MARK: C libraries (Debian packages, through system-library targets)

        // SQLite 3: the store of every deck.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // libarchive: zip and tar archives of decks, and the zip container of Anki packages.
        // Its headers, with trampolines that load libarchive.so.13 on first use
        // (LibArchiveLoader.c), so commands that touch no archive don't pay for loading it.
        .target(name: "CArchive"),
        // libzstd: the compression of current Anki packages (collection.anki21b, media).
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        // libmd: SHA-1 and SHA-256 (BSD message digests).
        .systemLibrary(name: "CMD", pkgConfig: "libmd", providers: [.apt(["libmd-dev"])]),
        // zlib: CRC-32, to check stored zip entries read in place (Anki collections).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // MARK: Low-level Swift layers

        // Untrusted paths and outputs: opening without following links or blocking on special
        // files, publishing without overwriting, temporaries removed on signals and swept later.
        .target(name: "FileSafety"),

        // A small Swift layer over SQLite: connections, statements, rows, transactions, backup.
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        // SHA-1 and SHA-256 digests over libmd: content addresses and Anki checksums.
        .target(name: "Digest", dependencies: ["CMD"]),
        // Archives through libarchive: deterministic writing, secure bounded extraction, zip reading.
        .target(name: "Archive", dependencies: ["CArchive", "FileSafety"]),

        // MARK: Card templates

        // Anki's template language as values: card generation, question/answer HTML, cloze, plain text.
        .target(name: "CardTemplates"),

        // MARK: Persistence

        // The SwiftData-shaped persistence API: ModelContainer, ModelContext, FetchDescriptor.
        // No unsafe flags, so a package can depend on it by version: the class properties a
        // fetch touches per row are marked `@exclusivity(unchecked)` instead of a module-wide flag.
        .target(name: "Persistence", dependencies: ["SQLite", "Digest"]),
        // The compiler plugin implementing the model macros, built against the toolchain's swift-syntax.
        .macro(name: "PersistenceMacrosPlugin", swiftSettings: hostModuleSettings, linkerSettings: hostModuleLinking),
        // The macro declarations (`@Model` and its companions); re-exports Persistence.
        .target(name: "PersistenceMacros", dependencies: ["Persistence", "PersistenceMacrosPlugin"]),
        // SwiftData's module name on Linux: re-exports Foundation, Observation, Persistence and the macros.
        .target(name: "SwiftData", dependencies: ["Persistence", "PersistenceMacros"]),

        // MARK: The document format

        // The filter language of `--where` (parsing into a syntax tree, no I/O).
        .target(name: "DeckFilter"),
        // The .sampledeck package: manifest, models, open/create/check/migrate, archives.
        .target(name: "DeckDocument", dependencies: ["Persistence", "PersistenceMacros", "SQLite", "Archive", "DeckFilter", "Digest", "CardTemplates", "FileSafety"]),

        // MARK: Scheduling

        // FSRS-6 and SM-2 as Anki's v3 scheduler applies them, and study queues: plain values, no store.
        .target(name: "Scheduling"),

        // MARK: Interchange

        // Anki packages (.apkg/.colpkg) read and written as plain values: legacy and anki21b.
        .target(name: "Anki", dependencies: ["SQLite", "Archive", "CZstd", "CZlib", "Digest", "FileSafety"]),
        // CSV/TSV, JSON, HTML and Anki mapping onto decks; batch conversion.
        .target(name: "Interchange", dependencies: ["DeckDocument", "Anki", "Archive", "Digest", "FileSafety"]),

        // MARK: Command line

        // A hand-written argument parser in swift-argument-parser's shape, with help and man pages.
        .target(name: "ArgumentParsing"),
        // The `deck` subcommands, testable in-process.
        // Studying a deck: queues, rendering and answers on a version 2 store, through Scheduling.
        .target(name: "Study", dependencies: ["DeckDocument", "Persistence", "Scheduling", "CardTemplates"]),
        .target(name: "DeckCommands", dependencies: ["ArgumentParsing", "DeckDocument", "DeckFilter", "Interchange", "Archive", "FileSafety", "Scheduling", "Study"]),
        // The `deck` executable: hands over to DeckCommands.
        .executableTarget(name: "deck", dependencies: ["DeckCommands"]),
        // The benchmark suite (release builds, run by `make bench`; not part of the tests).
        .executableTarget(name: "deck-bench", dependencies: ["Persistence", "PersistenceMacros", "SQLite", "CSQLite", "DeckDocument", "Interchange", "DeckCommands", "Scheduling", "Study"]),

        // MARK: Tests

        // What every test target shares: a temporary tree, child processes with both pipes
        // drained, where the built `deck` and the fixtures are.
        .target(name: "TestSupport"),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "TestSupport"]),
        .testTarget(name: "DigestTests", dependencies: ["Digest"]),
        .testTarget(name: "ArchiveTests", dependencies: ["Archive", "FileSafety", "TestSupport"]),
        // What the test targets of Persistence, its macros and the seeds share (a temporary folder, both store kinds).
        .target(name: "PersistenceTestSupport", dependencies: ["Persistence", "TestSupport"]),
        .testTarget(name: "PersistenceTests", dependencies: ["Persistence", "SQLite", "Digest", "PersistenceTestSupport"]),
        // Models declared through the macros, on in-memory and file stores.
        .testTarget(name: "PersistenceMacrosTests", dependencies: ["PersistenceMacros", "Persistence", "PersistenceTestSupport"]),
        // The macros' expansions (snapshots) and diagnostics, through swift-syntax's expansion.
        .testTarget(name: "PersistenceMacrosPluginTests", dependencies: ["PersistenceMacrosPlugin"], exclude: ["Snapshots"],
                    swiftSettings: hostModuleSettings, linkerSettings: hostModuleLinking),
        // The model code of the seed documents, verbatim, through `import SwiftData`.
        .testTarget(name: "SwiftDataSeedTests", dependencies: ["SwiftData", "PersistenceTestSupport"]),
        .testTarget(name: "DeckFilterTests", dependencies: ["DeckFilter"]),
        .testTarget(name: "CardTemplatesTests", dependencies: ["CardTemplates"], exclude: ["anki_render.py"]),
        // The scheduler against the `fsrs` package and current Anki (python3 peers).
        .testTarget(name: "SchedulingTests", dependencies: ["Scheduling"], exclude: ["Peers"]),
        .testTarget(name: "DeckDocumentTests", dependencies: ["DeckDocument", "Persistence", "SQLite", "CSQLite", "Digest", "TestSupport"]),
        .testTarget(name: "AnkiTests", dependencies: ["Anki", "SQLite", "Archive", "Digest", "TestSupport"]),
        .testTarget(name: "InterchangeTests", dependencies: ["Interchange", "DeckDocument", "Persistence", "Digest", "Scheduling", "Study", "TestSupport"], exclude: ["Peers", "anki_html.py"]),
        .testTarget(name: "ArgumentParsingTests", dependencies: ["ArgumentParsing"], exclude: ["Snapshots"]),
        .testTarget(name: "StudyTests", dependencies: ["Study", "DeckDocument", "Persistence", "Scheduling"]),
        .testTarget(name: "DeckCommandsTests", dependencies: ["DeckCommands", "DeckDocument", "ArgumentParsing", "Scheduling", "TestSupport"]),
        // Crash injection, concurrency, malformed input and resource faults against the built `deck`.
        .testTarget(name: "ReliabilityTests", dependencies: ["DeckDocument", "Persistence", "SQLite", "FileSafety", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// MARK: Sanitizer builds (Fuzz/run.sh)

/// `SAMPLEDECK_SANITIZE=fuzzer` (or `fuzzer,address`) compiles the library and executable
/// targets with `-sanitize=…`, but not the macro plugin: `-Xswiftc` would give the flag to the
/// plugin executable too, which then can't be linked (libFuzzer brings its own `main`).
if let sanitizers = ProcessInfo.processInfo.environment["SAMPLEDECK_SANITIZE"], !sanitizers.isEmpty {
    for target in package.targets where [.regular, .executable].contains(target.type) {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=\(sanitizers)"])]
    }
}
