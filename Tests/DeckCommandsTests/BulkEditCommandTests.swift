import Foundation
import Testing

/// deck edit --where and deck rm --where: one transaction, --dry-run, and --yes or a question before many notes change.
@Suite struct BulkEditCommandTests {
    func french() async throws -> (Playground, String) {
        let play = try Playground()
        let deck = play.path("French.sampledeck")
        let fixture = DeckProcess.packageRoot.appendingPathComponent("Fixtures/csv/french-verbs.csv").path
        let created = await play.inProcess("import", deck, fixture, "--create")
        try #require(created.status == 0, "\(created.stderr)")
        return (play, deck)
    }

    func tsv(_ play: Playground, _ deck: String, _ filter: String, columns: String = "id,back,tags") async -> String {
        await play.inProcess("list", deck, "--where", filter, "--columns", columns, "--format", "tsv").stdout
    }

    @Test func dryRunShowsEachNoteAndChangesNothing() async throws {
        let (play, deck) = try await french()
        let before = await tsv(play, deck, "tag = modal")
        let dry = await play.inProcess("edit", deck, "--where", "tag = modal", "--back", "?", "--tag", "+aux", "--tag=-verbs", "--dry-run")
        #expect(dry.status == 0)
        #expect(dry.stdout == """
            card 6 (note 6): Back: "to be able to, can" → "?"; tags +aux -verbs
            card 7 (note 7): Back: "to want" → "?"; tags +aux -verbs
            card 8 (note 8): Back: "to have to, must; to owe" → "?"; tags +aux -verbs
            would change 3 of 3 notes (nothing changed: --dry-run)

            """)
        #expect(await tsv(play, deck, "tag = modal") == before)
        let json = await play.inProcess("edit", deck, "--where", "tag = modal", "--deck", "Modal", "--dry-run", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["dryRun"] as? Bool == true)
        #expect(object["changed"] as? Int == 3)
        #expect((object["notes"] as? [[String: Any]])?.first?["toDeck"] as? String == "Modal")
        #expect(await play.inProcess("decks", "list", deck, "--json").stdout.contains("Modal") == false, "a dry run creates no deck")
    }

    @Test func manyNotesNeedYesOffATerminal() async throws {
        let (play, deck) = try await french()
        let refused = await play.inProcess("edit", deck, "--where", "tag = modal", "--tag", "+aux")
        #expect(refused.status == 64)
        #expect(refused.stderr.hasPrefix("deck: error: 3 notes would be changed; give --yes to go ahead (--dry-run shows them)\n"))
        #expect(await tsv(play, deck, "tag = aux") == "id\tback\ttags\n")
        // One note needs no --yes.
        #expect(await play.inProcess("edit", deck, "--where", "id = 6", "--tag", "+aux").stdout == "edited 1 note\n")
        let done = await play.inProcess("edit", deck, "--where", "tag = modal", "--tag", "+aux", "--deck", "French::Modal", "--yes")
        #expect(done.stdout == "edited 3 notes\n")
        #expect(await tsv(play, deck, "deck = French", columns: "id") == "id\n6\n7\n8\n")
        let again = await play.inProcess("edit", deck, "--where", "tag = modal", "--tag", "+aux", "--yes")
        #expect(again.stdout == "edited 0 notes (3 already were as asked)\n")
    }

    @Test func aTerminalIsAsked() async throws {
        let (play, deck) = try await french()
        let no = await play.inProcess("edit", deck, "--where", "tag = modal", "--tag", "+aux", stdin: "n\n", stdinIsTerminal: true)
        #expect(no.status == 1)
        #expect(no.stderr == "Changed 3 notes? [y/N] deck: error: nothing changed (not confirmed)\n")
        #expect(await tsv(play, deck, "tag = aux") == "id\tback\ttags\n")
        let yes = await play.inProcess("edit", deck, "--where", "tag = modal", "--tag", "+aux", stdin: "y\n", stdinIsTerminal: true)
        #expect(yes.status == 0)
        #expect(await tsv(play, deck, "tag = aux", columns: "id") == "id\n6\n7\n8\n")
        let rmNo = await play.inProcess("rm", deck, "--where", "tag = aux", stdin: "\n", stdinIsTerminal: true)
        #expect(rmNo.status == 1)
        #expect(await tsv(play, deck, "tag = aux", columns: "id") == "id\n6\n7\n8\n")
    }

    @Test func oneTransactionNothingChangesWhenOneNoteCannot() async throws {
        let (play, deck) = try await french()
        #expect(await play.inProcess("add", deck, "--type", "Cloze", "--field", "Text={{c1::Paris}} est en France", "--tag", "geo").status == 0)
        let before = await tsv(play, deck, "tag = geo or tag = modal")
        // Back Extra exists on Cloze, Back on Basic: a field by name must exist in every note's type.
        let mixed = await play.inProcess("edit", deck, "--where", "tag = geo or tag = modal", "--field", "Back=x", "--yes")
        #expect(mixed.status == 64)
        #expect(mixed.stderr == "deck: error: note 44: Cloze has no field \"Back\"; its fields are Text, Back Extra\n")
        #expect(await tsv(play, deck, "tag = geo or tag = modal") == before)
        let noCloze = await play.inProcess("edit", deck, "--where", "tag = geo", "--front", "Paris")
        #expect(noCloze.status == 64)
        #expect(noCloze.stderr.contains("needs a cloze deletion"))
    }

    @Test func singleCardEditKeepsItsOutput() async throws {
        let (play, deck) = try await french()
        #expect(await play.inProcess("edit", deck, "3", "--field", "back=to go (away)", "--tag", "+motion").stdout == "edited 3\n")
        #expect(await tsv(play, deck, "id = 3") == "id\tback\ttags\n3\tto go (away)\tessential irregular motion verbs\n")
        let missing = await play.inProcess("edit", deck, "999", "--back", "x")
        #expect(missing.status == 1)
        #expect(missing.stderr == "deck: error: \(deck): no card with id 999\n")
        #expect(await play.inProcess("edit", deck, "3", "--where", "id = 3", "--back", "x").status == 64)
        #expect(await play.inProcess("edit", deck, "--where", "id = 3").status == 64, "nothing to change")
    }

    @Test func rmWhereDryRunAndYes() async throws {
        let (play, deck) = try await french()
        let dry = await play.inProcess("rm", deck, "--where", "tag = modal", "--dry-run")
        #expect(dry.stdout.hasSuffix("would remove 3 cards (nothing removed: --dry-run)\n"))
        #expect(dry.stdout.contains("pouvoir"))
        #expect(await play.inProcess("rm", deck, "--where", "tag = modal").status == 64)
        #expect(await tsv(play, deck, "tag = modal", columns: "id") == "id\n6\n7\n8\n")
        #expect(await play.inProcess("rm", deck, "--where", "tag = modal", "--yes").stdout == "removed 3 cards\n")
        #expect(await play.inProcess("rm", deck, "1", "2").stdout == "removed 2 cards\n", "identifiers need no --yes")
    }

    @Test func searchIndexCatchesUpAnImportAndSearchesNothing() async throws {
        let (play, deck) = try await french()
        let indexed = await play.inProcess("search", deck, "--index")
        #expect(indexed.status == 0 && indexed.stdout.isEmpty && indexed.stderr.isEmpty, "\(indexed)")
        #expect(await play.inProcess("search", deck, "--index").status == 0, "nothing left: still fine")
        #expect(await play.inProcess("search", deck, "etre", "--format", "tsv").stdout.contains("être"))
        let both = await play.inProcess("search", deck, "etre", "--index")
        #expect(both.status == 64 && both.stderr.contains("--index searches nothing"))
        let neither = await play.inProcess("search", deck)
        #expect(neither.status == 64 && neither.stderr.contains("give the text to look for"))
        #expect(await play.inProcess("check", deck).status == 0)
    }
}
