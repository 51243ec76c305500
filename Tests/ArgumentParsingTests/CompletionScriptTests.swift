@testable import ArgumentParsing
import Testing

private struct Versioned: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "alpha", abstract: "The first tool.", version: "1.2")
    @Flag(help: "Be loud.") var loud = false
    func run() throws {}
}

private struct Unversioned: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "beta", abstract: "The second tool.")
    @Flag(help: "Be loud.") var loud = false
    func run() throws {}
}

/// The completions offer `--version` exactly when the root command has a version, as the
/// parser and the help do (an empty version disables `--version`).
@Suite struct CompletionScriptTests {
    @Test(arguments: CompletionShell.allCases)
    func versionIsOfferedOnlyWhenThereIsOne(shell: CompletionShell) {
        let versioned = CompletionScript.script(for: Versioned.self, shell: shell)
        let unversioned = CompletionScript.script(for: Unversioned.self, shell: shell)
        #expect(versioned.contains("loud") && unversioned.contains("loud"))
        #expect(versioned.contains("version"))
        #expect(!unversioned.contains("version"), "\(shell): \(unversioned)")
    }
}
