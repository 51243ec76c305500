// The parts of a configuration that only manual pages show.

extension CommandConfiguration {
    /// An example invocation: what it does, and the command line.
    public struct Example: Sendable, Hashable {
        /// What the example does, as a sentence.
        public var summary: String
        /// The command line, as typed (without a prompt).
        public var command: String

        public init(_ summary: String, command: String) {
            self.summary = summary
            self.command = command
        }
    }

    /// The meaning of one exit status.
    public struct ExitStatus: Sendable, Hashable {
        public var code: ExitCode
        public var meaning: String

        public init(_ code: ExitCode, _ meaning: String) {
            self.code = code
            self.meaning = meaning
        }
    }

    /// An environment variable the command reads.
    public struct EnvironmentVariable: Sendable, Hashable {
        public var name: String
        public var description: String

        public init(_ name: String, _ description: String) {
            self.name = name
            self.description = description
        }
    }

    /// A file the command reads or writes.
    public struct File: Sendable, Hashable {
        public var path: String
        public var description: String

        public init(_ path: String, _ description: String) {
            self.path = path
            self.description = description
        }
    }

    /// A related manual page, such as `sampledeck(5)`.
    public struct Reference: Sendable, Hashable {
        public var name: String
        public var section: Int

        public init(_ name: String, section: Int) {
            self.name = name
            self.section = section
        }
    }

    /// A manual page section of its own, such as SECURITY.
    public struct Section: Sendable, Hashable {
        /// The heading, in capitals by convention.
        public var title: String
        /// The text; paragraphs are separated by blank lines.
        public var body: String

        public init(_ title: String, _ body: String) {
            self.title = title
            self.body = body
        }
    }
}
