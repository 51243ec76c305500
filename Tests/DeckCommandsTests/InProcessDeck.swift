import ArgumentParsing
import DeckCommands
import Foundation

/// Runs `deck` in this process through `DeckTool.main(_:terminal:)` with captured streams:
/// much faster than spawning the binary, for tests where the process itself is not what is tested.
/// Paths must be absolute (the tests share one working directory).
enum InProcessDeck {
    /// `stderrIsTerminal`: standard error claims to be a terminal (progress bars draw there).
    static func run(_ arguments: [String], stdin: String = "", stdinIsTerminal: Bool = false, stderrIsTerminal: Bool = false,
                    columns: Int = 80) async -> DeckProcess.Result {
        let (terminal, out, err) = Terminal.capturing(input: Array(stdin.utf8), width: columns, environment: ["COLUMNS": String(columns)])
        var withInput = terminal
        withInput.stdin = .text(stdin, isTerminal: stdinIsTerminal)
        if stderrIsTerminal { withInput.stderr = .buffer(err, isTerminal: true) }
        let status = await DeckTool.main(arguments, terminal: withInput)
        return DeckProcess.Result(status: status.rawValue, stdout: out.text, stderr: err.text)
    }
}

extension Playground {
    /// The absolute path of a name inside the playground.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Runs `deck` in-process; arguments naming playground files must use ``path(_:)``.
    func inProcess(_ arguments: String..., stdin: String = "", stdinIsTerminal: Bool = false, stderrIsTerminal: Bool = false,
                   columns: Int = 80) async -> DeckProcess.Result {
        await InProcessDeck.run(arguments, stdin: stdin, stdinIsTerminal: stdinIsTerminal, stderrIsTerminal: stderrIsTerminal, columns: columns)
    }
}
