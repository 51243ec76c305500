#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ParsableCommand {
    /// Runs the tool with the process's arguments and terminal, then exits the process
    /// with the command's status. Call it from the executable's `main`.
    public static func main() async {
        // A reader that goes away (`tool … | head -1`) is a write error (EPIPE) the command
        // can stop on quietly, not a signal that kills it mid-write.
        signal(SIGPIPE, SIG_IGN)
        let status = await main(nil, terminal: .standard)
        exit(status.rawValue)
    }

    /// Parses `arguments`, validates and runs the selected command, and returns its exit
    /// status; never exits the process, so tests can call it in-process.
    ///
    /// `--help`, `-h` and `help <subcommand>` print help to standard output (status 0);
    /// `--version` prints the root's version. A usage mistake prints
    /// `tool: error: <message>`, the usage line and `See 'tool sub --help'.` to standard
    /// error (status 64). A ``CommandError`` prints `tool: error: <path>: <reason>` and exits
    /// with its code; a thrown ``ExitCode`` exits quietly; any other error prints its
    /// description and exits 1. Control characters in every error message are escaped
    /// (``Swift/StringProtocol/escapingControlCharacters()``), so an error is one line. When the
    /// command line asks for JSON (`--json`, or `--format json` where `--format` names the output), a command's failure is instead one
    /// JSON object on standard error: `{"error": {"message": …, "status": 66, "path": …}}`. Standard output is flushed before returning; a failure to
    /// write it turns success into status 74 (a command that already failed keeps its status
    /// and its one error line).
    ///
    /// - Parameters:
    ///   - arguments: the arguments without the program name; `nil` reads `CommandLine.arguments`.
    ///   - terminal: the streams and environment the command sees as `Terminal.current`.
    public static func main(_ arguments: [String]?, terminal: Terminal) async -> ExitCode {
        let arguments = arguments ?? Array(CommandLine.arguments.dropFirst())
        return await Terminal.$current.withValue(terminal) {
            var (status, formatOptionNamesOutput) = await execute(arguments, terminal: terminal)
            do throws(StreamError) {
                try terminal.stdout.flush()
            } catch {
                // A command that failed has printed its one error line already (often this
                // same failure, met by its own write): a second line would only repeat it.
                // A reader that closed the pipe early wanted no more: no error.
                if status.isSuccess, error.code != EPIPE {
                    terminal.stderr.write(asksForJSON(arguments, formatOptionNamesOutput: formatOptionNamesOutput)
                        ? jsonError(error, diagnosis: ("\(commandName): error: \(error.message)", true, .ioError), root: commandName) + "\n"
                        : "\(commandName): error: \(error.message.escapingControlCharacters())\n")
                    status = .ioError
                }
            }
            return status
        }
    }

    private static func execute(_ arguments: [String], terminal: Terminal) async -> (ExitCode, formatOptionNamesOutput: Bool) {
        var path = CommandPath(root: self)
        var running: (any ParsableCommand.Type)?
        do {
            switch try CommandParser(root: self).parse(arguments) {
            case .help(let helpPath):
                terminal.stdout.write(HelpGenerator(path: helpPath, width: terminal.width).render())
                return (.success, true)
            case .version(let version):
                terminal.stdout.write(version + "\n")
                return (.success, true)
            case .run(var command, let commandPath):
                path = commandPath
                running = type(of: command)
                try await command.run()
                return (.success, type(of: command).formatOptionNamesOutput)
            }
        } catch {
            let diagnosis = diagnose(error, path: path, width: terminal.width)
            // A command that runs with --json reports its failure as JSON; a command line that
            // does not parse is told so in text, with its usage.
            if let running, diagnosis.isError, !diagnosis.text.isEmpty,
               asksForJSON(arguments, formatOptionNamesOutput: running.formatOptionNamesOutput) {
                terminal.stderr.write(jsonError(error, diagnosis: diagnosis, root: path.root.commandName) + "\n")
            } else if !diagnosis.text.isEmpty {
                let stream = diagnosis.isError ? terminal.stderr : terminal.stdout
                stream.write(diagnosis.text + "\n")
            }
            return (diagnosis.exitCode, running?.formatOptionNamesOutput ?? true)
        }
    }

    /// Whether the command line asks for JSON (`--json`; `--format json` or `--format=json`
    /// when the command's `--format` names its output, see
    /// ``ParsableCommand/formatOptionNamesOutput``): then an error is one JSON object on
    /// standard error instead of a line of text.
    static func asksForJSON(_ arguments: [String], formatOptionNamesOutput: Bool = true) -> Bool {
        let options = arguments.prefix { $0 != "--" }
        if options.contains("--json") { return true }
        guard formatOptionNamesOutput else { return false }
        if options.contains("--format=json") { return true }
        return zip(options, options.dropFirst()).contains { $0 == "--format" && $1 == "json" }
    }

    /// `{"error": {"message": …, "status": 66, "path": …}}`: the message as the text line says
    /// it (without `tool: error: `), the exit status, and the file when the error names one.
    private static func jsonError(_ error: any Error, diagnosis: (text: String, isError: Bool, exitCode: ExitCode), root: String) -> String {
        var message = String(diagnosis.text.prefix { $0 != "\n" })
        if message.hasPrefix("\(root): error: ") { message.removeFirst("\(root): error: ".count) }
        var fields = ["\"message\": " + jsonQuoted(message), "\"status\": \(diagnosis.exitCode.rawValue)"]
        if let path = (error as? any CommandError)?.path { fields.append("\"path\": " + jsonQuoted(path)) }
        return "{\"error\": {" + fields.joined(separator: ", ") + "}}"
    }

    private static func jsonQuoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case let s where s.value < 0x20 || s.value == 0x7F || (0x80...0x9F).contains(s.value) || s == "\u{2028}" || s == "\u{2029}":
                result += "\\u" + String(repeating: "0", count: 4 - String(s.value, radix: 16).count) + String(s.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    // MARK: - Parsing without running

    /// Parses the arguments of this command alone (subcommands are not looked for) and
    /// validates them.
    ///
    /// - Throws: a parse error (see ``fullMessage(for:columns:)`` and ``exitCode(for:)``),
    ///   ``CleanExit`` for `--help`, or what `validate()` throws.
    public static func parse(_ arguments: [String] = []) throws -> Self {
        var parser = CommandParser(root: self)
        parser.descendsIntoSubcommands = false
        switch try parser.parse(arguments) {
        case .help:
            throw CleanExit.helpRequest(self)
        case .version(let version):
            throw CleanExit.message(version)
        case .run(let command, let path):
            guard let command = command as? Self else {
                throw ParserError(reason: .invalidDefinition("parsed an unexpected command type"), path: path)
            }
            return command
        }
    }

    /// Parses a full command line from this root command down to the subcommand it names,
    /// and validates it; the caller runs it.
    ///
    /// - Throws: a parse error (see ``fullMessage(for:columns:)`` and ``exitCode(for:)``),
    ///   ``CleanExit`` for `--help`, `help` and `--version`, or what `validate()` throws.
    public static func parseAsRoot(_ arguments: [String]) throws -> any ParsableCommand {
        switch try CommandParser(root: self).parse(arguments) {
        case .help(let path):
            throw CleanExit.helpRequest(path.leaf)
        case .version(let version):
            throw CleanExit.message(version)
        case .run(let command, _):
            return command
        }
    }

    // MARK: - Help and errors

    /// The help text of this command, or of one of its subcommands (at any depth), wrapped
    /// to `columns` (the terminal's width by default).
    public static func helpMessage(for subcommand: (any ParsableCommand.Type)? = nil, columns: Int? = nil) -> String {
        let path = subcommand.map { CommandPath.find($0, from: self) ?? CommandPath(root: $0) } ?? CommandPath(root: self)
        return HelpGenerator(path: path, width: columns ?? Terminal.current.width).render()
    }

    /// The usage line of this command or of one of its subcommands, without a prefix.
    public static func usageString(for subcommand: (any ParsableCommand.Type)? = nil, columns: Int? = nil) -> String {
        let path = subcommand.map { CommandPath.find($0, from: self) ?? CommandPath(root: $0) } ?? CommandPath(root: self)
        return HelpGenerator(path: path, width: columns ?? Terminal.current.width).usage(prefix: "")
    }

    /// What the tool prints for `error` (without the final newline): the error line with
    /// usage for parse and validation errors, help for a help request, nothing for an
    /// ``ExitCode``.
    public static func fullMessage(for error: any Error, columns: Int? = nil) -> String {
        diagnose(error, path: CommandPath(root: self), width: columns ?? Terminal.current.width).text
    }

    /// The exit status the tool ends with after `error`.
    public static func exitCode(for error: any Error) -> ExitCode {
        diagnose(error, path: CommandPath(root: self), width: 80).exitCode
    }

    /// What to print for an error, where, and the status to exit with. `path` is the command
    /// that was running, for errors that do not carry their own.
    private static func diagnose(
        _ error: any Error, path: CommandPath, width: Int
    ) -> (text: String, isError: Bool, exitCode: ExitCode) {
        let errorPrefix = "\(path.root.commandName): error: "
        switch error {
        case let error as ParserError:
            if case .invalidDefinition = error.reason {
                return (errorPrefix + error.reason.message.escapingControlCharacters(), true, error.reason.exitCode)
            }
            return (usageError(error.reason.message, path: error.path, width: width), true, error.reason.exitCode)
        case let error as ValidationError:
            return (usageError(error.message, path: path, width: width), true, .usage)
        case CleanExit.helpRequest(let command):
            let helpPath = CommandPath.find(command, from: path.root) ?? CommandPath(root: command)
            return (HelpGenerator(path: helpPath, width: width).render().trimmingSuffixNewlines, false, .success)
        case CleanExit.message(let message):
            return (message, false, .success)
        case let code as ExitCode:
            return ("", !code.isSuccess, code)
        case let error as any CommandError:
            return (errorPrefix + error.message.escapingControlCharacters(), true, error.exitCode)
        default:
            return (errorPrefix + String(describing: error).escapingControlCharacters(), true, .failure)
        }
    }

    /// `tool: error: …`, the usage line, and where to find help.
    private static func usageError(_ message: String, path: CommandPath, width: Int) -> String {
        let usage = HelpGenerator(path: path, width: width).usage(prefix: "Usage: ")
        return "\(path.root.commandName): error: \(message.escapingControlCharacters())\n\(usage)\nSee '\(path.displayName) --help'."
    }
}

extension String {
    fileprivate var trimmingSuffixNewlines: String {
        String(reversed().drop { $0 == "\n" }.reversed())
    }
}
