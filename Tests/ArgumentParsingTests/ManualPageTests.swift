import Testing
@testable import ArgumentParsing

@Suite struct ManualPageTests {
    static let date = ManualDate(year: 2026, month: 4, day: 1)
    static let pages = ManualPage.pages(for: SampleDeck.self, date: date)

    @Test func onePagePerCommandNamedGitStyle() {
        #expect(Self.pages.map(\.fileName) == [
            "deck.1", "deck-create.1", "deck-add.1", "deck-export.1", "deck-list.1", "deck-convert.1",
            "deck-shift.1", "deck-tags.1", "deck-tags-list.1", "deck-tags-rename.1",
        ])
    }

    @Test(.tags(.spawnsProcess))
    func mandocLintReportsNothing() throws {
        let result = try runMandoc(["-T", "lint", "-W", "warning"], on: Self.pages.map { ($0.fileName, $0.contents) })
        #expect(result.output == "")
        #expect(result.status == 0)
    }

    @Test(.tags(.spawnsProcess))
    func awkwardTextStaysText() throws {
        let pages = ManualPage.pages(for: AwkwardText.self, date: Self.date)
        let lint = try runMandoc(["-T", "lint", "-W", "warning"], on: pages.map { ($0.fileName, $0.contents) })
        #expect(lint.output == "")
        #expect(lint.status == 0)

        let rendered = try runMandoc(["-T", "ascii"], on: pages.map { ($0.fileName, $0.contents) })
        let text = rendered.output.replacing(#/.\x08/#, with: "")  // drop overstrike bold and underline
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains(".dotfile at the start of a line"))
        #expect(text.contains(#"C:\path with a backslash"#))
        #expect(text.contains("Ar No Fl are words here"))
        #expect(text.contains(#"say "hello""#))
    }

    @Test func snapshotOfASubcommandPage() throws {
        let page = try #require(Self.pages.first { $0.name == "deck-export" })
        expectSnapshot(page.contents, named: "deck-export.1")
    }

    @Test func sectionsInConventionalOrder() throws {
        let page = try #require(Self.pages.first { $0.name == "deck-export" })
        let sections = page.contents.split(separator: "\n").filter { $0.hasPrefix(".Sh ") }.map { $0.dropFirst(4) }
        #expect(sections == [
            "NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES",
            "SECURITY", "SEE ALSO",
        ])
        #expect(page.contents.hasPrefix(#".\" Generated"#))
        #expect(page.contents.contains("\n.Dd April 1, 2026\n.Dt DECK-EXPORT 1\n.Os\n"))
    }

    @Test func optionsAreSorted() throws {
        let page = try #require(Self.pages.first { $0.name == "deck-export" })
        let items = page.contents.split(separator: "\n").filter { $0.hasPrefix(".It Fl ") }
        #expect(items == [
            ".It Fl f Ar format , Fl -format Ar format",
            ".It Fl h , Fl -help",
            ".It Fl -json",
            ".It Fl o Ar file , Fl -output Ar file",
            ".It Fl -progress , Fl -no-progress",
            ".It Fl q , Fl -quiet",
        ])
    }

    @Test func rootPageHasOneSynopsisLinePerCommand() throws {
        let root = try #require(Self.pages.first)
        let synopsis = root.contents.split(separator: "\n")
            .drop { $0 != ".Sh SYNOPSIS" }.prefix { $0 != ".Sh DESCRIPTION" }
            .filter { $0.hasPrefix(".Nm ") }
        #expect(synopsis == [
            ".Nm deck Cm create", ".Nm deck Cm add", ".Nm deck Cm export", ".Nm deck Cm list",
            ".Nm deck Cm convert", ".Nm deck Cm shift", ".Nm deck Cm tags Cm list", ".Nm deck Cm tags Cm rename",
            ".Nm deck Fl -version",
        ])
        #expect(root.contents.contains(".Xr deck-export 1\nfor details."))
    }

    @Test func seeAlsoLinksParentsChildrenAndReferences() throws {
        let tags = try #require(Self.pages.first { $0.name == "deck-tags" })
        #expect(tags.contents.hasSuffix(".Sh SEE ALSO\n.Xr deck 1 ,\n.Xr deck-tags-list 1 ,\n.Xr deck-tags-rename 1\n"))
        let root = try #require(Self.pages.first)
        #expect(root.contents.hasSuffix(".Xr deck-tags 1 ,\n.Xr sampledeck 5\n"))
        #expect(root.contents.contains(".Sh SEE ALSO\n.Xr bsdtar 1 ,\n.Xr deck-add 1 ,"))
    }

    @Test func exitStatusAndEnvironmentAreInherited() throws {
        let rename = try #require(Self.pages.first { $0.name == "deck-tags-rename" })
        #expect(rename.contents.contains(".Sh EXIT STATUS\nThe deck tags rename command exits with one of these statuses:\n"))
        #expect(rename.contents.contains(".It 66\nAn input file is missing.\n"))
        #expect(rename.contents.contains(".It Ev NO_COLOR\n"))
    }

    @Test func withoutExitStatusNotesTheStandardSentenceIsUsed() throws {
        let page = try #require(ManualPage.page(for: AwkwardText.self, root: AwkwardText.self, date: Self.date))
        #expect(page.contents.contains(".Sh EXIT STATUS\n.Ex -std\n"))
        #expect(ManualPage.page(for: Export.self, root: AwkwardText.self, date: Self.date) == nil)
    }

    /// Help and the man page come from the same declarations: every visible option and
    /// argument shows the same text in both.
    @Test(arguments: CommandPath.all(from: SampleDeck.self).map(\.displayName))
    func helpAndManualPageAgree(_ command: String) throws {
        let path = try #require(CommandPath.all(from: SampleDeck.self).first { $0.displayName == command })
        let help = SampleDeck.helpMessage(for: path.leaf, columns: 1000)
        let page = try #require(ManualPage.page(for: path.leaf, root: SampleDeck.self, date: Self.date))
        let manual = page.contents.replacing("\\-", with: "-")
        for definition in ArgumentSet.discover(path.leaf, under: []) where definition.isVisible {
            #expect(help.contains(definition.summary), "help of \(command) lacks \(definition.key)")
            #expect(manual.contains("\n" + definition.summary + "\n"), "man page of \(command) lacks \(definition.key)")
            for name in definition.enablingNames + definition.invertedNames {
                #expect(help.contains(name.description))
                let macro = name.isShort ? "Fl \(name.bareName)" : "Fl -\(name.bareName)"
                #expect(manual.contains(macro), "man page of \(command) lacks \(name)")
            }
        }
        let abstract = path.leaf.configuration.abstract
        #expect(help.contains("OVERVIEW: " + abstract))
        #expect(manual.contains(".Nd " + ManualPageRenderer.nameDescription(abstract)))
    }

    @Test func dateFormat() {
        #expect(ManualDate(year: 2026, month: 12, day: 31).mdocText == "December 31, 2026")
        let today = ManualDate.today()
        #expect((1...12).contains(today.month) && (1...31).contains(today.day) && today.year >= 2024)
    }
}

/// Help text that would break a naive mdoc writer.
private struct AwkwardText: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "awkward",
        abstract: "Test escaping.",
        discussion: """
            .dotfile at the start of a line.
            'quoted at the start too. C:\\path with a backslash.

            Ar No Fl are words here, and you may say "hello".
            """)

    @Option(help: ArgumentHelp(".starts with a dot \\ and a backslash.", valueName: "No"))
    var value: String?

    @Argument(help: ArgumentHelp("'single quote first.", valueName: "Ar"))
    var item: String?
}
