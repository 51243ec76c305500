import Foundation
import Testing

/// deck notetypes, decks, tags, suspend, unsuspend, flag and list --cards/--columns, run in-process.
@Suite struct OrganizeCommandTests {
    /// A playground holding French.sampledeck (the French verbs fixture: 43 Basic notes, cards 1–43).
    func french() async throws -> (Playground, String) {
        let play = try Playground()
        let deck = play.path("French.sampledeck")
        let fixture = DeckProcess.packageRoot.appendingPathComponent("Fixtures/csv/french-verbs.csv").path
        let created = await play.inProcess("import", deck, fixture, "--create")
        try #require(created.status == 0, "\(created.stderr)")
        return (play, deck)
    }

    @Test func notetypesListAndShow() async throws {
        let (play, deck) = try await french()
        let list = await play.inProcess("notetypes", deck)
        #expect(list.status == 0)
        #expect(list.stdout.hasPrefix("NOTETYPE"))
        #expect(list.stdout.contains("Basic                      standard  Front, Back               1     43     43"))
        let show = await play.inProcess("notetypes", "show", deck, "cloze")
        #expect(show.status == 0)
        #expect(show.stdout.contains("kind:       cloze"))
        #expect(show.stdout.contains("  1. Text  (sort field)\n  2. Back Extra\n"))
        let json = await play.inProcess("notetypes", "list", deck, "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let types = try #require(object["notetypes"] as? [[String: Any]])
        #expect(types.map { $0["name"] as? String } == ["Basic", "Basic (and reversed card)", "Cloze"])
        #expect(types.first?["notes"] as? Int == 43)
        let missing = await play.inProcess("notetypes", "show", deck, "Vocab")
        #expect(missing.status == 1)
        #expect(missing.stderr == "deck: error: \(deck): no note type \"Vocab\"; the deck has Basic, Basic (and reversed card), Cloze\n")
    }

    @Test func decksTreeCreateRenameDescribe() async throws {
        let (play, deck) = try await french()
        #expect(await play.inProcess("decks", "create", deck, "French::Irregular").stdout == "created deck French::Irregular\n")
        let again = await play.inProcess("decks", "create", deck, "french::irregular")
        #expect(again.status == 73)
        #expect(again.stderr == "deck: error: \(deck): a deck named \"French::Irregular\" already exists\n")
        // Move the irregular verbs' cards there with nothing but the commands: (edit --where --deck comes later) none here.
        let tree = await play.inProcess("decks", deck)
        #expect(tree.stdout == """
            DECK         CARDS  NEW  LEARN  REVIEW  SUSPENDED  DUE
            Default         43   43      0       0          0    0
            French           0    0      0       0          0    0
              Irregular      0    0      0       0          0    0

            """)
        let rename = await play.inProcess("decks", "rename", deck, "French", "Languages::French")
        #expect(rename.status == 0)
        #expect(rename.stdout == "renamed 2 decks\n")
        let json = await play.inProcess("decks", "list", deck, "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let names = (object["decks"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names == ["Default", "Languages", "Languages::French", "Languages::French::Irregular"])
        let into = await play.inProcess("decks", "rename", deck, "Languages", "Languages::X")
        #expect(into.status == 64)
        let unknown = await play.inProcess("decks", "rename", deck, "Nope", "X")
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "deck: error: \(deck): no deck named \"Nope\"\n")
        #expect(await play.inProcess("decks", "describe", deck, "languages::french", "Verbes <b>courants</b>").status == 0)
        #expect(await play.inProcess("decks", "describe", deck, "Languages::French").stdout == "Verbes <b>courants</b>\n")
    }

    @Test func tagsListRenameRemove() async throws {
        let (play, deck) = try await french()
        let list = await play.inProcess("tags", deck)
        #expect(list.stdout.contains("\nirregular           25\n"))
        #expect(await play.inProcess("tags", "rename", deck, "irregular", "fr::irregular").stdout == "renamed irregular to fr::irregular on 25 notes\n")
        let filtered = await play.inProcess("list", deck, "--where", "tag = fr", "--format", "tsv")
        #expect(filtered.stdout.split(separator: "\n").count == 26, "the 25 notes, under fr through the hierarchy, plus the header")
        #expect(await play.inProcess("tags", "remove", deck, "fr").stdout == "removed fr from 25 notes\n")
        let json = await play.inProcess("tags", "list", deck, "--json")
        #expect(!json.stdout.contains("irregular"))
        let missing = await play.inProcess("tags", "remove", deck, "modal", "nope")
        #expect(missing.status == 1)
        #expect(await play.inProcess("list", deck, "--where", "tag = modal", "--quiet").status == 0)
        #expect(await play.inProcess("list", deck, "--where", "tag = modal", "--format", "tsv").stdout.split(separator: "\n").count == 4,
                "a refused remove changed nothing")
    }

    @Test func suspendUnsuspendAndFlag() async throws {
        let (play, deck) = try await french()
        #expect(await play.inProcess("suspend", deck, "--where", "tag = modal").stdout == "suspended 3 cards\n")
        #expect(await play.inProcess("suspend", deck, "6", "7").stdout == "suspended 0 cards (2 already were)\n")
        let suspended = await play.inProcess("list", deck, "--cards", "--columns", "id,state", "--where", "is = suspended", "--format", "tsv")
        #expect(suspended.stdout == "id\tstate\n6\tsuspended\n7\tsuspended\n8\tsuspended\n")
        let spelledOut = await play.inProcess("list", deck, "--cards", "--columns", "id,state", "--where", "is suspended", "--format", "tsv")
        #expect(spelledOut.stdout == suspended.stdout, "'is suspended' is 'is = suspended'")
        let others = await play.inProcess("list", deck, "--cards", "--columns", "id", "--where", "is not suspended and id <= 7", "--format", "tsv")
        #expect(others.stdout == "id\n1\n2\n3\n4\n5\n", "\(others.stdout)")
        let missing = await play.inProcess("suspend", deck, "1", "999")
        #expect(missing.status == 1)
        #expect(missing.stderr == "deck: error: \(deck): no card with id 999\n")
        #expect(await play.inProcess("list", deck, "--where", "is = suspended", "--format", "tsv").stdout.split(separator: "\n").count == 4,
                "card 1 was not suspended by the refused command")
        let unsuspend = await play.inProcess("unsuspend", deck, "--where", "is = suspended", "--json")
        #expect(unsuspend.stdout == "{\"deck\": \"\(deck)\", \"matched\": 3, \"changed\": 3}\n")
        #expect(await play.inProcess("flag", deck, "1", "1", "2").stdout == "flagged 2 cards\n")
        let red = await play.inProcess("list", deck, "--cards", "--columns", "id,flag,front", "--where", "flag = 1", "--format", "tsv")
        #expect(red.stdout == "id\tflag\tfront\n1\t1\têtre\n2\t1\tavoir\n")
        #expect(await play.inProcess("flag", deck, "0", "--where", "flag != 0").stdout == "cleared the flag of 2 cards\n")
        #expect(await play.inProcess("flag", deck, "8", "1").status == 64)
        #expect(await play.inProcess("flag", deck, "1").status == 64, "neither ids nor --where")
        #expect(await play.inProcess("suspend", deck, "1", "--where", "id = 1").status == 64, "both ids and --where")
        let badFilter = await play.inProcess("suspend", deck, "--where", "is = sleeping")
        #expect(badFilter.status == 64)
        #expect(badFilter.stderr.contains("is must be one of new, learning, review, due, suspended, buried"))
    }

    @Test func listCardsAndColumns() async throws {
        let play = try Playground()
        let deck = play.path("R.sampledeck")
        #expect(await play.inProcess("create", deck).status == 0)
        #expect(await play.inProcess("add", deck, "--kind", "reversible", "--front", "chat", "--back", "cat", "--deck", "Animals").status == 0)
        #expect(await play.inProcess("add", deck, "--front", "chien", "--back", "dog").status == 0)
        let notes = await play.inProcess("list", deck, "--format", "tsv")
        #expect(notes.stdout == "id\tkind\tfront\tback\ttags\n1\treversible\tchat\tcat\t\n3\tbasic\tchien\tdog\t\n")
        let cards = await play.inProcess("list", deck, "--cards", "--format", "tsv")
        #expect(cards.stdout == """
            id\tnote\tdeck\ttemplate\tstate\tdue\tfront\tback
            1\t1\tAnimals\tCard 1\tnew\t\tchat\tcat
            2\t1\tAnimals\tCard 2\tnew\t\tchat\tcat
            3\t2\tDefault\tCard 1\tnew\t\tchien\tdog

            """)
        let second = await play.inProcess("list", deck, "--cards", "--where", "card = 2", "--columns", "id,notetype,template", "--json")
        #expect(second.stdout == "[\n  {\"id\": 2, \"notetype\": \"Basic (and reversed card)\", \"template\": \"Card 2\"}\n]\n")
        let table = await play.inProcess("list", deck, "--cards", "--columns", "id,deck,front", "--sort", "deck:desc")
        #expect(table.stdout == "ID  DECK     FRONT\n3   Default  chien\n1   Animals  chat\n2   Animals  chat\n")
        let byDeck = await play.inProcess("list", deck, "--where", "deck = animals", "--columns", "id,front")
        #expect(byDeck.stdout == "ID  FRONT\n1   chat\n")
        let unknown = await play.inProcess("list", deck, "--columns", "id,colour")
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("deck: error: --columns: unknown column 'colour' (use id, note, kind,"))
    }
}

import DeckDocument

/// The grammar in `deck list --help` (and so deck-list(1)) names every field the translator knows.
@Suite struct FilterHelpTests {
    @Test func listHelpNamesEveryFilterField() async throws {
        let help = await InProcessDeck.run(["list", "--help"], columns: 10_000)
        #expect(help.status == 0)
        for field in DeckDocument.filterFieldNames {
            #expect(help.stdout.contains(field), "deck list --help names the filter field \(field)")
        }
        #expect(help.stdout.contains("field.<name>"))
        for state in ["new", "learning", "review", "due", "suspended", "buried"] {
            #expect(help.stdout.contains(state))
        }
    }
}

/// deck list --sort on text: as a reader sorts (case, accents and leading punctuation ignored), or by bytes with --byte-order.
@Suite struct LocaleSortTests {
    @Test func textSortsAsAReaderExpects() async throws {
        let play = try Playground()
        let deck = play.path("S.sampledeck")
        #expect(await play.inProcess("create", deck).status == 0)
        for front in ["zorro", "¡Buenos días!", "élan", "Apple", "banana", "etre", "\"Quoted\""] {
            #expect(await play.inProcess("add", deck, "--front", front, "--back", "x").status == 0)
        }
        let sorted = await play.inProcess("list", deck, "--sort", "front", "--columns", "front", "--format", "tsv")
        #expect(sorted.stdout == "front\nApple\nbanana\n¡Buenos días!\nélan\netre\n\"Quoted\"\nzorro\n")
        let descending = await play.inProcess("list", deck, "--sort", "front:desc", "--columns", "front", "--format", "tsv")
        #expect(descending.stdout.split(separator: "\n").dropFirst().first == "zorro")
        let bytes = await play.inProcess("list", deck, "--sort", "front", "--byte-order", "--columns", "front", "--format", "tsv")
        #expect(bytes.stdout == "front\n\"Quoted\"\nApple\nbanana\netre\nzorro\n¡Buenos días!\nélan\n")
    }
}
