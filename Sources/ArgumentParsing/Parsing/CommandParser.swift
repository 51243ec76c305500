/// Turns a command line into a command ready to run: finds the subcommand, parses its
/// arguments, decodes it and validates it.
struct CommandParser {
    enum Outcome {
        /// A parsed and validated command, and the path that selected it.
        case run(any ParsableCommand, CommandPath)
        /// `--help`, `-h` or `help <subcommand>`: show the help of this command.
        case help(CommandPath)
        /// `--version` on the root.
        case version(String)
    }

    let root: any ParsableCommand.Type
    /// Whether subcommands are looked for (false when parsing one command on its own).
    var descendsIntoSubcommands = true

    /// Parses `arguments` (without the program name).
    ///
    /// - Throws: ``ParserError`` for a command line that does not fit the commands;
    ///   whatever an option group's or the command's `validate()` throws otherwise.
    func parse(_ arguments: [String]) throws -> Outcome {
        var path = CommandPath(root: root)
        var tokens = arguments[...]

        while descendsIntoSubcommands {
            let command = path.leaf
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty else { break }
            // The usual command line names a subcommand first: nothing of the parent's can come
            // before it, so the parent's arguments need not be discovered (reflection over a fresh
            // instance of it: a millisecond of a short command's start).
            if let first = tokens.first, !first.hasPrefix("-"), let subcommand = subcommands.first(where: { $0.commandName == first }) {
                path = path.appending(subcommand)
                tokens = tokens.dropFirst()
                continue
            }
            let set = try argumentSet(for: path)

            let firstPositional: (name: String, index: Int)?
            switch try scanToSubcommand(tokens, arguments: set, path: path) {
            case .help: return .help(path)
            case .version: return .version(root.configuration.version)
            case .positional(let name, let index): firstPositional = (name, index)
            case .end: firstPositional = nil
            }

            guard let (name, index) = firstPositional else {
                guard let defaultSubcommand = command.configuration.defaultSubcommand else { break }
                path = path.appending(defaultSubcommand)
                continue
            }
            if path.isRoot, name == "help", !subcommands.contains(where: { $0.commandName == "help" }) {
                return .help(try helpPath(for: tokens.dropFirst(index + 1)))
            }
            if let subcommand = subcommands.first(where: { $0.commandName == name }) {
                path = path.appending(subcommand)
                tokens = tokens.dropFirst(index + 1)
                continue
            }
            if !set.positionals.isEmpty { break }
            if let defaultSubcommand = command.configuration.defaultSubcommand {
                path = path.appending(defaultSubcommand)
                continue
            }
            let names = subcommands.map { $0.commandName } + (path.isRoot ? ["help"] : [])
            throw ParserError(
                reason: .unknownSubcommand(name, suggestion: Suggestions.closest(to: name, among: names)),
                path: path)
        }

        return try parseLeaf(Array(tokens), path: path)
    }

    private enum ParentScan {
        case help
        case version
        case positional(String, index: Int)
        case end
    }

    /// Reads a parent command's own options up to the first positional token (a
    /// subcommand's name, normally).
    private func scanToSubcommand(
        _ tokens: ArraySlice<String>, arguments: ArgumentSet, path: CommandPath
    ) throws(ParserError) -> ParentScan {
        var scanner = ArgumentScanner(arguments: arguments, tokens: Array(tokens), answersVersion: answersVersion(path))
        do {
            while let element = try scanner.next() {
                switch element {
                case .help: return .help
                case .version: return .version
                case .positional(let name, let index): return .positional(name, index: index)
                case .value, .flag: continue  // the parent's own options, before the subcommand name
                }
            }
            return .end
        } catch {
            throw ParserError(reason: error, path: path)
        }
    }

    // MARK: - The selected command

    private func parseLeaf(_ tokens: [String], path: CommandPath) throws -> Outcome {
        if tokens.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
            return .help(path)
        }
        let set = try argumentSet(for: path)
        let values: [InputKey: Any]
        do {
            switch try set.parse(tokens, answersVersion: answersVersion(path)) {
            case .values(let parsed): values = parsed
            case .help: return .help(path)
            case .version: return .version(root.configuration.version)
            }
        } catch {
            throw ParserError(reason: error, path: path)
        }

        let decoder = ArgumentDecoder(values: values, commandName: path.displayName)
        var command: any ParsableCommand
        do {
            command = try path.leaf.init(from: decoder)
            try command.validate()
        } catch let error as ValidationError {
            throw ParserError(reason: .validation(error.message), path: path)
        } catch let error as DecodingError {
            throw ParserError(reason: .invalidDefinition(Self.describe(error)), path: path)
        }
        return .run(command, path)
    }

    // MARK: - Helpers

    private func argumentSet(for path: CommandPath) throws(ParserError) -> ArgumentSet {
        do {
            return try ArgumentSet(path.leaf, commandName: path.displayName)
        } catch {
            throw ParserError(reason: error, path: path)
        }
    }

    private func answersVersion(_ path: CommandPath) -> Bool {
        path.isRoot && !root.configuration.version.isEmpty
    }

    /// The command `help a b` asks about.
    private func helpPath(for names: ArraySlice<String>) throws(ParserError) -> CommandPath {
        var path = CommandPath(root: root)
        for name in names {
            let subcommands = path.leaf.configuration.subcommands
            guard let subcommand = subcommands.first(where: { $0.commandName == name }) else {
                let suggestion = Suggestions.closest(to: name, among: subcommands.map { $0.commandName })
                throw ParserError(reason: .unknownSubcommand(name, suggestion: suggestion), path: path)
            }
            path = path.appending(subcommand)
        }
        return path
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context),
             .keyNotFound(_, let context), .dataCorrupted(let context):
            context.debugDescription
        @unknown default:
            "\(error)"
        }
    }
}
