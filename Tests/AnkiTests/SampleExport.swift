import Foundation
@testable import Anki

/// A small deck written with ``AnkiPackageWriter``, and what it holds, for the round-trip and
/// interop tests: every stock kind, a custom three-field type, a subdeck, tags, HTML, media,
/// and one reviewed card with its history.
struct SampleExport {
    static let basic = AnkiNoteType.basic(id: 1_600_000_000_001)
    static let reversed = AnkiNoteType.basicAndReversed(id: 1_600_000_000_002)
    static let cloze = AnkiNoteType.cloze(id: 1_600_000_000_003)
    static let vocab = AnkiNoteType(
        id: 1_600_000_000_004, name: "Vocabulary (Swift)",
        fields: [.init(name: "Word", ordinal: 0), .init(name: "Meaning", ordinal: 1), .init(name: "Example", ordinal: 2)],
        templates: [.init(name: "Recognize", ordinal: 0, questionFormat: "{{Word}}",
                          answerFormat: "{{FrontSide}}<hr id=answer>{{Meaning}}<br><i>{{Example}}</i>")],
        css: ".card { font-family: serif; }", sortFieldIndex: 1)
    static let parent = AnkiDeck(id: 1_600_000_000_100, name: "Swift Export", description: "Written by <b>SampleDeck</b>")
    static let child = AnkiDeck(id: 1_600_000_000_101, name: "Swift Export::Verbs")
    static let orphan = AnkiDeck(id: 1_600_000_000_102, name: "Languages::Japanese::Kana")

    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<120).map { UInt8($0) })
    static let sound = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 13) })

    struct Expected {
        var notes: [String: (type: String, fields: [String: String], tags: [String])] = [:]
        var cardCount = 0
        var reviewedGUID = ""
        var reviewDue: Int64 = 0
        var media: [String: Data] = [:]
    }

    /// Writes the sample to `url` and returns what Anki should hold after importing it.
    static func write(to url: URL, options: AnkiPackageWriter.Options = .init(), mediaDirectory: URL) throws -> Expected {
        var expected = Expected()
        let writer = try AnkiPackageWriter(url: url, options: options)
        for type in [basic, reversed, cloze, vocab] { try writer.addNoteType(type) }
        for deck in [parent, child, orphan] { try writer.addDeck(deck) }

        func add(_ type: AnkiNoteType, _ fields: [String], tags: [String], deck: AnkiDeck) throws -> AnkiNote {
            let (note, cards) = try writer.addNote(AnkiNote(id: 0, noteTypeID: type.id, tags: tags, fields: fields),
                                                   generatingCardsIn: deck.id)
            expected.notes[note.guid] = (type.name, Dictionary(uniqueKeysWithValues: zip(type.fieldNames, fields)), tags)
            expected.cardCount += cards.count
            return note
        }
        _ = try add(basic, ["bonjour", "hello <img src=\"dot.png\">"], tags: ["french", "greeting"], deck: parent)
        _ = try add(basic, ["être &amp; avoir", "to be &amp; to have [sound:voice.mp3]"], tags: ["french", "verbs::irregular"], deck: child)
        _ = try add(reversed, ["le chat", "the cat"], tags: [], deck: child)
        _ = try add(cloze, ["{{c1::Paris}} is the capital of {{c2::France}}", "géographie"], tags: ["geo"], deck: parent)
        _ = try add(vocab, ["家", "house", "家に帰る"], tags: ["japanese"], deck: orphan)

        // A reviewed card, with its history.
        let reviewed = try writer.addNote(AnkiNote(id: 0, guid: AnkiNote.newGUID(), noteTypeID: basic.id,
                                                   tags: ["reviewed"], fields: ["merci", "thank you"]))
        expected.notes[reviewed.guid] = (basic.name, ["Front": "merci", "Back": "thank you"], ["reviewed"])
        expected.reviewedGUID = reviewed.guid
        expected.reviewDue = 7
        let card = try writer.addCard(AnkiCard(id: 0, noteID: reviewed.id, deckID: parent.id, ordinal: 0,
                                               type: .review, queue: .review, due: expected.reviewDue,
                                               interval: 21, factor: 2350, reps: 5, lapses: 1))
        expected.cardCount += 1
        try writer.addReview(AnkiReview(id: 1_700_000_000_000, cardID: card.id, ease: 3, interval: 9,
                                        lastInterval: 4, factor: 2500, timeTaken: 3100, kind: .review))
        try writer.addReview(AnkiReview(id: 1_700_900_000_000, cardID: card.id, ease: 2, interval: 21,
                                        lastInterval: 9, factor: 2350, timeTaken: 5400, kind: .review))

        try writer.addMedia(name: "dot.png", data: png)
        let soundFile = mediaDirectory.appendingPathComponent("source.mp3")
        try sound.write(to: soundFile)
        try writer.addMedia(name: "voice.mp3", contentsOf: soundFile)
        expected.media = ["dot.png": png, "voice.mp3": sound]
        try writer.finish()
        return expected
    }
}
