import Testing
@testable import ArgumentParsing

@Suite struct SubcommandTests {
    @Test func selectsTheNamedSubcommand() throws {
        #expect(try SampleDeck.parseAsRoot(["create", "d"]) is Create)
        #expect(try SampleDeck.parseAsRoot(["tags", "rename", "d", "a", "b"]) is TagsRename)
    }

    @Test func defaultSubcommandRunsWhenNoneIsNamed() throws {
        #expect(try SampleDeck.parseAsRoot(["tags"]) is TagsList)
        let list = try SampleDeck.parseAsRoot(["tags", "French.sampledeck"]) as? TagsList
        #expect(list?.deck == "French.sampledeck")
        #expect(try SampleDeck.parseAsRoot(["tags", "list", "x"]) is TagsList)
    }

    @Test func rootWithoutSubcommandShowsHelp() async {
        let result = await run([])
        #expect(result.status == .success)
        #expect(result.stdout.hasPrefix("OVERVIEW: Create, edit and convert flash-card decks."))
        #expect(result.stderr.isEmpty)
    }

    @Test func runsTheSelectedCommand() async {
        let result = await run(["tags", "list", "French.sampledeck"])
        #expect(result.status == .success)
        #expect(result.stdout == "tags of French.sampledeck\n")
    }

    @Test(arguments: [
        (["help"], "OVERVIEW: Create, edit and convert flash-card decks."),
        (["help", "export"], "OVERVIEW: Write a deck to another format."),
        (["help", "tags", "rename"], "OVERVIEW: Rename a tag."),
        (["export", "--help"], "OVERVIEW: Write a deck to another format."),
        (["export", "-h"], "OVERVIEW: Write a deck to another format."),
        (["export", "-qh"], "OVERVIEW: Write a deck to another format."),
        (["export", "d", "--bogus", "--help"], "OVERVIEW: Write a deck to another format."),
        (["tags", "rename", "-h"], "OVERVIEW: Rename a tag."),
        (["tags", "--help"], "OVERVIEW: Manage the tags of a deck."),
        (["--help"], "OVERVIEW: Create, edit and convert flash-card decks."),
    ])
    func helpEverywhere(arguments: [String], firstLine: String) async {
        let result = await run(arguments)
        #expect(result.status == .success)
        #expect(result.stdout.hasPrefix(firstLine + "\n"))
        #expect(result.stderr.isEmpty)
    }

    @Test func helpSubcommandMatchesHelpFlag() async {
        let viaSubcommand = await run(["help", "convert"])
        let viaFlag = await run(["convert", "--help"])
        #expect(viaSubcommand.stdout == viaFlag.stdout)
        #expect(viaSubcommand.stdout.contains("USAGE: deck convert"))
    }

    @Test func versionOnTheRootOnly() async {
        let root = await run(["--version"])
        #expect(root.status == .success)
        #expect(root.stdout == "1.2.3\n")
        let sub = await run(["create", "d", "--version"])
        #expect(sub.status == .usage)
        #expect(sub.stderr.hasPrefix("deck: error: unknown option '--version'\n"))
    }
}
