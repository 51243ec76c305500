import Testing
@testable import ArgumentParsing

/// Parses a command line of the sample tool and returns the command it selects, as `T`.
private func parse<T: ParsableCommand>(_ arguments: [String], as _: T.Type = T.self) throws -> T {
    let command = try SampleDeck.parseAsRoot(arguments)
    guard let typed = command as? T else {
        Issue.record("parsed \(type(of: command)), expected \(T.self)")
        throw ExitCode.failure
    }
    return typed
}

@Suite struct OptionParsingTests {
    @Test(arguments: [
        ["export", "d", "--output", "out.csv"],
        ["export", "d", "--output=out.csv"],
        ["export", "d", "-o", "out.csv"],
        ["export", "d", "-oout.csv"],
        ["export", "--output", "out.csv", "d"],
    ])
    func optionSpellings(_ arguments: [String]) throws {
        let export = try parse(arguments, as: Export.self)
        #expect(export.deck == "d")
        #expect(export.output == "out.csv")
    }

    @Test func defaultsApplyWhenAbsent() throws {
        let export = try parse(["export", "d", "-o", "x"], as: Export.self)
        #expect(export.format == .csv)
        #expect(export.shared.json == false)
        #expect(export.shared.progress == true)
        let list = try parse(["list", "d"], as: List.self)
        #expect(list.limit == nil)
        #expect(list.offset == 0)
        #expect(list.sortKeys.isEmpty)
    }

    @Test func enumValues() throws {
        #expect(try parse(["export", "d", "-o", "x", "--format", "json"], as: Export.self).format == .json)
        #expect(try parse(["export", "d", "-o", "x", "-fhtml"], as: Export.self).format == .html)
        #expect(try parse(["add", "d", "--front", "a", "--back", "b", "--kind=cloze"], as: Add.self).kind == .cloze)
    }

    @Test func repeatedOptionsCollectInOrder() throws {
        let add = try parse(["add", "d", "--tag", "verbs", "--front", "f", "--tag=irregular", "--back", "b", "--tag", "x"],
                            as: Add.self)
        #expect(add.tags == ["verbs", "irregular", "x"])
    }

    /// Many repetitions go through the names table built once per parse: every value arrives,
    /// in order, whichever spelling, and the options around them still parse.
    @Test func thousandsOfRepeatedOptions() throws {
        let names = (0..<5_000).map { "tag\($0)" }
        let tokens = names.enumerated().flatMap { index, name in index.isMultiple(of: 2) ? ["--tag", name] : ["--tag=\(name)"] }
        let add = try parse(["add", "d", "--front", "f"] + tokens + ["--back", "b"], as: Add.self)
        #expect(add.tags == names)
        #expect(add.front == "f" && add.back == "b")
    }

    @Test func repeatedSingleOptionKeepsTheLastValue() throws {
        let export = try parse(["export", "d", "-o", "first", "-o", "second"], as: Export.self)
        #expect(export.output == "second")
    }

    @Test func customTypes() throws {
        let list = try parse(["list", "d", "--sort", "front", "--sort", "created:desc"], as: List.self)
        #expect(list.sortKeys == [SortKey(field: "front"), SortKey(field: "created", descending: true)])
    }

    @Test func optionalOptions() throws {
        #expect(try parse(["create", "d"], as: Create.self).title == nil)
        #expect(try parse(["create", "d", "--title", "French verbs"], as: Create.self).title == "French verbs")
        #expect(try parse(["create", "d", "--title="], as: Create.self).title == "")
    }

    @Test func integersAndDoubles() throws {
        let list = try parse(["list", "d", "--limit", "10", "--offset=5"], as: List.self)
        #expect(list.limit == 10)
        #expect(list.offset == 5)
        #expect(try parse(["shift", "3", "--scale", "0.5"], as: Shift.self).scale == 0.5)
    }

    @Test func negativeNumbersAreValues() throws {
        let shift = try parse(["shift", "-3", "--scale", "-1.5"], as: Shift.self)
        #expect(shift.days == -3)
        #expect(shift.scale == -1.5)
        #expect(try parse(["shift", "--scale", "-.25", "--", "-7"], as: Shift.self).days == -7)
        #expect(try parse(["list", "d", "--offset", "-2"], as: List.self).offset == -2)
    }

    @Test func dashAloneIsAValue() throws {
        let export = try parse(["export", "-", "-o", "-"], as: Export.self)
        #expect(export.deck == "-")
        #expect(export.output == "-")
    }

    @Test func valueMayStartWithDashWhenAttached() throws {
        #expect(try parse(["create", "d", "--title=-draft-"], as: Create.self).title == "-draft-")
    }
}

@Suite struct FlagParsingTests {
    @Test func booleanFlags() throws {
        let export = try parse(["export", "d", "-o", "x", "--json"], as: Export.self)
        #expect(export.shared.json)
        #expect(!export.shared.quiet)
    }

    @Test func inversion() throws {
        #expect(try parse(["export", "d", "-o", "x", "--no-progress"], as: Export.self).shared.progress == false)
        #expect(try parse(["export", "d", "-o", "x", "--no-progress", "--progress"], as: Export.self).shared.progress)
    }

    @Test func enableDisableInversion() throws {
        #expect(try Cache.parse([]).cache)
        #expect(try Cache.parse(["--disable-cache"]).cache == false)
        #expect(try Cache.parse(["--disable-cache", "--enable-cache"]).cache)
        #expect(Cache.helpMessage(columns: 80).contains("  --enable-cache/--disable-cache\n"))
        #expect(Cache.fullMessage(for: ExitCode.usage).isEmpty)
        #expect(throws: (any Error).self) { try Cache.parse(["--cache"]) }
    }

    @Test func combinedShortFlags() throws {
        let convert = try parse(["convert", "a", "--to", "csv", "-qvv"], as: Convert.self)
        #expect(convert.shared.quiet)
        #expect(convert.verbose == 2)
    }

    @Test func combinedShortFlagsEndingWithAnOption() throws {
        let convert = try parse(["convert", "a", "--to", "json", "-vqj", "4"], as: Convert.self)
        #expect(convert.verbose == 1)
        #expect(convert.shared.quiet)
        #expect(convert.jobs == 4)
        #expect(try parse(["convert", "a", "--to", "json", "-vj8"], as: Convert.self).jobs == 8)
    }

    @Test func countingFlag() throws {
        #expect(try parse(["convert", "a", "--to", "csv"], as: Convert.self).verbose == 0)
        #expect(try parse(["convert", "a", "--to", "csv", "-v", "-v", "-v"], as: Convert.self).verbose == 3)
    }
}

@Suite struct PositionalParsingTests {
    @Test func variadicArguments() throws {
        let convert = try parse(["convert", "a.apkg", "b.csv", "--to", "json", "c.tsv"], as: Convert.self)
        #expect(convert.inputs == ["a.apkg", "b.csv", "c.tsv"])
        #expect(convert.to == .json)
    }

    @Test func terminatorMakesEverythingPositional() throws {
        let convert = try parse(["convert", "--to", "csv", "--", "--json", "-v", "-"], as: Convert.self)
        #expect(convert.inputs == ["--json", "-v", "-"])
        #expect(!convert.shared.json)
        #expect(convert.verbose == 0)
    }

    @Test func optionalArgument() throws {
        #expect(try parse(["shift", "2"], as: Shift.self).deck == nil)
        #expect(try parse(["shift", "2", "French.sampledeck"], as: Shift.self).deck == "French.sampledeck")
    }

    @Test func severalArgumentsInOrder() throws {
        let rename = try parse(["tags", "rename", "d", "verb", "verbs"], as: TagsRename.self)
        #expect([rename.deck, rename.old, rename.new] == ["d", "verb", "verbs"])
    }
}

@Suite struct StandaloneParsingTests {
    @Test func parseOneCommandAlone() throws {
        let create = try Create.parse(["d", "--title", "T"])
        #expect(create.deck == "d")
        #expect(create.title == "T")
    }

    @Test func parseDoesNotLookForSubcommands() {
        #expect(throws: (any Error).self) { try Tags.parse(["rename"]) }
    }

    @Test func helpThrowsCleanExit() {
        #expect {
            _ = try Create.parse(["--help"])
        } throws: { error in
            guard case CleanExit.helpRequest(let command) = error else { return false }
            return command == Create.self
        }
    }

    @Test func defaultsReadableBeforeParsing() {
        let export = Export()
        #expect(export.format == .csv)
        #expect(export.shared.progress)
    }

    @Test func propertiesAssignableInCode() throws {
        var create = Create()
        create.deck = "assigned"
        #expect(create.deck == "assigned")
        #expect(create.title == nil)
    }
}

private struct Cache: ParsableCommand {
    @Flag(inversion: .prefixedEnableDisable, help: "Use the cache.")
    var cache = true
}
