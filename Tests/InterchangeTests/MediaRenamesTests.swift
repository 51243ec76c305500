import Anki
import DeckDocument
import Foundation
import Testing
@testable import Interchange

/// Media names that sanitising changed are replaced in field text, every occurrence, in one pass.
@Suite struct MediaRenamesTests {
    static let renames = MediaRenames([
        "a:b.png": "a_b.png", "a:b.png.bak": "a_b.png.bak", "é?.mp3": "é_.mp3", "x|y.gif": "x_y.gif", "same.png": "same.png",
    ])

    @Test(arguments: [
        ("no media here", "no media here"),
        ("<img src=\"a:b.png\"> and again a:b.png", "<img src=\"a_b.png\"> and again a_b.png"),
        ("a:b.png.bak is longer than a:b.png", "a_b.png.bak is longer than a_b.png"),
        ("[sound:é?.mp3][sound:é?.mp3]", "[sound:é_.mp3][sound:é_.mp3]"),
        ("<img src=x|y.gif>x|y.gi", "<img src=x_y.gif>x|y.gi"),
        ("a:b.pn", "a:b.pn"),
        ("", ""),
    ] as [(String, String)])
    func replacesEveryOccurrenceOfEachOldName(_ field: String, _ expected: String) {
        #expect(Self.renames.apply(to: field) == expected)
    }

    @Test func nothingToRenameLeavesFieldsAsTheyAre() {
        let none = MediaRenames(["same.png": "same.png"])
        #expect(none.isEmpty)
        #expect(none.apply(to: "same.png") == "same.png")
    }

    @Test func importedFieldsReferToTheRenamedFile() throws {
        let scratch = try Scratch()
        let url = scratch.file("renamed.apkg")
        let writer = try AnkiPackageWriter(url: url, options: .init(format: .anki2))
        try writer.addNoteType(.basic(id: 1))
        try writer.addNote(AnkiNote(id: 1_700_000_000_000, noteTypeID: 1, fields: ["see <img src=\"a:b.png\">", "a:b.png"]))
        try writer.addCard(AnkiCard(id: 1_700_000_000_001, noteID: 1_700_000_000_000, deckID: 1, ordinal: 0))
        try writer.addMedia(name: "a:b.png", data: Data([0x89, 0x50, 0x4E, 0x47, 1, 2]))
        try writer.finish()
        let deck = try scratch.deck()
        let report = try AnkiImporter().importPackage(at: url, into: deck)
        #expect(report.mediaFiles == 1)
        let card = try #require(try deck.allCards().first)
        #expect(card.front == "see <img src=\"a_b.png\">")
        #expect(card.back == "a_b.png")
        #expect(card.mediaNames == ["a_b.png"])
    }
}
