// The parts of a configuration that only manual pages show.

extension CommandConfiguration {
    /// An example invocation for the man page's EXAMPLES: what it does, and the command line.
    public struct Example: Sendable, Hashable {
        /// What the example does, as a sentence.
        public var summary: String
        /// The command line, as typed (without a prompt).
        public var command: String

        /// Creates an example: `.init("Export a deck as CSV.", command: "deck export a.sampledeck -o a.csv")`.
        public init(_ summary: String, command: String) {
            self.summary = summary
            self.command = command
        }
    }

    /// The meaning of one exit status, for the man page's EXIT STATUS.
    public struct ExitStatus: Sendable, Hashable {
        /// The status.
        public var code: ExitCode
        /// When the command exits with it, as a sentence.
        public var meaning: String

        /// Creates an entry: `.init(.noInput, "An input file does not exist.")`.
        public init(_ code: ExitCode, _ meaning: String) {
            self.code = code
            self.meaning = meaning
        }
    }

    /// An environment variable the command reads, for the man page's ENVIRONMENT.
    public struct EnvironmentVariable: Sendable, Hashable {
        /// The variable's name (`NO_COLOR`).
        public var name: String
        /// What it changes, as a sentence.
        public var description: String

        /// Creates an entry: `.init("NO_COLOR", "When set and not empty, no colour is used.")`.
        public init(_ name: String, _ description: String) {
            self.name = name
            self.description = description
        }
    }

    /// A file the command reads or writes, for the man page's FILES.
    public struct File: Sendable, Hashable {
        /// The file's path, or a pattern (`*.sampledeck/manifest.json`).
        public var path: String
        /// What the file is, as a sentence.
        public var description: String

        /// Creates an entry: `.init("~/.config/deck/config.json", "Default settings.")`.
        public init(_ path: String, _ description: String) {
            self.path = path
            self.description = description
        }
    }

    /// A related manual page, such as `sampledeck(5)`, for the man page's SEE ALSO.
    public struct Reference: Sendable, Hashable {
        /// The page's name (`sampledeck`).
        public var name: String
        /// The manual section (`5`).
        public var section: Int

        /// Creates a reference: `.init("bsdtar", section: 1)`.
        public init(_ name: String, section: Int) {
            self.name = name
            self.section = section
        }
    }

    /// A manual page section of its own, such as SECURITY, placed after EXAMPLES.
    public struct Section: Sendable, Hashable {
        /// The heading; it is printed in capitals.
        public var title: String
        /// The text; paragraphs are separated by blank lines, indented lines are kept as they are.
        public var body: String

        /// Creates a section: `.init("Security", "Archives with absolute paths are refused.")`.
        public init(_ title: String, _ body: String) {
            self.title = title
            self.body = body
        }
    }
}
