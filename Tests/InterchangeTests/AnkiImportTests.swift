import Anki
import DeckDocument
import Foundation
import Persistence
import Testing
@testable import Interchange

@Suite struct AnkiImportTests {
    @Test(arguments: Fixtures.ankiPackages)
    func importsEveryNoteTypeTagsDecksAndMedia(_ fixture: String) throws {
        let scratch = try Scratch()
        let deck = try scratch.deck()
        let report = try AnkiImporter().importPackage(at: Fixtures.anki(fixture), into: deck)
        #expect(report.notesRead == 5)
        #expect(report.notesAdded == 5)
        #expect(report.cardsAdded == 7, "both cards of the reversible and the cloze note")
        #expect(report.mediaFiles == 2)
        #expect(report.missingMedia == 0)

        let bonjour = try #require(try deck.card(front: "bonjour"))
        #expect(bonjour.kind == .basic)
        #expect(bonjour.back == "hello <img src=\"red dot.png\">")
        #expect(Set(bonjour.tags) == ["french", "greeting"])
        #expect(bonjour.mediaNames == ["red dot.png"])
        #expect(bonjour.ankiGUID?.isEmpty == false)
        #expect(bonjour.deckPath?.hasSuffix("Test") == true)

        let merci = try #require(try deck.card(front: "merci"))
        #expect(merci.mediaNames == ["bonjour.mp3"])
        let sound = try #require(try deck.allMedia().first { $0.originalName == "bonjour.mp3" })
        #expect(merci.media == [sound.fileName])
        let bytes = try Data(contentsOf: deck.fileURL(of: sound))
        #expect(bytes == Data((0..<1000).map { UInt8(($0 * 7 + 3) % 256) }))
        #expect(sound.sha256.count == 64)

        let chat = try #require(try deck.card(front: "le chat"))
        #expect(chat.kind == .reversible)
        #expect(chat.ordinals == [0, 1])
        #expect(chat.back == "the cat")
        #expect(chat.deckPath?.hasSuffix("::Sub") == true)

        let cloze = try #require(try deck.allCards().first { $0.kind == .cloze })
        #expect(cloze.ordinals == [0, 1])
        #expect(cloze.text == "{{c1::Paris}} is the capital of {{c2::France}}")
        #expect(cloze.back == "geography")

        let maison = try #require(try deck.card(front: "maison"))
        #expect(maison.kind == .basic)
        // A type of its own keeps its fields: no more "Name: value" lines on the back.
        #expect(maison.back == "house")
        let vocab = try #require(try deck.noteType(named: "Vocab (3 fields)"))
        #expect(vocab.fields.sorted { $0.ordinal < $1.ordinal }.map(\.name) == ["Word", "Meaning", "Example"])
        #expect(Set(maison.tags) == ["french", "nouns"])
        #expect(deck.check().isEmpty)
    }

    @Test(arguments: ["anki-legacy.apkg", "anki-current.apkg"])
    func keepsSchedulingAndReviewHistory(_ fixture: String) throws {
        let scratch = try Scratch()
        let deck = try scratch.deck()
        let report = try AnkiImporter().importPackage(at: Fixtures.anki(fixture), into: deck)
        #expect(report.reviews == 2)
        let bonjour = try #require(try deck.card(front: "bonjour"))
        #expect(bonjour.interval == 12)
        #expect(bonjour.ease == 2.65)
        #expect(bonjour.repetitions == 2)
        #expect(bonjour.lapses == 1)
        let due = try #require(bonjour.due)
        // The fixture's card is due five days after the day it was made (its note's modification).
        let days = due.timeIntervalSince(bonjour.modified) / 86_400
        #expect(days > 3.5 && days < 6.5)
        #expect(bonjour.reviews.map(\.ease).sorted() == [3, 3])
        #expect(bonjour.reviews.map(\.interval).sorted() == [3, 12])
        #expect(bonjour.reviews.map(\.date.timeIntervalSince1970).sorted() == [1_700_000_000, 1_700_086_400])
        let merci = try #require(try deck.card(front: "merci"))
        #expect(merci.due == nil)
        #expect(merci.reviews.isEmpty)
    }

    @Test(arguments: Fixtures.ankiPackages)
    func importingTwiceAddsNothing(_ fixture: String) throws {
        let scratch = try Scratch()
        let deck = try scratch.deck()
        try AnkiImporter().importPackage(at: Fixtures.anki(fixture), into: deck)
        try deck.close()
        let reopened = try DeckDocument.open(at: scratch.file("Test.sampledeck"))
        let again = try AnkiImporter().importPackage(at: Fixtures.anki(fixture), into: reopened)
        #expect(again.cardsAdded == 0)
        #expect(again.notesAdded == 0)
        #expect(again.updates.unchanged == 5)
        #expect(try reopened.noteCount() == 5)
        #expect(try reopened.mainContext.fetchCount(FetchDescriptor<DeckSchemaV2.MediaFile>()) == 2)
    }

    @Test func importedCardsAreSearchable() throws {
        let scratch = try Scratch()
        let deck = try scratch.deck()
        try AnkiImporter().importPackage(at: Fixtures.anki("anki-current.apkg"), into: deck)
        #expect(try deck.search("maison", limit: nil).map(\.front) == ["maison"])
        #expect(try deck.search("nouns", limit: nil).map(\.front) == ["maison"])
        // The triggers are back: a card added afterwards is indexed.
        _ = try deck.addCard(kind: .basic, front: "pomme", back: "apple", tags: [])
        try deck.save()
        #expect(try deck.search("pomme", limit: nil).count == 1)
    }

    @Test func malformedPackageAddsNothing() throws {
        let scratch = try Scratch()
        let deck = try scratch.deck()
        let bad = scratch.file("bad.apkg")
        try Data("not a zip".utf8).write(to: bad)
        #expect(throws: AnkiError.self) { try AnkiImporter().importPackage(at: bad, into: deck) }
        #expect(try deck.cardCount() == 0)
    }

    @Test func mediaNames() {
        #expect(MediaNames.sanitized("a/b:c.png") == "a_b_c.png")
        #expect(MediaNames.sanitized("..hidden") == "hidden")
        #expect(MediaNames.sanitized("") == "media")
        #expect(MediaNames.sanitized(String(repeating: "x", count: 300) + ".png").utf8.count == 200)
        #expect(MediaNames.references(in: "<img src=\"red dot.png\"> [sound:a.mp3] <img src='b%20c.jpg'> <img src=http://x/y.png> <img src=d.gif>")
                == ["red dot.png", "b c.jpg", "d.gif", "a.mp3"])
    }
}

@Suite struct BulkImportTests {
    @Test func batchesKeepTagsMediaReviewsAndTheSearchIndex() throws {
        let scratch = try Scratch()
        let deck = try scratch.deck()
        let media = try deck.addMedia(Data([1, 2, 3]), originalName: "a.png")
        try deck.bulkImport { session in
            for index in 0..<5 {
                let card = ImportedNote(kind: .basic, front: "front \(index)", back: "back")
                try session.add(card, tags: ["t\(index % 2)", "all"], media: index == 4 ? [media.fileName] : [],
                                reviews: [ReviewSnapshot(date: Date(timeIntervalSince1970: Double(index)), ease: 3, interval: 1, duration: 1)])
            }
            try session.ensureTags(["unused"])
        }
        #expect(try deck.noteCount() == 5)
        #expect(try deck.allTags().map(\.name) == ["all", "t0", "t1", "unused"])
        var snapshots: [CardSnapshot] = []
        try deck.forEachCardSnapshot { snapshots.append($0) }
        #expect(snapshots.map(\.tags) == [["all", "t0"], ["all", "t1"], ["all", "t0"], ["all", "t1"], ["all", "t0"]])
        #expect(snapshots.map(\.media.count) == [0, 0, 0, 0, 1])
        #expect(snapshots.map(\.reviews.count) == [1, 1, 1, 1, 1])
        #expect(try deck.search("t1", limit: nil).count == 2)
        #expect(deck.check().isEmpty)
    }

    @Test func importingIntoAFullDeckIndexesOnlyTheNewCards() throws {
        let scratch = try Scratch()
        let deck = try scratch.deck()
        _ = try deck.addCard(kind: .basic, front: "ancien", back: "old", tags: ["kept"])
        try deck.save()
        try deck.bulkImport { session in try session.add(ImportedNote(kind: .basic, front: "nouveau", back: "new"), tags: ["fresh"]) }
        #expect(try deck.search("ancien", limit: nil).count == 1)
        #expect(try deck.search("kept", limit: nil).count == 1)
        #expect(try deck.search("nouveau", limit: nil).count == 1)
        #expect(try deck.search("fresh", limit: nil).count == 1)
        #expect(deck.check().isEmpty)
    }

    @Test func aFailureLeavesNothing() throws {
        struct Stop: Error {}
        let scratch = try Scratch()
        let deck = try scratch.deck()
        #expect(throws: Stop.self) {
            try deck.bulkImport { session in
                for index in 0..<5 { try session.add(ImportedNote(kind: .basic, front: "f\(index)", back: ""), tags: ["x"]) }
                throw Stop()
            }
        }
        #expect(try deck.cardCount() == 0)
        #expect(try deck.allTags().isEmpty)
        _ = try deck.addCard(kind: .basic, front: "after", back: "", tags: [])
        try deck.save()
        #expect(try deck.search("after", limit: nil).count == 1)  // the triggers are back
    }
}
