import Foundation
import Testing
@testable import DeckCommands

/// deck search's background indexer and its opt-out (--no-background-index, DECK_NO_BACKGROUND_INDEX).
@Suite struct SearchCommandTests {
    @Test func theBackgroundIndexerStartsOnlyWhenWantedAndNotOptedOut() {
        #expect(SearchCommand.startsBackgroundIndexing(readsNotes: true, isArchive: false, optedOut: false, environment: [:]))
        #expect(!SearchCommand.startsBackgroundIndexing(readsNotes: false, isArchive: false, optedOut: false, environment: [:]))
        #expect(!SearchCommand.startsBackgroundIndexing(readsNotes: true, isArchive: true, optedOut: false, environment: [:]))
        #expect(!SearchCommand.startsBackgroundIndexing(readsNotes: true, isArchive: false, optedOut: true, environment: [:]))
        for value in ["1", "", "0"] {
            #expect(!SearchCommand.startsBackgroundIndexing(readsNotes: true, isArchive: false, optedOut: false,
                                                            environment: ["DECK_NO_BACKGROUND_INDEX": value]), "set, whatever its value: \(value)")
        }
    }

    @Test func theOptOutIsAnOptionOfSearch() async throws {
        let play = try Playground()
        let deck = play.path("French.sampledeck")
        let fixture = DeckProcess.packageRoot.appendingPathComponent("Fixtures/csv/french-verbs.csv").path
        let created = await play.inProcess("import", deck, fixture, "--create")
        try #require(created.status == 0, "\(created.stderr)")
        let found = await play.inProcess("search", deck, "etre", "--no-background-index", "--format", "tsv")
        #expect(found.status == 0 && found.stdout.contains("être"), "\(found)")
        let help = await play.inProcess("search", "--help")
        #expect(help.stdout.contains("--no-background-index") && help.stdout.contains("DECK_NO_BACKGROUND_INDEX"), "\(help.stdout)")
    }
}
