import Testing
@testable import ArgumentParsing

@Suite struct HelpTests {
    @Test(arguments: [
        (["--help"], "help-deck.txt"),
        (["export", "--help"], "help-deck-export.txt"),
        (["convert", "--help"], "help-deck-convert.txt"),
        (["tags", "--help"], "help-deck-tags.txt"),
        (["help", "list"], "help-deck-list.txt"),
    ])
    func helpSnapshots(arguments: [String], snapshot: String) async {
        let result = await run(arguments, width: 80)
        #expect(result.status == .success)
        #expect(result.stderr.isEmpty)
        expectSnapshot(result.stdout, named: snapshot)
    }

    @Test func narrowTerminalWrapsEveryLine() async {
        let result = await run(["convert", "--help"], width: 50)
        for line in result.stdout.split(separator: "\n") {
            #expect(line.count <= 50, "too long: \(line)")
        }
        expectSnapshot(result.stdout, named: "help-deck-convert-50.txt")
    }

    @Test func sectionsInOrder() async {
        let help = await run(["export", "--help"]).stdout
        let headings = ["OVERVIEW:", "USAGE:", "ARGUMENTS:", "OPTIONS:"].map { help.range(of: $0)?.lowerBound }
        #expect(headings.allSatisfy { $0 != nil })
        #expect(headings.compactMap { $0 } == headings.compactMap { $0 }.sorted())
        #expect(!help.contains("SUBCOMMANDS:"))
    }

    @Test func rootListsSubcommandsAndHelp() async {
        let help = await run(["--help"]).stdout
        #expect(help.contains("SUBCOMMANDS:\n  create                  Create an empty deck.\n"))
        #expect(help.contains("  help                    Show subcommand help information.\n"))
        #expect(help.contains("  --version               Show the version.\n"))
        let tags = await run(["tags", "--help"]).stdout
        #expect(tags.contains("  list (default)          List the tags.\n"))
        #expect(!tags.contains("--version"))
    }

    @Test func allowedValuesAndDefaultsAreListed() async {
        let help = await run(["add", "--help"], width: 120).stdout
        #expect(help.contains("--kind <kind>           The kind of card. (values: basic, reversible, cloze; default: basic)"))
        #expect(help.contains("--tag <tag>             A tag; repeat for several.\n"))
    }

    @Test func hiddenOptionsAreAcceptedButNotShown() async throws {
        let help = await run(["list", "--help"]).stdout
        #expect(!help.contains("explain"))
        let list = try SampleDeck.parseAsRoot(["list", "d", "--explain"]) as? List
        #expect(list?.explain == true)
    }

    @Test func helpMessageMatchesWhatMainPrints() async {
        let printed = await run(["export", "--help"], width: 72).stdout
        #expect(SampleDeck.helpMessage(for: Export.self, columns: 72) == printed)
        #expect(SampleDeck.usageString(for: Export.self, columns: 200)
            == "deck export <deck> --output <file> [--format <format>] [--json] [--quiet] [--no-progress]")
    }

    @Test func customUsageReplacesTheGeneratedOne() {
        #expect(CustomUsage.helpMessage(columns: 80).contains("USAGE: custom-usage (<id> ... | --where <filter>)\n"))
    }
}

private struct CustomUsage: ParsableCommand {
    static let configuration = CommandConfiguration(usage: "custom-usage (<id> ... | --where <filter>)")
    @Argument(help: "Cards.") var id: [String] = []
    @Option(name: .customLong("where"), help: "A filter.") var filter: String?
}

@Suite struct TextWrappingTests {
    @Test func wrapsAtWordBoundaries() {
        #expect("one two three four".wrapped(to: 9) == ["one two", "three", "four"])
        #expect("averyveryverylongword x".wrapped(to: 5) == ["averyveryverylongword", "x"])
        #expect("".wrapped(to: 10) == [])
    }

    @Test func keepsIndentedBlocks() {
        let text = "First paragraph\ncontinues here.\n\n    keep   this\n    and this\n\nLast."
        #expect(TextBlock.blocks(of: text) == [
            .prose("First paragraph continues here."),
            .preformatted(["    keep   this", "    and this"]),
            .prose("Last."),
        ])
        #expect(text.formatted(width: 40, indent: 2) == """
              First paragraph continues here.

                  keep   this
                  and this

              Last.
            """)
    }

    @Test(arguments: [
        ("outDir", "out-dir"), ("cardID", "card-id"), ("URLString", "url-string"),
        ("json", "json"), ("noProgress", "no-progress"), ("snake_case", "snake-case"), ("jobs2", "jobs2"),
    ])
    func kebabCase(_ name: String, _ expected: String) {
        #expect(name.kebabCased == expected)
    }
}
