/// The chain of commands from the root to the one a command line selects (`deck export`).
struct CommandPath {
    let root: any ParsableCommand.Type
    private(set) var subcommands: [any ParsableCommand.Type] = []

    init(root: any ParsableCommand.Type) {
        self.root = root
    }

    var commands: [any ParsableCommand.Type] { [root] + subcommands }
    var leaf: any ParsableCommand.Type { subcommands.last ?? root }
    var isRoot: Bool { subcommands.isEmpty }

    /// The command names, root first: `["deck", "export"]`.
    var names: [String] { commands.map { $0.commandName } }

    /// How the user types the command: `deck export`.
    var displayName: String { names.joined(separator: " ") }

    /// The path one level down.
    func appending(_ subcommand: any ParsableCommand.Type) -> CommandPath {
        var path = self
        path.subcommands.append(subcommand)
        return path
    }

    /// The path to `target` in the tree below `root`, searching depth first.
    static func find(_ target: any ParsableCommand.Type, from root: any ParsableCommand.Type) -> CommandPath? {
        func search(_ path: CommandPath) -> CommandPath? {
            if ObjectIdentifier(path.leaf) == ObjectIdentifier(target) { return path }
            for subcommand in path.leaf.configuration.subcommands {
                if let found = search(path.appending(subcommand)) { return found }
            }
            return nil
        }
        return search(CommandPath(root: root))
    }

    /// Every path in the tree below `root` (root included), in declaration order.
    static func all(from root: any ParsableCommand.Type) -> [CommandPath] {
        func collect(_ path: CommandPath) -> [CommandPath] {
            [path] + path.leaf.configuration.subcommands.flatMap { collect(path.appending($0)) }
        }
        return collect(CommandPath(root: root))
    }
}

extension ParsableCommand {
    /// The name typed on the command line: the configured one, or the type's name in kebab case.
    static var commandName: String {
        configuration.commandName ?? String(describing: Self.self).kebabCased
    }
}

