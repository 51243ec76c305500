import DeckDocument
import Foundation
import Testing
@testable import Interchange

/// What current Anki rendered for anki_html.py's notes (one python3 process per test run).
struct AnkiHTMLRendering: Decodable {
    struct NoteType: Decodable {
        struct Template: Decodable { let name, qfmt, afmt: String }
        let kind: Int
        let fields: [String]
        let templates: [Template]
        let css: String
    }
    struct Card: Decodable {
        let id: Int64
        let ord: Int
        let deck: String
        let flag: Int
        let question, answer, css: String
    }
    struct Note: Decodable {
        let notetype: String
        let fields, tags: [String]
        let cards: [Card]
    }
    let notetypes: [String: NoteType]
    let notes: [Note]

    static func load() throws -> AnkiHTMLRendering {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("anki_html.py").path
        let result = try runProgram("/usr/bin/env", ["python3", script])
        guard result.status == 0 else { throw NoteInputError("anki_html.py failed (\(result.status)): \(result.stderr)") }
        return try JSONDecoder().decode(AnkiHTMLRendering.self, from: Data(result.stdout.utf8))
    }
}

@Suite struct AnkiHTMLTests {
    static let media: [(name: String, data: Data, mime: String)] = [
        ("cat.png", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 4, 5, 6]), "image/png"),
        ("chien.mp3", Data((0..<100).map { UInt8($0) }), "audio/mpeg"),
        ("_paper.png", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 7]), "image/png"),
    ]

    /// The same notes in a deck (Anki's note types, decks, card ids and flags), exported as HTML:
    /// each card's question and answer in the page are Anki's own rendering of it, with the
    /// page's media inlining applied to Anki's text alike.
    @Test(.tags(.interop)) func thePageShowsCardsAsAnkiRendersThem() throws {
        let anki = try AnkiHTMLRendering.load()
        let scratch = try Scratch()
        let deck = try scratch.deck("Anki.sampledeck", title: "Rendered")
        let typeNames = anki.notetypes.keys.sorted()
        let typeIDs = Dictionary(uniqueKeysWithValues: typeNames.enumerated().map { ($1, Int64($0 + 1)) })
        let deckNames = Array(Set(anki.notes.flatMap { $0.cards.map(\.deck) } + ["Default"])).sorted()
        let deckIDs = Dictionary(uniqueKeysWithValues: deckNames.enumerated().map { ($1, Int64($0 + 1)) })
        let noteTypes = typeNames.map { name -> NoteTypeRecord in
            let type = anki.notetypes[name]!  // the keys come from the dictionary
            return NoteTypeRecord(
                id: typeIDs[name] ?? 0, name: name, kind: type.kind, stockKind: nil, css: type.css, sortField: 0, latexPre: "", latexPost: "",
                latexSVG: false, modified: 1_700_000_000, ankiID: nil, ankiOptions: "{}",
                fields: type.fields.enumerated().map {
                    FieldRecord(ordinal: $0, name: $1, font: "Arial", fontSize: 20, rightToLeft: false, sticky: false, plainText: false,
                                collapsed: false, excludeFromSearch: false, description: "", ankiOptions: "{}")
                },
                templates: type.templates.enumerated().map {
                    TemplateRecord(ordinal: $0, name: $1.name, questionFormat: $1.qfmt, answerFormat: $1.afmt, browserQuestionFormat: "",
                                   browserAnswerFormat: "", browserFont: "", browserFontSize: 0, modified: 1_700_000_000, ankiOptions: "{}")
                })
        }
        let decks = deckNames.map {
            DeckRecord(id: deckIDs[$0] ?? 0, name: $0, kind: 0, description: "", markdownDescription: false, collapsed: false,
                       filterTerms: "[]", reschedules: true, modified: 1_700_000_000, ankiOptions: "{}", preset: nil)
        }
        let media = Self.media.map { FullDeck.media($0.data, ext: "bin", names: [$0.name], mime: $0.mime) }
        let bytes = Dictionary(uniqueKeysWithValues: zip(media.map(\.fileName), Self.media.map(\.data)))
        let notes = anki.notes.enumerated().map { index, note in
            NoteRecord(id: Int64(index + 1), guid: "note-\(index)", noteType: typeIDs[note.notetype] ?? 0, fields: note.fields, sortText: "",
                       created: 1_700_000_000, modified: 1_700_000_000, ankiID: nil, tags: note.tags.sorted(), media: [],
                       cards: note.cards.map { card in
                           CardRecord(id: card.id, ordinal: card.ord, deck: deckIDs[card.deck], type: 0, queue: 0, due: 0, interval: 0,
                                      easeFactor: 0, repetitions: 0, lapses: 0, remainingSteps: 0, originalDue: 0, flag: card.flag,
                                      customData: "", created: 1_700_000_000, modified: 1_700_000_000, ankiOptions: "{}", reviews: [])
                       })
        }
        let contents = DeckContents(title: "Rendered", decks: decks, noteTypes: noteTypes,
                                    tags: Set(anki.notes.flatMap(\.tags)).sorted().map { TagRecord(name: $0, collapsed: false) }, media: media)
        try deck.restore(contents, notes: notes, mediaData: { bytes[$0.fileName] }, adoptsTitle: false)

        let file = scratch.file("deck.html")
        try DeckHTMLExporter().export(deck, to: file)
        let html = try String(contentsOf: file, encoding: .utf8)
        let uris = Dictionary(uniqueKeysWithValues: Self.media.map { ($0.name, "data:\($0.mime);base64,\($0.data.base64EncodedString())") })
        let resolve: (String) -> String? = { uris[$0] }
        var compared = 0
        for note in anki.notes {
            for card in note.cards {
                let start = try #require(html.range(of: "<article class=\"entry\" id=\"card-\(card.id)\">"), "card \(card.id) is missing")
                let end = try #require(html.range(of: "</article>", range: start.upperBound..<html.endIndex))
                let article = String(html[start.upperBound..<end.lowerBound])
                let css = try DeckHTMLExporter.pageCSS(card.css, media: resolve)
                let question = DeckHTMLExporter.shadowCard(try DeckHTMLExporter.pageHTML(card.question, side: .question, media: resolve),
                                                           css: css, ordinal: card.ord)
                let answer = DeckHTMLExporter.shadowCard(try DeckHTMLExporter.pageHTML(card.answer, side: .answer, media: resolve),
                                                         css: css, ordinal: card.ord)
                #expect(article.contains(question), "\(note.notetype) card \(card.ord) question: Anki \(card.question.debugDescription)\npage \(article)")
                #expect(article.contains(answer), "\(note.notetype) card \(card.ord) answer: Anki \(card.answer.debugDescription)\npage \(article)")
                compared += 1
            }
        }
        #expect(compared >= 20)
        #expect(html.components(separatedBy: "<article class=\"entry\"").count - 1 == compared)
        // Media went inline: the image (also inside the custom type's CSS) and the sound.
        #expect(html.contains("background: url(\"\(uris["_paper.png"] ?? "")\")"))
        #expect(html.contains("<audio controls src=\"\(uris["chien.mp3"] ?? "")\" title=\"chien.mp3\"></audio>"))
    }
}
