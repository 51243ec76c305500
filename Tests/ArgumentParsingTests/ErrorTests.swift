import Testing
@testable import ArgumentParsing

@Suite struct UsageErrorTests {
    /// A command line, the error line it must print, and the command whose usage follows.
    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var message: String
        var command: String

        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(arguments: ["exprot"], message: "unknown subcommand 'exprot'; did you mean 'export'?", command: "deck"),
        Case(arguments: ["hlep"], message: "unknown subcommand 'hlep'; did you mean 'help'?", command: "deck"),
        Case(arguments: ["frobnicate"], message: "unknown subcommand 'frobnicate'", command: "deck"),
        Case(arguments: ["help", "tags", "renam"], message: "unknown subcommand 'renam'; did you mean 'rename'?",
             command: "deck tags"),
        Case(arguments: ["tags", "rename", "d", "a"], message: "missing expected argument '<new>'",
             command: "deck tags rename"),
        Case(arguments: ["help", "exprot"], message: "unknown subcommand 'exprot'; did you mean 'export'?", command: "deck"),
        Case(arguments: ["export", "d", "-o", "x", "--formt", "csv"],
             message: "unknown option '--formt'; did you mean '--format'?", command: "deck export"),
        Case(arguments: ["export", "d", "-o", "x", "--no-progess"],
             message: "unknown option '--no-progess'; did you mean '--no-progress'?", command: "deck export"),
        Case(arguments: ["list", "d", "-format", "csv"],
             message: "unknown option '-format'; did you mean '--format'?", command: "deck list"),
        Case(arguments: ["list", "d", "-formt", "csv"],
             message: "unknown option '-formt'; did you mean '--format'?", command: "deck list"),
        Case(arguments: ["export", "d", "-o", "x", "--zzz"], message: "unknown option '--zzz'", command: "deck export"),
        Case(arguments: ["export", "d", "-o", "x", "-z"], message: "unknown option '-z'", command: "deck export"),
        Case(arguments: ["export", "d", "-o", "x", "-qz"], message: "unknown option '-z'", command: "deck export"),
        Case(arguments: ["--bogus"], message: "unknown option '--bogus'", command: "deck"),
        Case(arguments: ["export", "d", "-o"], message: "missing value for '-o <file>'", command: "deck export"),
        Case(arguments: ["export", "d", "--output"], message: "missing value for '--output <file>'", command: "deck export"),
        Case(arguments: ["create", "d", "--title", "--json"],
             message: "missing value for '--title <text>' (for a value that starts with '-', write '--title=--json')",
             command: "deck create"),
        Case(arguments: ["export"], message: "missing expected argument '<deck>'", command: "deck export"),
        Case(arguments: ["convert", "--to", "csv"], message: "missing expected argument '<input>'", command: "deck convert"),
        Case(arguments: ["export", "d"], message: "missing expected option '--output <file>'", command: "deck export"),
        Case(arguments: ["convert", "a"], message: "missing expected option '--to <to>'", command: "deck convert"),
        Case(arguments: ["export", "d", "-o", "x", "--format", "xml"],
             message: "the value 'xml' is invalid for '--format <format>'; expected one of: csv, tsv, json, apkg, html",
             command: "deck export"),
        Case(arguments: ["list", "d", "--limit", "ten"], message: "the value 'ten' is invalid for '--limit <n>'",
             command: "deck list"),
        Case(arguments: ["list", "d", "--sort", "front:sideways"],
             message: "the value 'front:sideways' is invalid for '--sort <key>'", command: "deck list"),
        Case(arguments: ["shift", "soon"], message: "the value 'soon' is invalid for '<days>'", command: "deck shift"),
        Case(arguments: ["create", "a", "b"], message: "unexpected argument 'b'", command: "deck create"),
        Case(arguments: ["shift", "1", "d", "extra"], message: "unexpected argument 'extra'", command: "deck shift"),
        Case(arguments: ["export", "d", "-o", "x", "--json=yes"],
             message: "the flag '--json' does not take a value", command: "deck export"),
        Case(arguments: ["list", "d", "--limit", "-1"], message: "--limit must be at least 0", command: "deck list"),
        Case(arguments: ["export", "d", "-o", "x", "--json", "--quiet"],
             message: "--json and --quiet cannot be used together", command: "deck export"),
    ]

    @Test(arguments: cases)
    func printsErrorUsageAndHelpPointer(_ testCase: Case) async {
        let result = await run(testCase.arguments)
        #expect(result.status == .usage)
        #expect(result.status.rawValue == 64)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "deck: error: " + testCase.message)
        #expect(lines.count >= 4)
        #expect(lines.dropFirst().first?.hasPrefix("Usage: \(testCase.command)") == true)
        #expect(lines.suffix(2) == ["See '\(testCase.command) --help'.", ""])
    }

    @Test func usageLineOfTheFailingCommand() async {
        let result = await run(["export"])
        #expect(result.stderr == """
            deck: error: missing expected argument '<deck>'
            Usage: deck export <deck> --output <file> [--format <format>] [--json] [--quiet]
                   [--no-progress]
            See 'deck export --help'.

            """)
    }

    @Test func errorValuesAreReportedByTheRoot() throws {
        do {
            _ = try SampleDeck.parseAsRoot(["export", "d"])
            Issue.record("parsing should fail")
        } catch {
            #expect(SampleDeck.exitCode(for: error) == .usage)
            #expect(SampleDeck.fullMessage(for: error, columns: 200) == """
                deck: error: missing expected option '--output <file>'
                Usage: deck export <deck> --output <file> [--format <format>] [--json] [--quiet] [--no-progress]
                See 'deck export --help'.
                """)
        }
    }
}

@Suite struct DefinitionErrorTests {
    @Test func duplicateNamesAreReported() async {
        let (terminal, output, errors) = Terminal.capturing()
        let status = await DuplicateNames.main(["--json"], terminal: terminal)
        #expect(status == .failure)
        #expect(output.text.isEmpty)
        #expect(errors.text == "duplicate-names: error: invalid command definition: the name '--json' is used twice in 'duplicate-names'\n")
    }

    @Test func plainStoredPropertiesAreReported() {
        #expect {
            _ = try PlainProperty.parse([])
        } throws: { error in
            PlainProperty.fullMessage(for: error).contains("the property 'cache' of 'plain-property' is not an @Option")
        }
    }

    @Test func variadicArgumentMustBeLast() {
        #expect {
            _ = try VariadicNotLast.parse(["a", "b"])
        } throws: { error in
            VariadicNotLast.fullMessage(for: error).hasSuffix("the variadic argument '<files>' of 'variadic-not-last' must be the last one")
                && VariadicNotLast.exitCode(for: error) == .failure
        }
    }
}
