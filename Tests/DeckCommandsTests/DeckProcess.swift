import Foundation
import TestSupport

/// Runs the built `deck` binary and captures what it prints and its exit status.
enum DeckProcess {
    typealias Result = ProcessOutput

    /// The built `deck` executable (``PackageLayout/deck``).
    static var executable: URL { PackageLayout.deck }

    /// The package root, for fixtures.
    static var packageRoot: URL { PackageLayout.root }

    /// Runs `deck arguments…` in `directory`, with `COLUMNS` fixed so tables are reproducible.
    static func run(_ arguments: [String], in directory: URL, stdin: String? = nil, stdinData: Data? = nil, columns: Int = 80,
                    environment extra: [String: String] = [:]) throws -> Result {
        let input = (stdin.map { Data($0.utf8) } ?? Data()) + (stdinData ?? Data())
        return try ChildProcess.run(executable, arguments, in: directory, stdin: input,
                                    environment: extra.merging(["COLUMNS": String(columns)]) { given, _ in given })
    }
}

/// A temporary directory for a test that runs `deck` in it.
final class Playground: TemporaryTree {
    init() throws { try super.init(prefix: "deck-tests") }

    func run(_ arguments: String..., stdin: String? = nil, columns: Int = 80) throws -> DeckProcess.Result {
        try DeckProcess.run(arguments, in: url, stdin: stdin, columns: columns)
    }

    /// A deck named `name` holding the French verbs fixture.
    func frenchDeck(_ name: String = "French.sampledeck") throws {
        let fixture = PackageLayout.file("Fixtures/csv/french-verbs.csv").path
        let created = try run("import", name, fixture, "--create")
        precondition(created.status == 0, created.stderr)
    }
}
